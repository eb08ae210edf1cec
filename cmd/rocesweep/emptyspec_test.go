package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A SPEC file that holds no document is refused by every command that reads one, before
// anything is written, instead of running the built-in defaults; sim and explain given no
// SPEC still run the defaults.
func TestEmptySpecRefused(t *testing.T) {
	empty := writeSpec(t, "")
	comments := writeSpec(t, "# to be written\n")
	for _, cmd := range []string{"run", "plan", "validate", "sim", "explain", "slurm"} {
		for _, spec := range []string{os.DevNull, empty, comments} {
			dir := filepath.Join(t.TempDir(), "out")
			args := []string{cmd, spec}
			if cmd == "run" || cmd == "sim" || cmd == "slurm" {
				args = append(args, "-o", dir)
			}
			code, _, stderr, jobs := runMain(t, args...)
			want := "rocesweep: " + spec + ": the spec is empty (no YAML document); write its keys"
			if code != 2 || jobs != 0 || !strings.HasPrefix(stderr, want) {
				t.Errorf("%s %s: exit %d after %d jobs, want 2 and %q:\n%s", cmd, spec, code, jobs, want, stderr)
			}
			if _, err := os.Stat(dir); err == nil {
				t.Errorf("%s %s: %s was created", cmd, spec, dir)
			}
		}
	}
	if code, out, stderr := runCmd(t, "explain"); code != 0 || !strings.Contains(out, "star, 16 hosts") {
		t.Errorf("explain without SPEC: exit %d\n%s%s", code, out, stderr)
	}
	dir := filepath.Join(t.TempDir(), "defaults")
	if code, out, stderr := runCmd(t, "sim", "-o", dir); code != 0 || !strings.Contains(out, "results: "+dir) {
		t.Errorf("sim without SPEC: exit %d\n%s%s", code, out, stderr)
	}
}
