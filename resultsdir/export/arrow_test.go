package export_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/export"
)

// A sweep written as Arrow IPC parts exports to the same CSV bytes as the same sweep
// written as Parquet, table by table.
func TestCSVSameFromArrow(t *testing.T) {
	s := resultstest.Grid([]float64{0.25, 1, 4}, []float64{200e3, 700e3}, 2, true)
	s.Intervals = 3
	csvs := map[resultsdir.Format]map[string][]byte{}
	for _, f := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		dir := filepath.Join(t.TempDir(), "res")
		if err := resultstest.WriteFormat(dir, s, f); err != nil {
			t.Fatal(err)
		}
		csvs[f] = map[string][]byte{}
		for _, table := range []string{"jobs", "nd_stats", "buffer_stats", "ecn_pfc_stats"} {
			path, n, err := export.CSV(dir, table)
			if err != nil || n == 0 {
				t.Fatalf("%s: CSV(%s) = %d rows, %v", f, table, n, err)
			}
			if csvs[f][table], err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
	}
	for table, want := range csvs[resultsdir.Parquet] {
		if got := csvs[resultsdir.Arrow][table]; !bytes.Equal(got, want) {
			t.Errorf("%s.csv from Arrow differs from Parquet's:\n%s\nwant\n%s", table, got, want)
		}
	}
}
