package resultsdir_test

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sink"
)

// A sweep written as Arrow IPC parts reads back as the same tables as the same sweep
// written as Parquet: the same columns with the same type names, every cell (nulls
// included) the same, through ReadTable with and without a keep filter and through a
// PartCache; and a table with no rows is ErrNoParts in both formats.
func TestArrowReadsAsParquet(t *testing.T) {
	s := resultstest.Grid([]float64{0.25, 1, 4}, []float64{200e3, 700e3}, 2, true)
	s.Intervals = 3
	dirs := map[resultsdir.Format]string{}
	for _, f := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		dirs[f] = filepath.Join(t.TempDir(), string(f))
		if err := resultstest.WriteFormat(dirs[f], s, f); err != nil {
			t.Fatal(err)
		}
		parts, err := resultsdir.Parts(dirs[f], "jobs")
		if err != nil || len(parts) == 0 || resultsdir.IsArrow(parts[0]) != (f == resultsdir.Arrow) {
			t.Fatalf("%s: Parts(jobs) = %v, %v", f, parts, err)
		}
	}
	keep := func(id string) bool { return id == "j0003" || id == "j0012" }
	for _, tt := range []struct {
		table string
		keep  func(string) bool
		rows  int
	}{
		{"jobs", nil, 12},
		{"jobs", keep, 2},
		{"nd_stats", nil, 36},
		{"buffer_stats", keep, 12},
		{"ecn_pfc_stats", nil, 36},
	} {
		want, err := resultsdir.ReadTable(dirs[resultsdir.Parquet], tt.table, tt.keep)
		if err != nil {
			t.Fatal(err)
		}
		got, err := resultsdir.ReadTable(dirs[resultsdir.Arrow], tt.table, tt.keep)
		if err != nil {
			t.Fatal(err)
		}
		if want.Rows != tt.rows {
			t.Fatalf("%s: Parquet has %d rows, want %d", tt.table, want.Rows, tt.rows)
		}
		sameTable(t, tt.table, got, want)
	}
	var c resultsdir.PartCache
	for round := 0; round < 2; round++ {
		want, _ := resultsdir.ReadTable(dirs[resultsdir.Parquet], "jobs", nil)
		got, err := c.ReadTable(dirs[resultsdir.Arrow], "jobs")
		if err != nil {
			t.Fatal(err)
		}
		sameTable(t, "jobs through a PartCache", got, want)
	}
	for f, dir := range dirs {
		if _, err := resultsdir.ReadTable(dir, "lb_stats", nil); !errors.Is(err, resultsdir.ErrNoParts) || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: lb_stats: %v, want ErrNoParts and fs.ErrNotExist", f, err)
		}
	}
}

// sameTable fails unless got has want's columns (names, types) and cells.
func sameTable(t *testing.T, what string, got, want *resultsdir.Table) {
	t.Helper()
	if got.Rows != want.Rows || len(got.Columns) != len(want.Columns) {
		t.Fatalf("%s: %d rows x %d columns, want %d x %d", what, got.Rows, len(got.Columns), want.Rows, len(want.Columns))
	}
	for j, w := range want.Columns {
		g := got.Columns[j]
		if g.Name != w.Name || g.Type != w.Type || g.IsString() != w.IsString() {
			t.Errorf("%s: column %d is %s %s, want %s %s", what, j, g.Name, g.Type, w.Name, w.Type)
			continue
		}
		for i := 0; i < want.Rows; i++ {
			if g.Null[i] != w.Null[i] || g.Text(i) != w.Text(i) || (!w.IsString() && !w.Null[i] && g.Num[i] != w.Num[i]) {
				t.Errorf("%s: row %d %s = %s (null %v), want %s (null %v)", what, i, w.Name, g.Text(i), g.Null[i], w.Text(i), w.Null[i])
			}
		}
	}
}

// Every column type the sink writes, nulls included, reads back the same from either
// format: a pointer column's nil and an optional float64's NaN are null cells.
func TestArrowTypesAndNulls(t *testing.T) {
	type row struct {
		JobID string   `parquet:"job_id"`
		On    bool     `parquet:"on"`
		N32   int32    `parquet:"n32"`
		N64   *int64   `parquet:"n64"`
		X     float64  `parquet:"x,optional"`
		Y     *float64 `parquet:"y"`
		S     *string  `parquet:"s"`
	}
	big, y, str := int64(1)<<52+1, -2.5, "lossy"
	rows := []row{
		{JobID: "j0001", On: true, N32: -7, N64: &big, X: 0.1, Y: &y, S: &str},
		{JobID: "j0002", X: math.NaN()},
	}
	tables := map[resultsdir.Format]*resultsdir.Table{}
	for _, f := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		dir := filepath.Join(t.TempDir(), string(f))
		w, err := sink.Open(sink.Options{Dir: dir, Format: f, CommitInterval: -1}, []resultsdir.Schema{resultsdir.SchemaOf[row]("classes")})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write("classes", rows); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.JobDone(journal.JobLine{ID: r.JobID, Status: "ok"}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if tables[f], err = resultsdir.ReadTable(dir, "classes", nil); err != nil {
			t.Fatal(err)
		}
	}
	want := tables[resultsdir.Parquet]
	if c := want.Col("n64"); c.Type != "int64" || c.Num[0] != float64(big) || !c.Null[1] {
		t.Fatalf("Parquet n64 = %+v", c)
	}
	if c := want.Col("x"); c.Type != "double" || !c.Null[1] || c.Null[0] {
		t.Fatalf("Parquet x = %+v", c)
	}
	sameTable(t, "classes", tables[resultsdir.Arrow], want)
}
