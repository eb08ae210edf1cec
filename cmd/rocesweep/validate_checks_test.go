package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Estimate before running, as validate does: run refuses the points estimated above
// --max-mem-per-job before any job starts, naming each with its estimate (exit 2); with
// --skip-invalid it records them as invalid and runs the others.
func TestRunRefusesJobsAboveTheLimit(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, "name: t\nduration: 100us\ntopology: {kind: star, hosts: 8}\nworkload: {kind: incast, senders: 7, message_size: 64KB}\n"+
		"sweep: {grid: {workload.messages: [1, 200000]}}\n")
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr, jobs := runMain(t, "run", spec, "-o", dir, "--isolate=true", "--max-mem-per-job", "200MB")
	if code != 2 || jobs != 0 {
		t.Errorf("exit %d, %d jobs ran; want 2 and none", code, jobs)
	}
	want := "job 1 (workload.messages=200000): estimated at "
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "above the limit per job (--max-mem-per-job) (200 MB)") {
		t.Errorf("stderr lacks %q and the limit:\n%s", want, stderr)
	}
	out, err := child(1000, "run", spec, "-o", dir, "--max-mem-per-job", "200MB", "--skip-invalid").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "2 jobs: 1 ok, 1 invalid") {
		t.Errorf("--skip-invalid: %v; want the one job run and the other recorded invalid\n%s", err, out)
	}
}
