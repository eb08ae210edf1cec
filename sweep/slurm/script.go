package slurm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// DefaultArraySize caps the tasks of an array when --array-size is not given: enough to
// spread an overnight study over a partition, few enough that each task runs several
// jobs (a task costs a scheduling round and a process start) and squeue stays readable.
const DefaultArraySize = 16

// The files `rocesweep slurm` writes under DIR/slurm/. The spec is copied there so that
// every task, including one requeued hours later, runs the plan that was checked at
// submission, even if the original file has been edited since.
const (
	Subdir     = "slurm"
	ScriptName = "rocesweep-array.sbatch"
	SpecName   = "spec.yaml"
)

// Params is what the generated script is made of. Paths are absolute.
type Params struct {
	Name        string
	Jobs, N     int
	Exe         string // the rocesweep binary the tasks run
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
	WaitLimit   string   // with Select: run's --wait-limit as given ("": not given, run's default)
	NoSelect    bool     // the spec has a select: block that --select=false turned off
	RunArgs     []string // --format, --max-wall-per-job, --commit-interval as given
	MemJob      int64    // the plan's largest job's estimated memory, for --mem (0: no --mem)
	Written     time.Time
}

// Script renders the job-array script: task K of N runs `rocesweep run SPEC -o DIR
// --shard K/N --resume`, so a requeued, preempted or resubmitted task continues from its
// journal.
func Script(sp Params) string {
	var b bytes.Buffer
	logs := filepath.Join(sp.Dir, Subdir)
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# Written by 'rocesweep slurm' at %s; run that command again rather than editing.\n", sp.Written.Format(time.RFC3339))
	fmt.Fprintf(&b, "# Sweep %s (%d jobs, spec copied from %s) as a job array of %d tasks:\n", CommentText(sp.Name), sp.Jobs, CommentText(sp.SpecFrom), sp.N)
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
		fmt.Fprintf(&b, "# A task that sees none of the jobs it waits for committed within --wait-limit exits 3,\n")
		fmt.Fprintf(&b, "# naming the missing shards (its log says which); submit again to resume.\n")
	}
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", JobName(sp.Name, sp.Dir))
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
		fmt.Fprintf(&b, "# --mem: %d jobs at once (one a CPU) x %s (the largest job's estimate) + %s for the runner\n", max(sp.CPUs, 1), humanBytes(sp.MemJob), humanBytes(RunnerMem))
		fmt.Fprintf(&b, "#SBATCH --mem=%dM\n", Mem(sp.MemJob, sp.CPUs))
	}
	fmt.Fprintf(&b, "set -eu\n")
	fmt.Fprintf(&b, "k=${SLURM_ARRAY_TASK_ID:?this script is a Slurm job array: submit it with sbatch}\n")
	fmt.Fprintf(&b, "# one job per CPU Slurm gave the task\n")
	fmt.Fprintf(&b, "jobs=${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}\n")
	line := []string{"exec", ShellQuote(sp.Exe), "run", ShellQuote(sp.Spec), "-o", ShellQuote(sp.Dir),
		fmt.Sprintf(`--shard "$k/%d"`, sp.N), "--resume", `-j "$jobs"`}
	for _, s := range sp.Sets {
		line = append(line, "--set", ShellQuote(s))
	}
	for _, g := range sp.Grids {
		line = append(line, "--grid", ShellQuote(g))
	}
	if sp.SkipInvalid {
		line = append(line, "--skip-invalid")
	}
	switch {
	case sp.Select:
		line = append(line, "--select", "--wait")
		if sp.WaitLimit != "" {
			line = append(line, "--wait-limit", ShellQuote(sp.WaitLimit))
		}
	case sp.NoSelect:
		line = append(line, "--select=false")
	}
	for _, a := range sp.RunArgs {
		line = append(line, ShellQuote(a))
	}
	b.WriteString(strings.Join(line, " ") + "\n")
	return b.String()
}

// Write writes the spec copy (to sp.Spec, SpecPath) and the executable script of sp into
// DIR/slurm/, which must exist, and returns the script's path.
func Write(sp Params, specText []byte) (string, error) {
	if err := dirfs.WriteFileAtomic(nil, sp.Spec, "", specText); err != nil {
		return "", fmt.Errorf("writing %s: %w", sp.Spec, err)
	}
	script := filepath.Join(sp.Dir, Subdir, ScriptName)
	if err := dirfs.WriteFileAtomic(nil, script, "", []byte(Script(sp))); err != nil {
		return "", fmt.Errorf("writing %s: %w", script, err)
	}
	if err := os.Chmod(script, 0o755); err != nil {
		return "", err
	}
	return script, nil
}

// SpecPath is where the spec copy of an array writing into dir lives.
func SpecPath(dir string) string { return filepath.Join(dir, Subdir, SpecName) }

// CheckPaths refuses a path that cannot stand in an #SBATCH line: one holding a space,
// a quote or % (sbatch's filename pattern character).
func CheckPaths(paths ...string) error {
	for _, path := range paths {
		if strings.ContainsFunc(path, IsSpaceOrQuote) || strings.Contains(path, "%") {
			return fmt.Errorf("%q: the directories in #SBATCH lines may not hold spaces, quotes or %%", path)
		}
	}
	return nil
}

// IsSpaceOrQuote reports whether r would split or quote an #SBATCH value.
func IsSpaceOrQuote(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '"' || r == '\''
}

// JobsPerTask is how many of jobs each of n tasks runs: "12", or "12-13" when they differ.
func JobsPerTask(jobs, n int) string {
	lo, hi := jobs/n, (jobs+n-1)/n
	if hi != lo {
		return fmt.Sprintf("%d-%d", lo, hi)
	}
	return strconv.Itoa(lo)
}

// ArraySize returns the number of tasks: want when given, else the shard count of the
// journals already in dir (so that a resubmission continues the same shards), else
// min(jobs, DefaultArraySize). It refuses a count that differs from the shards already
// in dir: shard K/N and K/M select different jobs, and a job would be run twice.
func ArraySize(dir string, want, jobs int) (int, error) {
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
	return min(jobs, DefaultArraySize), nil
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
		if _, n, ok := dirfs.ParseJournalName(e.Name()); ok && !seen[n] {
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

// Submit submits script with `sbatch --parsable` and returns the array's job id.
func Submit(ctx context.Context, sbatch, script string) (string, error) {
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

// humanBytes formats a memory size for people: "97.1 MB", "2.4 GB" (decimal units).
//
// It is a copy of model/fabric.HumanBytes, which owns the format (sweep's estimates print
// with it): this package launches jobs and must not link the model, so it may not import
// fabric for one formatter. TestHumanBytesMatchesFabric keeps the two identical.
func humanBytes(b int64) string {
	x := float64(b)
	for _, u := range []string{"B", "KB", "MB", "GB", "TB", "PB"} {
		if x < 1000 || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%.0f B", x)
			}
			return fmt.Sprintf("%.3g %s", x, u)
		}
		x /= 1000
	}
	return ""
}
