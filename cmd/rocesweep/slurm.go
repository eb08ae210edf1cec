package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/slurm"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// cmdSlurm writes a Slurm job-array script for a sweep and, with --submit, submits it
// with sbatch. Task K of N runs `rocesweep run SPEC -o DIR --shard K/N --resume`,
// so a requeued, preempted or resubmitted task continues from its journal. Everything
// that can be checked here is checked before anything is written or submitted: the spec
// and every job (as `validate`), the flags, an existing DIR's plan and shard count.
func cmdSlurm(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("slurm", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	out := fl.StringP("output", "o", "", "results directory, on a file system every node sees (required)")
	size := fl.Int("array-size", 0, fmt.Sprintf("tasks in the array = shards of the plan (default: the shard count already in DIR, else min(jobs, %d))", slurm.DefaultArraySize))
	partition := fl.String("partition", "", "Slurm partition (default: the cluster's default partition)")
	timeLimit := fl.String("time", "", "time limit per task, in sbatch's format (e.g. 4:00:00 or 1-00:00:00; default: the partition's)")
	cpus := fl.Int("cpus-per-task", 0, "CPUs per task = parallel jobs per task (default: Slurm's, usually 1; for a selection, what its rounds can use: ceil(points / tasks))")
	submit := fl.Bool("submit", false, "submit the script with sbatch and print the array id")
	sbatch := fl.String("sbatch", "sbatch", "the sbatch command (a path, or a name looked up in PATH)")
	ov := addOverrideFlags(fl, "; passed to every task")
	skipInvalid := fl.Bool("skip-invalid", false, "record invalid grid points as status invalid and run the rest (passed to every task; each task's --resume decides them again)")
	selectFlag := fl.Bool("select", false, "run a sequential selection (default: true when the spec has a select: block): the tasks run each round's jobs in lock-step, each waiting for the others' jobs before the next round")
	waitLimit := fl.Duration("wait-limit", study.DefaultWaitLimit, "for a selection: a task stops (exit 3, naming the missing shards) when none of the other tasks' jobs it waits for has been committed for this long; 0 waits without a limit")
	rf := addRunFlags(fl) // --format, --max-wall-per-job, --commit-interval: passed to every task
	if err := fl.Parse(args); err != nil {
		return flagError("slurm", fl, err)
	}
	if *out == "" {
		return usagef("slurm: -o DIR is required: the results directory, on a file system every node of the partition sees")
	}
	if *size < 0 {
		return usagef("slurm: --array-size %d: want at least 1", *size)
	}
	if *cpus < 0 {
		return usagef("slurm: --cpus-per-task %d: want at least 1", *cpus)
	}
	if err := rf.check("slurm"); err != nil {
		return err
	}
	if err := slurm.CheckOptions(*partition, *timeLimit); err != nil {
		return usagef("slurm: %v", err)
	}

	// The spec and every job, as `validate` checks them.
	spec, err := loadSpec("slurm", fl.Args(), ov, false)
	if err != nil {
		return err
	}
	hasSelect := spec.Select != nil
	selecting, w := spec.ChooseSelection(fl.Changed("select"), *selectFlag)
	if w != "" {
		fmt.Fprintf(stderr, "rocesweep: %s\n", w)
	}
	noSelect := hasSelect && !selecting // --select=false of a spec with a select: block
	p, err := expandSpec(spec)
	if err != nil {
		return err
	}
	printWarnings(stderr, p)
	_, largest := sweep.Estimates(p)
	if bad := p.Invalid(); len(bad) > 0 && !*skipInvalid {
		return usageError{p.InvalidError(bad)}
	}

	dir, err := filepath.Abs(*out)
	if err != nil {
		return usagef("slurm: -o %s: %v", *out, err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("slurm: the working directory: %w", err)
	}
	if err := slurm.CheckPaths(dir, cwd); err != nil {
		return usagef("slurm: %v", err)
	}
	if *waitLimit < 0 {
		return usagef("slurm: --wait-limit %v: want a duration of 0 (no limit) or more", *waitLimit)
	}
	// A selection's rounds after the first stage run at most one job per point, spread
	// over the tasks: tasks beyond the points, or CPUs beyond ceil(points / tasks), would
	// idle in every one of them (the first stage runs points × select.initial jobs on the
	// same CPUs, in select.initial waves).
	taskJobs := len(p.Jobs)
	if selecting && *size == 0 {
		taskJobs = min(taskJobs, p.Points)
	}
	n, err := slurm.ArraySize(dir, *size, taskJobs)
	if err != nil {
		return usageError{fmt.Errorf("slurm: %w", err)}
	}
	waitLimitArg := ""
	if fl.Changed("wait-limit") {
		waitLimitArg = waitLimit.String()
	}
	if selecting {
		fit := (p.Points + n - 1) / n
		switch {
		case *cpus == 0:
			*cpus = fit
		case *cpus > fit:
			fmt.Fprintf(stderr, "rocesweep: slurm: --cpus-per-task %d lowered to %d: after its first stage a selection runs at most one job per point, %d points over %d tasks = at most %d jobs per task and round; more CPUs would idle in every later round\n",
				*cpus, fit, p.Points, n, fit)
			*cpus = fit
		}
	}
	if err := launch.CheckDir(p, dir, rf.Format()); err != nil {
		return usageError{fmt.Errorf("slurm: %w", err)}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("slurm: cannot find this binary's path for the tasks: %w", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(stderr, "rocesweep: warning: %s is a 'go run' build that is deleted when it exits; the tasks need a lasting binary (go install ./cmd/rocesweep)\n", exe)
	}

	slurmDir := filepath.Join(dir, slurm.Subdir)
	if err := os.MkdirAll(slurmDir, 0o755); err != nil {
		return usagef("slurm: output directory: %v", err)
	}
	script, err := slurm.Write(slurm.Params{
		Name: p.Spec.Base.Name, Jobs: len(p.Jobs), N: n, Exe: exe, Spec: slurm.SpecPath(dir), SpecFrom: p.Spec.File, Dir: dir, Cwd: cwd,
		Partition: *partition, Time: *timeLimit, CPUs: *cpus, Sets: ov.Sets, Grids: ov.Grids, SkipInvalid: *skipInvalid, RunArgs: rf.args(), Select: selecting, NoSelect: noSelect,
		WaitLimit: waitLimitArg,
		Written:   time.Now().UTC(), MemJob: largest.Mem(),
	}, p.Spec.Text)
	if err != nil {
		return fmt.Errorf("slurm: %w", err)
	}

	fmt.Fprintf(stdout, "%s -> %s\n", planHeadline(p), dir)
	fmt.Fprintf(stdout, "wrote %s: a job array of %d tasks, %s jobs each (task K runs shard K/%d with --resume)\n", script, n, slurm.JobsPerTask(len(p.Jobs), n), n)
	if !*submit {
		fmt.Fprintf(stdout, "submit it with:\n  sbatch %s\nthen watch it with:\n  rocesweep status %s\n", script, dir)
		return nil
	}
	id, err := slurm.Submit(ctx, *sbatch, script)
	if err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	fmt.Fprintf(stdout, "submitted job array %s (tasks %s_1 .. %s_%d)\nwatch it with:\n  squeue -j %s\n  rocesweep status %s\n", id, id, id, n, id, dir)
	fmt.Fprintf(stdout, "task logs: %s/%s_K.log; after a cancelled or failed task, run this command again (it resumes)\n", slurmDir, id)
	return nil
}
