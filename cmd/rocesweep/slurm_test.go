package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep/slurm"
)

// fakeSbatch writes an sbatch stand-in that appends its arguments to DIR/sbatch.log and
// prints reply on stdout (or, with fail, reply on stderr and exits 1).
func fakeSbatch(t *testing.T, reply string, fail bool) (path, log string) {
	t.Helper()
	d := t.TempDir()
	path, log = filepath.Join(d, "sbatch"), filepath.Join(d, "sbatch.log")
	out, code := ">&1", 0
	if fail {
		out, code = ">&2", 1
	}
	text := "#!/bin/sh\necho \"$@\" >> " + log + "\necho '" + reply + "' " + out + "\nexit " + strconv.Itoa(code) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path, log
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = mainWithArgs(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// The script holds everything a task needs, with absolute paths; --submit hands it to
// sbatch --parsable and prints the array id and how to watch it.
func TestSlurmWritesScriptAndSubmits(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	sbatch, log := fakeSbatch(t, "4242;cluster", false)
	code, out, stderr := runCmd(t, "slurm", spec, "-o", dir, "--array-size", "3", "--partition", "short", "--time", "1:00:00",
		"--cpus-per-task", "4", "--set", "seed=9", "--set", "workload.message_size=64KB", "--sbatch", sbatch, "--submit",
		"--format", "arrow", "--max-wall-per-job", "90m", "--commit-interval", "30s")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	script := filepath.Join(dir, "slurm", "rocesweep-array.sbatch")
	data, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	exe, _ := os.Executable()
	cwd, _ := os.Getwd()
	for _, want := range []string{
		"#!/bin/bash\n",
		"#SBATCH --array=1-3\n", "#SBATCH --requeue\n", "#SBATCH --dependency=singleton\n",
		"#SBATCH --output=" + dir + "/slurm/%A_%a.log\n", "#SBATCH --chdir=" + cwd + "\n",
		"#SBATCH --partition=short\n", "#SBATCH --time=1:00:00\n", "#SBATCH --cpus-per-task=4\n",
		"#SBATCH --job-name=rocesweep-crash-",
		"exec " + slurm.ShellQuote(exe) + " run " + dir + "/slurm/spec.yaml -o " + dir + ` --shard "$k/3" --resume -j "$jobs" --set seed=9 --set workload.message_size=64KB` +
			" --format arrow --max-wall-per-job 1h30m0s --commit-interval 30s\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("script lacks %q:\n%s", want, text)
		}
	}
	if copied, _ := os.ReadFile(filepath.Join(dir, "slurm", "spec.yaml")); string(copied) != crashSpec {
		t.Errorf("the spec copy differs from the spec:\n%s", copied)
	}
	if st, _ := os.Stat(script); st.Mode().Perm()&0o100 == 0 {
		t.Errorf("script mode %v, want executable", st.Mode())
	}
	if got, _ := os.ReadFile(log); string(got) != "--parsable "+script+"\n" {
		t.Errorf("sbatch called with %q", got)
	}
	for _, want := range []string{"crash: 36 jobs", "3 tasks, 12 jobs each", "submitted job array 4242", "squeue -j 4242", "rocesweep status " + dir} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}

// The generated script, run by hand as Slurm would run each task (bash with
// SLURM_ARRAY_TASK_ID set), writes every job of the plan exactly once; a second
// `rocesweep slurm` into the same directory keeps its shard count and refuses another
// plan or another count.
func TestSlurmScriptRunsEveryShard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	t.Parallel() // waits on child processes
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, out, stderr := runCmd(t, "slurm", spec, "-o", dir, "--array-size", "3"); code != 0 || !strings.Contains(out, "sbatch "+dir) {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	script := filepath.Join(dir, "slurm", "rocesweep-array.sbatch")
	for k := 1; k <= 3; k++ {
		if k == 2 {
			st := statusJSON(t, dir)
			if len(st.Shards) != 3 || st.Total.OK != 12 || st.Total.Missing != 24 || shardOf(t, st, "2/3").Journal != "" {
				t.Errorf("status after task 1: %+v", st)
			}
		}
		cmd := exec.Command("bash", script)
		cmd.Env = append(os.Environ(), childEnv+"=1", "ROCESWEEP_TEST_WORK=1000", "ROCESWEEP_TEST_INPROCESS=1", "SLURM_ARRAY_TASK_ID="+strconv.Itoa(k))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("task %d: %v\n%s", k, err, out)
		}
	}
	checkExactlyOnce(t, dir, p)
	if st := statusJSON(t, dir); !st.Complete || st.Total.OK != 36 {
		t.Errorf("status: %+v", st)
	}

	sbatch, _ := fakeSbatch(t, "77", false)
	code, out, stderr := runCmd(t, "slurm", spec, "-o", dir, "--submit", "--sbatch", sbatch)
	if code != 0 || !strings.Contains(out, "3 tasks") || !strings.Contains(out, "submitted job array 77") {
		t.Errorf("resubmission without --array-size: exit %d, want the 3 shards of the directory\n%s%s", code, out, stderr)
	}
	code, _, stderr = runCmd(t, "slurm", spec, "-o", dir, "--array-size", "4")
	if code != 2 || !strings.Contains(stderr, "resubmit with --array-size 3") {
		t.Errorf("another shard count: exit %d, want 2\n%s", code, stderr)
	}
	code, _, stderr = runCmd(t, "slurm", spec, "-o", dir, "--set", "replicates=1")
	if code != 2 || !strings.Contains(stderr, "differs from this one of 12 jobs") {
		t.Errorf("another plan: exit %d, want 2\n%s", code, stderr)
	}
	code, _, stderr = runCmd(t, "slurm", spec, "-o", dir, "--format", "arrow")
	if code != 2 || !strings.Contains(stderr, "format parquet, not arrow") {
		t.Errorf("another format: exit %d, want 2\n%s", code, stderr)
	}
}

