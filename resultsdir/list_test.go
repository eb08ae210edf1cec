package resultsdir_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// List over a folder of a finished run, a partial run (its manifest plans more jobs than
// its journal records), a foreign folder, an empty one and a hidden one.
func TestList(t *testing.T) {
	dir := t.TempDir()
	grid := resultstest.Grid([]float64{0.5, 1}, []float64{1e5}, 2, true) // 4 jobs, the last failed
	if err := resultstest.Write(filepath.Join(dir, "done"), grid); err != nil {
		t.Fatal(err)
	}
	partial := filepath.Join(dir, "partial")
	if err := resultstest.Write(partial, grid); err != nil {
		t.Fatal(err)
	}
	m, err := resultsdir.ReadManifest(partial)
	if err != nil {
		t.Fatal(err)
	}
	m.PlanSize, m.ModelVersion, m.SpecFile, m.Start = 10, "m/1", "configs/x.yaml", "2026-01-02T03:04:05Z"
	if err := os.WriteFile(filepath.Join(partial, resultsdir.ManifestFile), m.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "mine"), 0o755)
	os.WriteFile(filepath.Join(dir, "mine", "notes.txt"), []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
	os.MkdirAll(filepath.Join(dir, ".hidden"), 0o755)
	os.WriteFile(filepath.Join(dir, "file.txt"), []byte("x"), 0o644)

	runs, err := resultsdir.List(dir, time.Now(), resultsdir.StatusOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []resultsdir.Run{
		{Name: "done", State: resultsdir.StateComplete, Study: "synthetic", OK: 3, Planned: 4, Started: "2025-01-01T00:00:00Z"},
		{Name: "empty", State: resultsdir.StateEmpty},
		{Name: "mine", State: resultsdir.StateNotResults},
		{Name: "partial", State: resultsdir.StatePartial, Study: "synthetic", Spec: "configs/x.yaml", OK: 3, Planned: 10,
			ModelVersion: "m/1", Started: "2026-01-02T03:04:05Z"},
	}
	if len(runs) != len(want) {
		t.Fatalf("List = %+v, want %d rows", runs, len(want))
	}
	for i, w := range want {
		got := runs[i]
		if got.Dir != filepath.Join(dir, w.Name) {
			t.Errorf("row %d: dir %s, want %s", i, got.Dir, filepath.Join(dir, w.Name))
		}
		if (got.Bytes > 0) != (w.Name != "empty") {
			t.Errorf("%s: %d bytes", w.Name, got.Bytes)
		}
		got.Dir, got.Bytes, got.Note = "", 0, ""
		if got.Objective != nil || got.Select != nil {
			t.Errorf("%s: objective %v, select %v; want none", w.Name, got.Objective, got.Select)
		}
		if got != w {
			t.Errorf("row %d: %+v\nwant   %+v", i, got, w)
		}
	}
	// A results directory itself is listed alone.
	runs, err = resultsdir.List(partial, time.Now(), resultsdir.StatusOptions{})
	if err != nil || len(runs) != 1 || runs[0].Name != "partial" || runs[0].Planned != 10 {
		t.Errorf("List(a results directory) = %+v, %v", runs, err)
	}
	if _, err := resultsdir.List(filepath.Join(dir, "none"), time.Now(), resultsdir.StatusOptions{}); err == nil {
		t.Errorf("List of a missing folder: no error")
	}
}
