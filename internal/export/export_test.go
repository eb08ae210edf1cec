package export_test

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rocesweep/rocesweep/internal/export"
	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/results/resultstest"
)

// Every table exports to DIR/csv/<table>.csv with the Parquet's columns as header and
// every cell equal to what results.ReadTable reads; nothing else is left in DIR/csv.
func TestCSVMatchesParquet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.25, 1, 4}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"jobs", "nd_stats"} {
		want, err := results.ReadTable(dir, table, nil)
		if err != nil {
			t.Fatal(err)
		}
		path, n, err := export.CSV(dir, table)
		if err != nil {
			t.Fatal(err)
		}
		if path != filepath.Join(dir, "csv", table+".csv") || n != want.Rows {
			t.Fatalf("%s: wrote %s with %d rows, want %d rows", table, path, n, want.Rows)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != want.Rows+1 {
			t.Fatalf("%s: %d CSV records, want header + %d", table, len(recs), want.Rows)
		}
		for j, c := range want.Columns {
			if recs[0][j] != c.Name {
				t.Errorf("%s: header %d is %q, want %q", table, j, recs[0][j], c.Name)
			}
			for i := 0; i < want.Rows; i++ {
				got := recs[i+1][j]
				switch {
				case c.Null[i]:
					if got != "" {
						t.Errorf("%s row %d %s: null written as %q", table, i, c.Name, got)
					}
				case c.IsString():
					if got != c.Str[i] {
						t.Errorf("%s row %d %s: %q, want %q", table, i, c.Name, got, c.Str[i])
					}
				default:
					v, err := strconv.ParseFloat(got, 64)
					if got == "true" || got == "false" {
						v, err = map[string]float64{"true": 1, "false": 0}[got], nil
					}
					if err != nil || v != c.Num[i] {
						t.Errorf("%s row %d %s: %q, want %v", table, i, c.Name, got, c.Num[i])
					}
				}
			}
		}
	}
	// The fixture has a failed job, so status and error strings are among the cells checked.
	jobs, _ := results.ReadTable(dir, "jobs", nil)
	if jobs.Col("status").Str[jobs.Rows-1] != "failed" {
		t.Fatal("fixture: want the last job failed")
	}
	entries, err := os.ReadDir(filepath.Join(dir, "csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Errorf("DIR/csv holds %d entries, want jobs.csv and nd_stats.csv only", len(entries))
	}
}

func TestCSVRefusesAbsentTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{1}, []float64{200e3}, 1, false)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "lb_stats"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := export.CSV(dir, "lb_stats"); !errors.Is(err, export.ErrNoParts) {
		t.Errorf("empty table folder: %v, want ErrNoParts", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "csv", "lb_stats.csv")); !os.IsNotExist(err) {
		t.Errorf("a CSV was written for an empty table: %v", err)
	}
	if _, _, err := export.CSV(dir, "nosuch"); err == nil {
		t.Error("absent table: no error")
	}
}
