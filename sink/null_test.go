package sink

import (
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/parquet-go/parquet-go"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// statRow is shaped like a classes row: percentiles that have no value without samples.
type statRow struct {
	JobID string  `parquet:"job_id"`
	N     int64   `parquet:"n"`
	P99   float64 `parquet:"p99,optional"`
	Max   float64 `parquet:"max,optional"`
	Rate  float64 `parquet:"rate"`
}

// statRows: a NaN in a NaN-null column is a null; 0 there stays 0; a NaN in a plain
// float64 column stays NaN.
var nan = math.NaN()

var statRows = []statRow{
	{"a", 1, 2.5, nan, nan},
	{"b", 2, nan, 0, 0},
	{"c", 3, 0, -1.5, 1},
}

// The same row type made at run time (a DynamicTable, as the jobs table is).
var statType = reflect.StructOf([]reflect.StructField{
	{Name: "JobID", Type: reflect.TypeFor[string](), Tag: `parquet:"job_id"`},
	{Name: "N", Type: reflect.TypeFor[int64](), Tag: `parquet:"n"`},
	{Name: "P99", Type: reflect.TypeFor[float64](), Tag: `parquet:"p99,optional"`},
	{Name: "Max", Type: reflect.TypeFor[float64](), Tag: `parquet:"max,optional"`},
	{Name: "Rate", Type: reflect.TypeFor[float64](), Tag: `parquet:"rate"`},
})

func dynamicStatRows() any {
	s := reflect.MakeSlice(reflect.SliceOf(statType), len(statRows), len(statRows))
	for i, r := range statRows {
		s.Index(i).Set(reflect.ValueOf(r).Convert(statType))
	}
	return s.Interface()
}

// writeStats writes statRows as table "stats" in format and returns the results
// directory.
func writeStats(t *testing.T, format resultsdir.Format, dynamic bool) string {
	t.Helper()
	dir := t.TempDir()
	tb, rows := resultsdir.SchemaOf[statRow]("stats"), any(statRows)
	if dynamic {
		tb, rows = resultsdir.DynamicSchema("stats", statType), dynamicStatRows()
	}
	w, err := Open(Options{Dir: dir, Format: format}, []resultsdir.Schema{tb})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write("stats", rows); err != nil {
		t.Fatal(err)
	}
	if err := w.JobDone(journal.JobLine{ID: "a", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func fptr(x float64) *float64 { return &x }

func cell(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// TestNaNNullParquet reads the file back two ways: into *float64 fields (nil = null),
// and cell by cell from the file's rows; and checks the schema: the `optional` columns
// are OPTIONAL, the others REQUIRED.
func TestNaNNullParquet(t *testing.T) {
	type readRow struct {
		JobID string   `parquet:"job_id"`
		N     int64    `parquet:"n"`
		P99   *float64 `parquet:"p99,optional"`
		Max   *float64 `parquet:"max,optional"`
		Rate  float64  `parquet:"rate"`
	}
	want := []readRow{
		{"a", 1, fptr(2.5), nil, nan},
		{"b", 2, nil, fptr(0), 0},
		{"c", 3, fptr(0), fptr(-1.5), 1},
	}
	same := func(a, b *float64) bool {
		return a == nil && b == nil || a != nil && b != nil && (*a == *b || math.IsNaN(*a) && math.IsNaN(*b))
	}
	for _, dynamic := range []bool{false, true} {
		dir := writeStats(t, resultsdir.Parquet, dynamic)
		got, err := resultsdir.ReadRows[readRow](dir, "stats")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("dynamic %v: %d rows, want %d", dynamic, len(got), len(want))
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.JobID != w.JobID || g.N != w.N || !same(g.P99, w.P99) || !same(g.Max, w.Max) || !same(&g.Rate, &w.Rate) {
				t.Errorf("dynamic %v: row %d = %s %d %s %s %v, want %s %d %s %s %v", dynamic, i, g.JobID, g.N, cell(g.P99), cell(g.Max), g.Rate,
					w.JobID, w.N, cell(w.P99), cell(w.Max), w.Rate)
			}
		}

		files, _ := resultsdir.Files(dir, "stats")
		f, err := os.Open(files[0])
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range pf.Schema().Fields() {
			if opt := n.Name() == "p99" || n.Name() == "max"; n.Optional() != opt || n.Required() == opt {
				t.Errorf("dynamic %v: column %s optional %v, want %v", dynamic, n.Name(), n.Optional(), opt)
			}
		}
		// Cells: column 2 (p99) is null in row b only, column 3 (max) in row a only.
		rows := make([]parquet.Row, 8)
		n, _ := pf.RowGroups()[0].Rows().ReadRows(rows)
		if n != 3 {
			t.Fatalf("dynamic %v: read %d rows", dynamic, n)
		}
		var nulls []string
		for i, row := range rows[:n] {
			for _, v := range row {
				if v.IsNull() {
					nulls = append(nulls, statRows[i].JobID+"."+pf.Schema().Fields()[v.Column()].Name())
				}
			}
		}
		if strings.Join(nulls, " ") != "a.max b.p99" {
			t.Errorf("dynamic %v: null cells %v, want [a.max b.p99]", dynamic, nulls)
		}
		f.Close()
	}
}

// TestNaNNullArrow: the same columns are nullable in the Arrow schema, and the NaN cells
// are nulls; 0 is a value, and a NaN in a plain column stays a NaN.
func TestNaNNullArrow(t *testing.T) {
	for _, dynamic := range []bool{false, true} {
		dir := writeStats(t, resultsdir.Arrow, dynamic)
		files, _ := resultsdir.Files(dir, "stats")
		f, err := os.Open(files[0])
		if err != nil {
			t.Fatal(err)
		}
		r, err := ipc.NewFileReader(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, fl := range r.Schema().Fields() {
			if want := i == 2 || i == 3; fl.Nullable != want {
				t.Errorf("dynamic %v: field %s nullable %v, want %v", dynamic, fl.Name, fl.Nullable, want)
			}
		}
		rec, err := r.Record(0)
		if err != nil {
			t.Fatal(err)
		}
		p99, max, rate := rec.Column(2).(*array.Float64), rec.Column(3).(*array.Float64), rec.Column(4).(*array.Float64)
		if !p99.IsValid(0) || p99.Value(0) != 2.5 || !p99.IsNull(1) || !p99.IsValid(2) || p99.Value(2) != 0 {
			t.Errorf("dynamic %v: p99 = %v, want [2.5 (null) 0]", dynamic, p99)
		}
		if !max.IsNull(0) || !max.IsValid(1) || max.Value(1) != 0 || max.Value(2) != -1.5 {
			t.Errorf("dynamic %v: max = %v, want [(null) 0 -1.5]", dynamic, max)
		}
		if rate.NullN() != 0 || !math.IsNaN(rate.Value(0)) {
			t.Errorf("dynamic %v: rate = %v, want [NaN 0 1] without nulls", dynamic, rate)
		}
		r.Close()
		f.Close()
	}
}

// The option is for float64 fields only; anything else is a programming error, refused at
// the table's first use.
func TestNaNNullRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    reflect.Type
	}{
		{"int64", reflect.StructOf([]reflect.StructField{{Name: "N", Type: reflect.TypeFor[int64](), Tag: `parquet:"n,optional"`}})},
		{"pointer", reflect.StructOf([]reflect.StructField{{Name: "X", Type: reflect.TypeFor[*float64](), Tag: `parquet:"x,optional"`}})},
		{"other option", reflect.StructOf([]reflect.StructField{{Name: "X", Type: reflect.TypeFor[float64](), Tag: `parquet:"x,dict"`}})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "the only option is optional, on a float64 field") {
					t.Errorf("recovered %v, want the option refused", r)
				}
			}()
			resultsdir.DynamicSchema("bad", tc.t).Columns()
		})
	}
	tb := resultsdir.SchemaOf[statRow]("stats")
	var got []bool
	for i := range tb.Type.NumField() {
		got = append(got, tb.Nullable(i))
	}
	if want := []bool{false, false, true, true, false}; !reflect.DeepEqual(got, want) {
		t.Errorf("Nullable = %v, want %v", got, want)
	}
}
