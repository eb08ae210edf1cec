package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/slurm"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
)

// defaultArraySize caps the tasks of an array when --array-size is not given: enough to
// spread an overnight study over a partition, few enough that each task runs several
// jobs (a task costs a scheduling round and a process start) and squeue stays readable.
const defaultArraySize = 16

// The files `slurm` writes under DIR/slurm/. The spec is copied there so that every task,
// including one requeued hours later, runs the plan that was checked at submission, even
// if the original file has been edited since.
const (
	slurmSubdir     = "slurm"
	slurmScriptName = "rocesweep-array.sbatch"
	slurmSpecName   = "spec.yaml"
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
	size := fl.Int("array-size", 0, fmt.Sprintf("tasks in the array = shards of the plan (default: the shard count already in DIR, else min(jobs, %d))", defaultArraySize))
	partition := fl.String("partition", "", "Slurm partition (default: the cluster's default partition)")
	timeLimit := fl.String("time", "", "time limit per task, in sbatch's format (e.g. 4:00:00 or 1-00:00:00; default: the partition's)")
	cpus := fl.Int("cpus-per-task", 0, "CPUs per task = parallel jobs per task (default: Slurm's, usually 1)")
	submit := fl.Bool("submit", false, "submit the script with sbatch and print the array id")
	sbatch := fl.String("sbatch", "sbatch", "the sbatch command (a path, or a name looked up in PATH)")
	ov := addOverrideFlags(fl, "; passed to every task")
	skipInvalid := fl.Bool("skip-invalid", false, "record invalid grid points as status invalid and run the rest (passed to every task)")
	selectFlag := fl.Bool("select", false, "run a sequential selection (default: true when the spec has a select: block): the tasks run each round's jobs in lock-step, each waiting for the others' jobs before the next round")
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
	for _, f := range []struct{ flag, value string }{{"--partition", *partition}, {"--time", *timeLimit}} {
		if strings.ContainsFunc(f.value, isSpaceOrQuote) {
			return usagef("slurm: %s %q: no spaces or quotes allowed", f.flag, f.value)
		}
	}
	if err := slurm.CheckTime(*timeLimit); *timeLimit != "" && err != nil {
		return usagef("slurm: %v", err)
	}

	// The spec and every job, as `validate` checks them.
	spec, err := loadSpec("slurm", fl.Args(), ov, false)
	if err != nil {
		return err
	}
	selecting := spec.Select != nil
	if fl.Changed("select") {
		selecting = *selectFlag
	}
	noSelect := !selecting && spec.Select != nil
	if selecting {
		if w := spec.UseSelection(); w != "" {
			fmt.Fprintf(stderr, "rocesweep: %s\n", w)
		}
	} else {
		spec.Select = nil
	}
	p, err := expandSpec(spec)
	if err != nil {
		return err
	}
	printWarnings(stderr, p)
	_, largest := planEstimates(p)
	if bad := p.Invalid(); len(bad) > 0 && !*skipInvalid {
		return usageError{sweep.InvalidError(p, bad)}
	}

	dir, err := filepath.Abs(*out)
	if err != nil {
		return usagef("slurm: -o %s: %v", *out, err)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("slurm: the working directory: %w", err)
	}
	for _, path := range []string{dir, cwd} {
		if strings.ContainsFunc(path, isSpaceOrQuote) || strings.Contains(path, "%") {
			return usagef("slurm: %q: the directories in #SBATCH lines may not hold spaces, quotes or %%", path)
		}
	}
	n, err := arraySize(dir, *size, len(p.Jobs))
	if err != nil {
		return usageError{fmt.Errorf("slurm: %w", err)}
	}
	if err := sweep.CheckDir(p, dir, rf.Format()); err != nil {
		return usageError{fmt.Errorf("slurm: %w", err)}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("slurm: cannot find this binary's path for the tasks: %w", err)
	}
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(stderr, "rocesweep: warning: %s is a 'go run' build that is deleted when it exits; the tasks need a lasting binary (go install ./cmd/rocesweep)\n", exe)
	}

	slurmDir := filepath.Join(dir, slurmSubdir)
	if err := os.MkdirAll(slurmDir, 0o755); err != nil {
		return usagef("slurm: output directory: %v", err)
	}
	specCopy := filepath.Join(slurmDir, slurmSpecName)
	if err := sink.WriteFileAtomic(nil, specCopy, "", p.Spec.Text); err != nil {
		return fmt.Errorf("slurm: writing %s: %w", specCopy, err)
	}
	script := filepath.Join(slurmDir, slurmScriptName)
	text := slurmScript(slurmParams{
		Name: p.Spec.Base.Name, Jobs: len(p.Jobs), N: n, Exe: exe, Spec: specCopy, SpecFrom: p.Spec.File, Dir: dir, Cwd: cwd,
		Partition: *partition, Time: *timeLimit, CPUs: *cpus, Sets: ov.Sets, Grids: ov.Grids, SkipInvalid: *skipInvalid, RunArgs: rf.args(), Select: selecting, NoSelect: noSelect,
		Written: time.Now().UTC(), MemJob: largest.mem(),
	})
	if err := sink.WriteFileAtomic(nil, script, "", []byte(text)); err != nil {
		return fmt.Errorf("slurm: writing %s: %w", script, err)
	}
	if err := os.Chmod(script, 0o755); err != nil {
		return fmt.Errorf("slurm: %w", err)
	}

	lo, hi := len(p.Jobs)/n, (len(p.Jobs)+n-1)/n
	per := strconv.Itoa(lo)
	if hi != lo {
		per = fmt.Sprintf("%d-%d", lo, hi)
	}
	fmt.Fprintf(stdout, "%s -> %s\n", planHeadline(p), dir)
	fmt.Fprintf(stdout, "wrote %s: a job array of %d tasks, %s jobs each (task K runs shard K/%d with --resume)\n", script, n, per, n)
	if !*submit {
		fmt.Fprintf(stdout, "submit it with:\n  sbatch %s\nthen watch it with:\n  rocesweep status %s\n", script, dir)
		return nil
	}
	id, err := runSbatch(ctx, *sbatch, script)
	if err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	fmt.Fprintf(stdout, "submitted job array %s (tasks %s_1 .. %s_%d)\nwatch it with:\n  squeue -j %s\n  rocesweep status %s\n", id, id, id, n, id, dir)
	fmt.Fprintf(stdout, "task logs: %s/%s_K.log; after a cancelled or failed task, run this command again (it resumes)\n", slurmDir, id)
	return nil
}