// A selection's array fits its rounds: lossyalpha-xoff over 35 points (a first
// stage of 175 jobs) asked for --cpus-per-task 16 on 16 tasks, 256 CPUs, while every
// round after the first stage runs at most 35 jobs, at most ceil(35/16) = 3 per task:
// the request is lowered to 3, saying why, and unset it is 3. A spec of 6 points gets 6
// tasks of 1 CPU, not 16 tasks of which 10 would idle in every later round. Every task
// runs --select --wait, with --wait-limit when given.
func TestSlurmSelectionFitsRounds(t *testing.T) {
	t.Parallel()
	// The flagship's former grid: 7 alpha x 5 Xoff at one lossy load, 35 points.
	grid35 := []string{"--grid", "switch.LossyAlpha=0.0625,0.125,0.25,0.5,1,2,4", "--grid", "switch.StaticPoolXoffThreshold=75KB,100KB,150KB,200KB,300KB", "--set", "workload.mix.1.load=0.3"}
	for _, c := range []struct {
		name   string
		spec   string
		args   []string
		tasks  string
		cpus   string
		stderr string
		line   string
	}{
		{"lossyalpha-xoff --cpus-per-task 16", "../../configs/lossyalpha-xoff.yaml", append([]string{"--cpus-per-task", "16"}, grid35...), "1-16", "3",
			"--cpus-per-task 16 lowered to 3: after its first stage a selection runs at most one job per point, 35 points over 16 tasks = at most 3 jobs per task and round", " --select --wait\n"},
		{"lossyalpha-xoff unset", "../../configs/lossyalpha-xoff.yaml", append([]string{"--wait-limit", "30m"}, grid35...), "1-16", "3", "", " --select --wait --wait-limit 30m0s\n"},
		{"ci selection", "", nil, "1-6", "1", "", " --select --wait\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := c.spec
			if spec == "" {
				spec = ciSelection(t)
			}
			dir := filepath.Join(t.TempDir(), "out")
			code, out, stderr := runCmd(t, append([]string{"slurm", spec, "-o", dir}, c.args...)...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, stderr)
			}
			data, err := os.ReadFile(filepath.Join(dir, "slurm", "rocesweep-array.sbatch"))
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			for _, want := range []string{"#SBATCH --array=" + c.tasks + "\n", "#SBATCH --cpus-per-task=" + c.cpus + "\n", c.line} {
				if !strings.Contains(text, want) {
					t.Errorf("script lacks %q:\n%s", want, text)
				}
			}
			if !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, stderr)
			}
		})
	}
}
