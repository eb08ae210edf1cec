package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/slurm"
)

// scripts/ci-track.sh tells its outcomes apart by exit status and last line: a baseline
// of another model version whose answers differ is "the model changed" (exit 4), not a
// failed sweep (2) nor a regression (1); a baseline that cannot be paired is "no
// pairing" (3); a first run without a baseline is 0. Before, compare paired by job_id, found no job in
// common across the model versions and exited 2, which ci-track reported as "the sweep
// itself failed to run".
func TestCITrackModelChange(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the CI sweep through the script")
	}
	t.Parallel() // waits on child processes
	bin := filepath.Join(t.TempDir(), "rocesweep")
	os.WriteFile(bin, []byte("#!/bin/sh\nexec "+slurm.ShellQuote(os.Args[0])+" \"$@\"\n"), 0o755)
	track := func(t *testing.T, out string, args ...string) (int, string) {
		cmd := exec.Command("bash", append([]string{"../../scripts/ci-track.sh", "-o", out, "-j", "1"}, args...)...)
		cmd.Env = append(os.Environ(), childEnv+"=1", "ROCESWEEP_TEST_REAL=1", "ROCESWEEP_TEST_INPROCESS=1", "ROCESWEEP="+bin)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), stderr.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, stderr.String()
	}
	first := filepath.Join(t.TempDir(), "first")
	if code, errs := track(t, first); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, errs)
	}
	// The baseline an older model left: other job ids, another model_version, a moved
	// answer.
	older := filepath.Join(t.TempDir(), "older")
	err := resultstest.Copy(filepath.Join(first, "run"), older, func(tb *resultsdir.Table) {
		if tb.Name != "jobs" {
			return
		}
		ids := tb.Col("job_id").Str
		for i := range ids {
			ids[i] = "old-" + ids[i]
		}
		c := tb.Col("fct_p99_usec_lossless")
		for i := range c.Num {
			c.Num[i] += 5
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	setManifest(t, older, "model_version", "rocesweep-model/0.0.1")
	for _, c := range []struct {
		name     string
		baseline string
		code     int
		last     string
	}{
		{"model changed", older, 4, "ci-track: the model changed (rocesweep-model/0.0.1 -> "},
		{"no pairing", filepath.Join(t.TempDir(), "missing"), 3, "ci-track: no pairing: compare could not pair this run with the baseline"},
	} {
		code, errs := track(t, filepath.Join(t.TempDir(), "out"), "-b", c.baseline)
		lines := strings.Split(strings.TrimSpace(errs), "\n")
		if code != c.code || !strings.HasPrefix(lines[len(lines)-1], c.last) {
			t.Errorf("%s: exit %d, want %d; last line %q, want %q...\n%s", c.name, code, c.code, lines[len(lines)-1], c.last, errs)
		}
	}
}
