package resultsdir_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// CountRows gives each table's rows in its committed files, in either format: what
// ReadTable reads, jobs first; a file no commit names (a copied part) is not counted.
func TestCountRows(t *testing.T) {
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		dir := filepath.Join(t.TempDir(), "res")
		if err := resultstest.WriteFormat(dir, resultstest.Grid([]float64{0.25, 1}, []float64{200e3}, 2, true), format); err != nil {
			t.Fatal(err)
		}
		parts, err := resultsdir.Parts(dir, "jobs")
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "jobs", "extra."+string(format)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := resultsdir.CountRows(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Table != "jobs" {
			t.Fatalf("%s: %+v, want jobs first", format, got)
		}
		for _, tr := range got {
			tb, err := resultsdir.ReadTable(dir, tr.Table, nil)
			if err != nil {
				t.Fatal(err)
			}
			ps, _ := resultsdir.Parts(dir, tr.Table)
			if tr.Rows != int64(tb.Rows) || tr.Files != len(ps) {
				t.Errorf("%s %s: %d rows in %d files, ReadTable reads %d rows of %d files", format, tr.Table, tr.Rows, tr.Files, tb.Rows, len(ps))
			}
		}
	}
}
