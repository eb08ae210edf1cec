package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// A sim re-run deleted files it had not written, a sim killed with
// SIGKILL left its hidden .NAME.sim-PID/ behind for good, and Ctrl-C suggested --resume,
// which sim does not have.
func TestSimDirectoryHonesty(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	spec := "../../configs/bench/incast-8to1-1MiB.yaml"
	sim := func(ctx context.Context) (int, string) {
		var out, errb bytes.Buffer
		code := mainWithArgs(ctx, []string{"sim", spec, "-o", dir}, &out, &errb)
		return code, errb.String()
	}
	// Debris of a killed sim (a process that is gone) and of a running one (alive).
	dead := resultsdir.SimTemp(dir, 1<<30)
	alive := resultsdir.SimTemp(dir, os.Getppid())
	for _, d := range []string{dead, dead + ".old", alive} {
		os.MkdirAll(filepath.Join(d, "jobs"), 0o755)
	}
	if code, stderr := sim(context.Background()); code != 0 {
		t.Fatalf("first sim: exit %d\n%s", code, stderr)
	}
	for _, d := range []string{dead, dead + ".old"} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s (its process is gone) left in place", filepath.Base(d))
		}
	}
	if _, err := os.Stat(alive); err != nil {
		t.Errorf("%s (its process runs) removed", filepath.Base(alive))
	}
	os.RemoveAll(alive)

	// A file the user put there: the re-run refuses rather than delete it.
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	code, stderr := sim(context.Background())
	if code != 2 || !strings.Contains(stderr, "holds files sim did not write (notes.txt)") {
		t.Errorf("re-run beside notes.txt: exit %d\n%s", code, stderr)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("notes.txt: %q %v", b, err)
	}
	os.Remove(notes)
	// What report and export derive from the results goes with them.
	os.WriteFile(filepath.Join(dir, "report.html"), []byte("old"), 0o644)
	os.MkdirAll(filepath.Join(dir, "csv"), 0o755)
	os.WriteFile(filepath.Join(dir, "csv", "jobs.csv"), []byte("old"), 0o644)
	if code, stderr := sim(context.Background()); code != 0 {
		t.Errorf("re-run beside report.html and csv/: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("the old report.html survived the re-run")
	}

	// Interrupted: no --resume advice, the earlier results unchanged, nothing hidden left.
	before, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, stderr = sim(ctx)
	if code != 130 || strings.Contains(stderr, "--resume") || !strings.Contains(stderr, "sim: interrupted; nothing was written to "+dir) {
		t.Errorf("interrupted sim: exit %d\n%s", code, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "manifest.json")); !bytes.Equal(before, after) {
		t.Error("an interrupted sim changed the earlier results")
	}
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if e.Name() != "out" {
			t.Errorf("%s left beside the results", e.Name())
		}
	}
}
