package export_test

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/export"
)

// Every table exports to DIR/csv/<table>.csv with the Parquet's columns as header and
// every cell equal to what resultsdir.ReadTable reads; nothing else is left in DIR/csv.
func TestCSVMatchesParquet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.25, 1, 4}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"jobs", "nd_stats"} {
		want, err := resultsdir.ReadTable(dir, table, nil)
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
	jobs, _ := resultsdir.ReadTable(dir, "jobs", nil)
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

// A stray in a table folder (no commit names it) is not exported.
func TestCSVSkipsStrays(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3}, 2, false)); err != nil {
		t.Fatal(err)
	}
	parts, _ := resultsdir.Parts(dir, "jobs")
	data, _ := os.ReadFile(parts[0])
	os.WriteFile(filepath.Join(dir, "jobs", "extra.parquet"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "jobs", "part-2of2-000001.parquet"), data, 0o644)
	if _, n, err := export.CSV(dir, "jobs"); err != nil || n != 4 {
		t.Errorf("CSV(jobs) = %d rows (%v), want 4", n, err)
	}
}

// export never writes through a link: a csv folder that links elsewhere, or a CSV file
// that is a link, is refused with an error naming it, and the target is left as it was.
func TestCSVRefusesLinks(t *testing.T) {
	for _, link := range []string{"csv", "csv/jobs.csv"} {
		t.Run(link, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "res")
			if err := resultstest.Write(dir, resultstest.Grid([]float64{1}, []float64{200e3}, 1, false)); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(root, "elsewhere")
			os.MkdirAll(target, 0o755)
			if link == "csv/jobs.csv" {
				os.MkdirAll(filepath.Join(dir, "csv"), 0o755)
				target = filepath.Join(root, "victim.txt")
				os.WriteFile(target, []byte("keep\n"), 0o644)
			}
			path := filepath.Join(dir, filepath.FromSlash(link))
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			_, _, err := export.CSV(dir, "jobs")
			var le *dirfs.LinkError
			if !errors.As(err, &le) || le.Path != path {
				t.Errorf("err = %v, want a link error naming %s", err, path)
			}
			if link == "csv" {
				if entries, _ := os.ReadDir(target); len(entries) != 0 {
					t.Errorf("written through the link: %s holds %d entries", target, len(entries))
				}
			} else if data, _ := os.ReadFile(target); string(data) != "keep\n" {
				t.Errorf("the link's target holds %q", data)
			}
			if fi, err := os.Lstat(path); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v", err)
			}
		})
	}
}
