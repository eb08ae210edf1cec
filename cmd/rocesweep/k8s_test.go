package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/internal/slurm"
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
