package resultsdir_test

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// A table read through a PartCache equals the table read directly, the first time and
// when every part comes from the cache.
func TestPartCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	want, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	var c resultsdir.PartCache
	for i := 0; i < 2; i++ {
		got, err := c.ReadTable(dir, "jobs")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("read %d through the cache: %d rows, want %d (columns differ: %v)", i, got.Rows, want.Rows, !reflect.DeepEqual(got.Columns, want.Columns))
		}
	}
}
