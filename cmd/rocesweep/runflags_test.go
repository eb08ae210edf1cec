package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Flags whose values every job or task would trip over are refused at once, naming the
// flag and what it takes: slurm parses --max-mem-per-job as each task's run does (a
// script holding "banana" made every task exit 2), and run refuses a --progress-every
// of 0 or less (taken for the 5 s default without a word).
func TestRunFlagValuesRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"slurm", "--max-mem-per-job", "banana"}, `rocesweep: slurm: --max-mem-per-job "banana": a size needs a number and a unit`},
		{[]string{"slurm", "--max-mem-per-job", "1MB"}, "rocesweep: slurm: --max-mem-per-job 1MB: want 0 (no limit) or at least 16 MiB"},
		{[]string{"run", "--max-mem-per-job", "banana"}, `rocesweep: run: --max-mem-per-job "banana": a size needs a number and a unit`},
		{[]string{"run", "--progress-every", "0"}, "rocesweep: run: --progress-every 0s: want a period above 0 (e.g. 30s)"},
		{[]string{"run", "--progress-every", "-5s"}, "rocesweep: run: --progress-every -5s: want a period above 0"},
	} {
		spec := writeSpec(t, crashSpec)
		dir := filepath.Join(t.TempDir(), "out")
		args := append([]string{tc.args[0], spec, "-o", dir}, tc.args[1:]...)
		code, _, stderr, jobs := runMain(t, args...)
		if code != 2 || jobs != 0 || !strings.HasPrefix(stderr, tc.want) {
			t.Errorf("%v: exit %d after %d jobs, want 2 and %q:\n%s", tc.args, code, jobs, tc.want, stderr)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%v: %s was created", tc.args, dir)
		}
	}
	// In range, both are taken.
	spec := writeSpec(t, crashSpec)
	if code, _, stderr, _ := runMain(t, "slurm", spec, "-o", filepath.Join(t.TempDir(), "out"), "--max-mem-per-job", "4GB"); code != 0 {
		t.Errorf("slurm --max-mem-per-job 4GB: exit %d\n%s", code, stderr)
	}
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", filepath.Join(t.TempDir(), "out"), "--isolate=false", "--progress-every", "1s"); code != 0 {
		t.Errorf("run --progress-every 1s: exit %d\n%s", code, stderr)
	}
}
