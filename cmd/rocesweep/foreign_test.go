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

// Files in a results directory that are not rocesweep's stay where they are (issue 38:
// --resume deleted a user's jobs/part-00000-my-spark-output.parquet as a leftover): a
// resume leaves them byte for byte, readers skip them, and status --verify names each
// as foreign, a note rather than a problem.
func TestResumeLeavesForeignFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	spec := writeSpec(t, sweeptestGrid)
	dir := filepath.Join(t.TempDir(), "out")
	if out, err := child(1000, "run", spec, "-o", dir, "-j", "2").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	parts, _ := resultsdir.Files(dir, "jobs")
	part, _ := os.ReadFile(parts[0])
	foreign := map[string][]byte{
		"jobs/part-00000-my-spark-output.parquet":    part,
		"jobs/extra.parquet":                         part,
		"jobs/part-2of2-000001.parquet":              part,
		"jobs/part-1of1-9223372036854775806.parquet": part,
		"nd_stats/notes.txt":                         []byte("my notes\n"),
	}
	for name, data := range foreign {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	if out, err := child(1000, "run", spec, "-o", dir, "-j", "2", "--resume").CombinedOutput(); err != nil {
		t.Fatalf("--resume: %v\n%s", err, out)
	}
	for name, data := range foreign {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(b, data) {
			t.Errorf("%s: %v, changed or removed by --resume", name, err)
		}
	}
	var stdout, stderr bytes.Buffer
	mainWithArgs(context.Background(), []string{"status", dir, "--verify"}, &stdout, &stderr)
	out := stdout.String()
	for name := range foreign {
		if !strings.Contains(out, "note: foreign "+name+":") {
			t.Errorf("status --verify does not name %s as foreign:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "complete: all 4 jobs ok") || !strings.Contains(out, "checked: no problem") {
		t.Errorf("status --verify: want complete and no problem:\n%s", out)
	}
	if rows := readRows[jobsRow](t, dir, "jobs"); len(rows) != 4 {
		t.Errorf("%d jobs rows read, want 4: a foreign file was read", len(rows))
	}
}