func isSpaceOrQuote(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '"' || r == '\''
}

// arraySize returns the number of tasks: want when given, else the shard count of the
// journals already in dir (so that a resubmission continues the same shards), else
// min(jobs, defaultArraySize). It refuses a count that differs from the shards already
// in dir: shard K/N and K/M select different jobs, and a job would be run twice.
func arraySize(dir string, want, jobs int) (int, error) {
	have, err := journalShardCounts(dir)
	if err != nil {
		return 0, err
	}
	if len(have) > 1 {
		return 0, fmt.Errorf("%s holds journals of %s shard counts; it cannot be continued as one array (use another -o)", dir, joinInts(have, " and "))
	}
	switch {
	case want > 0 && len(have) == 1 && have[0] != want:
		return 0, fmt.Errorf("--array-size %d: %s already holds shards of %d (journal-1of%d.jsonl ...); resubmit with --array-size %d, or use another -o", want, dir, have[0], have[0], have[0])
	case want > 0:
		if want > jobs {
			return 0, fmt.Errorf("--array-size %d: the plan has %d jobs; at most one task per job", want, jobs)
		}
		return want, nil
	case len(have) == 1:
		return have[0], nil
	}
	return min(jobs, defaultArraySize), nil
}

// journalShardCounts lists the distinct N of the journal-KofN.jsonl files in dir, sorted
// (journal.jsonl counts as N = 1). A missing dir has none.
func journalShardCounts(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	seen := map[int]bool{}
	var out []int
	for _, e := range entries {
		if _, n, ok := sink.ParseJournalName(e.Name()); ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

func joinInts(xs []int, sep string) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}

// slurmParams is what the generated script is made of. Paths are absolute.
type slurmParams struct {
	Name        string
	Jobs, N     int
	Exe         string // this binary
	Spec        string // the copy under DIR/slurm/
	SpecFrom    string // the file it was copied from, for the header
	Dir         string
	Cwd         string // --chdir: relative paths in the spec (workload.distribution) resolve here
	Partition   string // "" = not set
	Time        string
	CPUs        int // 0 = not set
	Sets, Grids []string
	SkipInvalid bool
	Select      bool     // a sequential selection: every task runs with --select --wait
	NoSelect    bool     // the spec has a select: block that --select=false turned off
	RunArgs     []string // --format, --max-wall-per-job, --commit-interval as given
	MemJob      int64    // the plan's largest job's estimated memory, for --mem (0: no --mem)
	Written     time.Time
}

// slurmScript renders the job-array script.
func slurmScript(sp slurmParams) string {
	var b bytes.Buffer
	logs := filepath.Join(sp.Dir, slurmSubdir)
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# Written by 'rocesweep slurm' at %s; run that command again rather than editing.\n", sp.Written.Format(time.RFC3339))
	fmt.Fprintf(&b, "# Sweep %s (%d jobs, spec copied from %s) as a job array of %d tasks:\n", slurm.CommentText(sp.Name), sp.Jobs, slurm.CommentText(sp.SpecFrom), sp.N)
	fmt.Fprintf(&b, "# task K runs shard K/%d of the plan (the jobs whose index mod %d = K-1) into\n", sp.N, sp.N)
	fmt.Fprintf(&b, "#   %s\n", sp.Dir)
	fmt.Fprintf(&b, "# with --resume, so a requeued, preempted or resubmitted task runs only the jobs missing\n")
	fmt.Fprintf(&b, "# from its journal (journal-Kof%d.jsonl). Submit again (sbatch this file) after a task was\n", sp.N)
	fmt.Fprintf(&b, "# cancelled or failed; the singleton dependency holds a second array of this directory\n")
	fmt.Fprintf(&b, "# back until the first has ended. Progress: rocesweep status %s\n", sp.Dir)
	if sp.Select {
		fmt.Fprintf(&b, "# A sequential selection: the %d jobs are its first stage. The tasks run each round's jobs\n", sp.Jobs)
		fmt.Fprintf(&b, "# in lock-step (--select --wait): a task that has run its shard of a round waits for the\n")
		fmt.Fprintf(&b, "# others' jobs, then every task computes the same next round from the committed results.\n")
	}
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", slurm.JobName(sp.Name, sp.Dir))
	fmt.Fprintf(&b, "#SBATCH --array=1-%d\n", sp.N)
	fmt.Fprintf(&b, "#SBATCH --dependency=singleton\n")
	fmt.Fprintf(&b, "#SBATCH --requeue\n")
	fmt.Fprintf(&b, "#SBATCH --open-mode=append\n")
	fmt.Fprintf(&b, "#SBATCH --output=%s/%%A_%%a.log\n", logs)
	fmt.Fprintf(&b, "#SBATCH --chdir=%s\n", sp.Cwd)
	if sp.Partition != "" {
		fmt.Fprintf(&b, "#SBATCH --partition=%s\n", sp.Partition)
	}
	if sp.Time != "" {
		fmt.Fprintf(&b, "#SBATCH --time=%s\n", sp.Time)
	}
	if sp.CPUs > 0 {
		fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", sp.CPUs)
	}
	if sp.MemJob > 0 {
		fmt.Fprintf(&b, "# --mem: %d jobs at once (one a CPU) x %s (the largest job's estimate) + %s for the runner\n", max(sp.CPUs, 1), fabric.HumanBytes(sp.MemJob), fabric.HumanBytes(slurm.RunnerMem))
		fmt.Fprintf(&b, "#SBATCH --mem=%dM\n", slurm.Mem(sp.MemJob, sp.CPUs))
	}
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "k=${SLURM_ARRAY_TASK_ID:?this script is a Slurm job array: submit it with sbatch}\n")
	fmt.Fprintf(&b, "# one job per CPU Slurm gave the task\n")
	fmt.Fprintf(&b, "jobs=${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}\n")
	line := []string{"exec", shellQuote(sp.Exe), "run", shellQuote(sp.Spec), "-o", shellQuote(sp.Dir),
		fmt.Sprintf(`--shard "$k/%d"`, sp.N), "--resume", `-j "$jobs"`}
	for _, s := range sp.Sets {
		line = append(line, "--set", shellQuote(s))
	}
	for _, g := range sp.Grids {
		line = append(line, "--grid", shellQuote(g))
	}
	if sp.SkipInvalid {
		line = append(line, "--skip-invalid")
	}
	switch {
	case sp.Select:
		line = append(line, "--select", "--wait")
	case sp.NoSelect:
		line = append(line, "--select=false")
	}
	for _, a := range sp.RunArgs {
		line = append(line, shellQuote(a))
	}
	b.WriteString(strings.Join(line, " ") + "\n")
	return b.String()
}

// shellQuote quotes s for a POSIX shell when it needs it (slurm.ShellQuote).
var shellQuote = slurm.ShellQuote

// runSbatch submits script with `sbatch --parsable` and returns the array's job id.
func runSbatch(ctx context.Context, sbatch, script string) (string, error) {
	path, err := exec.LookPath(sbatch)
	if err != nil {
		return "", fmt.Errorf("%s not found (%v): is this a Slurm login node? The script is written; submit it where sbatch runs: sbatch %s", sbatch, err, script)
	}
	cmd := exec.CommandContext(ctx, path, "--parsable", script)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s --parsable %s: %v: %s", path, script, err, strings.TrimSpace(se.String()))
	}
	// --parsable prints "ID" or "ID;CLUSTER".
	id, _, _ := strings.Cut(strings.TrimSpace(so.String()), ";")
	if _, err := strconv.Atoi(id); err != nil {
		return "", fmt.Errorf("%s --parsable %s printed %q, not a job id", path, script, strings.TrimSpace(so.String()))
	}
	return id, nil
}
