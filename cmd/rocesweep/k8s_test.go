package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/sweep/slurm"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// k8sJob is the part of scripts/k8s-indexed-job.yaml that makes it a sweep runner.
type k8sJob struct {
	Kind string `yaml:"kind"`
	Spec struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          int    `yaml:"completions"`
		Parallelism          int    `yaml:"parallelism"`
		BackoffLimitPerIndex int    `yaml:"backoffLimitPerIndex"`
		PodReplacementPolicy string `yaml:"podReplacementPolicy"`
		Template             struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Env []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					Command      []string `yaml:"command"`
					Args         []string `yaml:"args"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// The Kubernetes Indexed Job of the README, short of a cluster: its fields keep one
// writer per shard (Indexed, a retry only once the old pod is gone), SHARDS agrees with
// completions, and its pod command, run as Kubernetes would run it for every completion
// index (sh -c with JOB_COMPLETION_INDEX set; one index retried), writes every job of
// the plan exactly once.
func TestK8sIndexedJobRunsEveryShard(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // waits on child processes
	data, err := os.ReadFile("../../scripts/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	if err := yaml.Unmarshal(data, &job); err != nil {
		t.Fatal(err)
	}
	s := job.Spec
	if job.Kind != "Job" || s.CompletionMode != "Indexed" || s.PodReplacementPolicy != "Failed" ||
		s.BackoffLimitPerIndex < 1 || s.Template.Spec.RestartPolicy != "Never" || len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("not an Indexed Job with per-index retries and one writer per shard: %+v", s)
	}
	c := s.Template.Spec.Containers[0]
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	shards, _ := strconv.Atoi(env["SHARDS"])
	if shards != s.Completions || shards != s.Parallelism {
		t.Fatalf("SHARDS %q, completions %d, parallelism %d: want one value", env["SHARDS"], s.Completions, s.Parallelism)
	}
	if len(c.Command) != 2 || len(c.Args) != 1 || !strings.Contains(c.Args[0], "--resume") {
		t.Fatalf("command %q, args %q: want [sh -c] and one script with --resume", c.Command, c.Args)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	if !strings.Contains(c.Args[0], " "+mounts["spec"]+"/spec.yaml ") || !strings.Contains(c.Args[0], " -o "+mounts["results"]+"/") {
		t.Fatalf("the pod command %q does not read the spec volume (%s) and write the results volume (%s)", c.Args[0], mounts["spec"], mounts["results"])
	}

	// Run it: the mounts become local directories, rocesweep this test binary.
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	results := t.TempDir()
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "rocesweep"), []byte("#!/bin/sh\nexec "+slurm.ShellQuote(os.Args[0])+" \"$@\"\n"), 0o755)
	script := strings.ReplaceAll(c.Args[0], mounts["spec"]+"/spec.yaml", spec)
	script = strings.ReplaceAll(script, mounts["results"], results)
	pod := func(t *testing.T, index int) {
		cmd := exec.Command(c.Command[0], c.Command[1], script)
		cmd.Env = append(os.Environ(), childEnv+"=1", "ROCESWEEP_TEST_WORK=1000", "ROCESWEEP_TEST_INPROCESS=1",
			"PATH="+bin+":"+os.Getenv("PATH"), "JOB_COMPLETION_INDEX="+strconv.Itoa(index), "SHARDS="+env["SHARDS"], "CPUS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pod %d: %v\n%s", index, err, out)
		}
	}
	// Every index at once, as the Job's parallelism starts them, then index 2 again: a
	// retried pod.
	concurrently(t, seq(shards), func(i int) string { return fmt.Sprintf("pod %d", i) }, pod)
	if t.Failed() {
		return
	}
	pod(t, 2)
	dir := filepath.Join(results, "sweep")
	checkExactlyOnce(t, dir, p)
	if st := statusJSON(t, dir); !st.Complete || len(st.Shards) != shards || st.Duplicates != 0 {
		t.Errorf("status: %+v", st)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// podRunner returns a function that runs scripts/k8s-indexed-job.yaml's pod command as
// Kubernetes would for a completion index, with shards SHARDS, the spec volume's
// spec.yaml replaced by spec and the results volume by results; env is added to the
// child's environment. It returns the pod's exit status and output.
func podRunner(t *testing.T, spec, results string, shards int, env ...string) func(index int) (int, string) {
	t.Helper()
	data, err := os.ReadFile("../../scripts/k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var job k8sJob
	if err := yaml.Unmarshal(data, &job); err != nil {
		t.Fatal(err)
	}
	c := job.Spec.Template.Spec.Containers[0]
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "rocesweep"), []byte("#!/bin/sh\nexec "+slurm.ShellQuote(os.Args[0])+" \"$@\"\n"), 0o755)
	script := strings.ReplaceAll(c.Args[0], mounts["spec"]+"/spec.yaml", spec)
	script = strings.ReplaceAll(script, mounts["results"], results)
	return func(index int) (int, string) {
		cmd := exec.Command(c.Command[0], c.Command[1], script)
		cmd.Env = append(append(os.Environ(), childEnv+"=1", "ROCESWEEP_TEST_INPROCESS=1",
			"PATH="+bin+":"+os.Getenv("PATH"), "JOB_COMPLETION_INDEX="+strconv.Itoa(index), "SHARDS="+strconv.Itoa(shards), "CPUS=1"), env...)
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatalf("pod %d: %v", index, err)
		}
		return 0, string(out)
	}
}

// ciSelection is configs/ci.yaml as a small sequential selection: 6 points, a first
// stage of 3 replicates, at most 60 jobs (the real simulation: about 2 s of jobs).
func ciSelection(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../configs/ci.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return writeSpec(t, string(data)+"select: {confidence: 0.95, initial: 3, rare: 30%, max_jobs: 300}\n")
}

// The Kubernetes example runs a selection to its decision: two pods (shards 1/2 and 2/2,
// as two processes running the Job's pod command at once) run the rounds in lock-step
// (--wait) and both exit 0 only once the selection is decided. Before, the pods ran
// --resume without --wait: each exited 0 after its part of the first stage ("jobs of
// other shards are still missing") and Kubernetes would have marked the Job complete
// with nothing decided.
func TestK8sIndexedJobFinishesSelection(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // waits on child processes
	results := t.TempDir()
	pod := podRunner(t, ciSelection(t), results, 2, "ROCESWEEP_TEST_REAL=1")
	concurrently(t, seq(2), func(i int) string { return fmt.Sprintf("pod %d", i) }, func(t *testing.T, i int) {
		if code, out := pod(i); code != 0 {
			t.Errorf("pod %d: exit %d\n%s", i, code, out)
		}
	})
	st := statusJSON(t, filepath.Join(results, "sweep"))
	if st.Selection == nil || st.Selection.State != "decided" || st.Selection.Best == nil || st.Duplicates != 0 {
		t.Fatalf("after both pods exited: selection %+v, duplicates %d; want decided", st.Selection, st.Duplicates)
	}
}

// A lone --select --wait shard, its peer never started, stops at --wait-limit: exit 3
// (ExitUndecided, not 0 nor a failed job's 1), naming the missing shard and its jobs.
// Before, it waited without a limit and without a word; without --wait it exits 3 too,
// once it has run its part of the round.
func TestSelectWaitLimit(t *testing.T) {
	t.Parallel()
	spec := ciSelection(t)
	p := expand(t, spec, func(sp *specfile.Spec) { sp.UseSelection() }) // the first stage: select.initial = 3 replicates of every point
	missing := map[string]bool{}
	for _, j := range p.Jobs { // the first stage of shard 2/2: odd plan indices
		if j.Index%2 == 1 {
			missing[j.ID] = true
		}
	}
	named := regexp.MustCompile(`shard 2of2 \(9 jobs: ([0-9a-f]{16}), ([0-9a-f]{16}), ([0-9a-f]{16}), \.\.\.\)`)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"--wait", []string{"--wait", "--wait-limit", "300ms"}, "shard 1of2 has run its jobs and waited --wait-limit 300ms for 9 jobs of other shards, and none was committed in that time: shard 2of2 (9 jobs: "},
		{"no --wait", nil, "9 jobs of other shards are still missing: shard 2of2 (9 jobs: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Fake jobs: this test is about the waiting.
			args := append([]string{"run", spec, "-o", filepath.Join(t.TempDir(), "r"), "--shard", "1/2", "-j", "1"}, c.args...)
			code, _, stderr, _ := runChild(t, []string{"ROCESWEEP_TEST_WORK=0"}, args...)
			if code != ExitUndecided || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, want %d; stderr lacks %q:\n%s", code, ExitUndecided, c.want, stderr)
			}
			m := named.FindStringSubmatch(stderr)
			if m == nil || !missing[m[1]] || !missing[m[2]] || !missing[m[3]] {
				t.Errorf("the jobs named %q are not shard 2/2's (%v)", m, missing)
			}
		})
	}
}
