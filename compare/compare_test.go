package compare_test

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

func writeGrid(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "base")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCompareWithItself(t *testing.T) {
	dir := writeGrid(t)
	r, err := compare.Dirs(dir, dir, compare.Options{RTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() {
		t.Fatalf("dir vs itself failed: %+v", r.Metrics)
	}
	if r.Common != 8 || len(r.Deltas) != 7*len(compare.DefaultMetrics()) {
		t.Fatalf("common %d, deltas %d", r.Common, len(r.Deltas))
	}
	for _, d := range r.Deltas {
		if d.Diff != 0 {
			t.Fatalf("delta %+v, want 0", d)
		}
	}
}

func TestComparePerturbed(t *testing.T) {
	dir := writeGrid(t)
	cp := filepath.Join(t.TempDir(), "new")
	// Through the real writer: read, edit job j0003's fct_p99_usec by 1e-6 relative and
	// its drops_total by +1, write.
	err := resultstest.Copy(dir, cp, func(tb *resultsdir.Table) {
		if tb.Name != "jobs" {
			return
		}
		ids := tb.Col("job_id").Str
		for i, id := range ids {
			if id == "j0003" {
				tb.Col("fct_p99_usec").Num[i] *= 1 + 1e-6
				tb.Col("drops_total").Num[i]++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		opts       compare.Options
		wantFailed bool
		wantBeyond []string // job/metric
	}{
		{"default rtol", compare.Options{RTol: 1e-9}, true, []string{"j0003/fct_p99_usec", "j0003/drops_total"}},
		{"rtol covers fct, not drops", compare.Options{RTol: 1e-5}, true, []string{"j0003/drops_total"}},
		{"atol covers both", compare.Options{RTol: 1e-5, ATol: 1}, false, nil},
		{"only p50 chosen", compare.Options{Metrics: []string{"fct_p50_usec"}}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := compare.Dirs(dir, cp, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed() != tt.wantFailed {
				t.Fatalf("failed = %v, want %v", r.Failed(), tt.wantFailed)
			}
			var got []string
			for _, d := range r.Beyond() {
				got = append(got, d.JobID+"/"+d.Metric)
			}
			if strings.Join(got, ",") != strings.Join(tt.wantBeyond, ",") {
				t.Fatalf("beyond = %v, want %v", got, tt.wantBeyond)
			}
			var buf bytes.Buffer
			if err := r.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			for _, jm := range tt.wantBeyond {
				job, metric, _ := strings.Cut(jm, "/")
				if !strings.Contains(buf.String(), job) || !strings.Contains(buf.String(), metric) {
					t.Fatalf("text does not name %s %s:\n%s", job, metric, buf.String())
				}
			}
		})
	}
}

func TestCompareOneSidedAndStatus(t *testing.T) {
	dir := writeGrid(t)
	cp := filepath.Join(t.TempDir(), "new")
	err := resultstest.Copy(dir, cp, func(tb *resultsdir.Table) {
		if tb.Name != "jobs" {
			return
		}
		tb.Col("job_id").Str[0] = "zz-new"
		tb.Col("status").Str[1] = "timeout"
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := compare.Dirs(dir, cp, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Failed() || len(r.OnlyBase) != 1 || r.OnlyBase[0] != "j0001" || len(r.OnlyNew) != 1 || r.OnlyNew[0] != "zz-new" {
		t.Fatalf("one-sided: base %v new %v", r.OnlyBase, r.OnlyNew)
	}
	if len(r.Status) != 1 || r.Status[0] != (compare.StatusChange{JobID: "j0002", Base: "ok", New: "timeout"}) {
		t.Fatalf("status changes %+v", r.Status)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("json: %v\n%s", err, buf.String())
	}
	if back["failed"] != true || back["common_jobs"].(float64) != 7 {
		t.Fatalf("json = %v", back)
	}
}

func TestUnknownMetric(t *testing.T) {
	dir := writeGrid(t)
	_, err := compare.Dirs(dir, dir, compare.Options{Metrics: []string{"fct_p999_usec"}})
	if err == nil || !strings.Contains(err.Error(), "fct_p999_usec") {
		t.Fatalf("err = %v", err)
	}
}

func TestBenchLines(t *testing.T) {
	dir := writeGrid(t)
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	axes := []string{"switch_LossyAlpha", "switch_StaticPoolXoffThreshold"}
	if err := compare.WriteBench(&buf, jobs, axes, []string{"fct_p99_usec", "drops_total"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 14 { // 7 ok jobs x 2 metrics; the failed job is left out
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	// Alpha 0.5, Xoff 200KB: replicate 0, then replicate 1 (+0.01) under the same name,
	// so benchstat sees two runs of one benchmark.
	want := []string{"BenchmarkSweep/LossyAlpha=0.5/StaticPoolXoffThreshold=200KB/fct_p99_usec 1 460 usec",
		"BenchmarkSweep/LossyAlpha=0.5/StaticPoolXoffThreshold=200KB/drops_total 1 50 drops_total",
		"BenchmarkSweep/LossyAlpha=0.5/StaticPoolXoffThreshold=200KB/fct_p99_usec 1 460.01 usec"}
	for i, w := range want {
		if lines[i] != w {
			t.Fatalf("line %d = %q, want %q", i, lines[i], w)
		}
	}
	buf.Reset()
	if err := compare.WriteBench(&buf, jobs, nil, []string{"drops_total"}); err != nil {
		t.Fatal(err)
	}
	if l := strings.SplitN(buf.String(), "\n", 2)[0]; l != "BenchmarkSweep/drops_total 1 50 drops_total" {
		t.Errorf("no axes: first line %q", l)
	}
}

// jobsTable builds a jobs table of one axis (switch_LossyAlpha) from rows of
// (alpha, replicate, metric value); ids are unique per side.
func jobsTable(side string, rows [][3]float64) *resultsdir.Table {
	t := &resultsdir.Table{Name: "jobs", Rows: len(rows)}
	id := &resultsdir.Column{Name: "job_id", Type: "string"}
	st := &resultsdir.Column{Name: "status", Type: "string"}
	a := &resultsdir.Column{Name: "switch_LossyAlpha", Type: "double"}
	rep := &resultsdir.Column{Name: "replicate", Type: "int64"}
	m := &resultsdir.Column{Name: "fct_p99_usec", Type: "double"}
	for i, r := range rows {
		id.Str, id.Null = append(id.Str, side+string(rune('a'+i))), append(id.Null, false)
		st.Str, st.Null = append(st.Str, "ok"), append(st.Null, false)
		a.Num, a.Null = append(a.Num, r[0]), append(a.Null, false)
		rep.Num, rep.Null = append(rep.Num, r[1]), append(rep.Null, false)
		m.Num, m.Null = append(m.Num, r[2]), append(m.Null, math.IsNaN(r[2]))
	}
	t.Columns = []*resultsdir.Column{id, st, a, rep, m}
	return t
}

// --by params pairs replicate r of a point with replicate r of the same point, and fails
// only when the move is beyond tolerance and its paired interval excludes zero.
func TestByParams(t *testing.T) {
	base := jobsTable("b", [][3]float64{{0.5, 0, 100}, {0.5, 1, 200}, {0.5, 2, 150}, {1, 0, 10}, {1, 1, 20}, {1, 2, 30}})
	axes := []string{"switch_LossyAlpha"}
	opts := compare.Options{Metrics: []string{"fct_p99_usec"}, RTol: 0.01}
	tests := []struct {
		name      string
		nw        [][3]float64
		failed    bool
		delta     float64 // of alpha 0.5
		excludes0 bool
		moved     bool
	}{
		// Every replicate +3: delta 3 ± 0, beyond 1% of 150, interval excludes 0.
		{"shift", [][3]float64{{0.5, 0, 103}, {0.5, 1, 203}, {0.5, 2, 153}, {1, 0, 10}, {1, 1, 20}, {1, 2, 30}}, true, 3, true, true},
		// +10, -10, +3: mean 1 beyond 1.5? no: within tolerance (1 <= 1.5).
		{"noise within tolerance", [][3]float64{{0.5, 0, 110}, {0.5, 1, 190}, {0.5, 2, 153}, {1, 0, 10}, {1, 1, 20}, {1, 2, 30}}, false, 1, false, false},
		// +30, -20, +5: mean 5 beyond tolerance, but the interval (t=4.30, s=25) includes 0.
		{"beyond tolerance within noise", [][3]float64{{0.5, 0, 130}, {0.5, 1, 180}, {0.5, 2, 155}, {1, 0, 10}, {1, 1, 20}, {1, 2, 30}}, false, 5, false, false},
		// Rows in another order and other ids: still paired by point and replicate.
		{"same, shuffled", [][3]float64{{1, 2, 30}, {0.5, 2, 150}, {1, 0, 10}, {0.5, 0, 100}, {1, 1, 20}, {0.5, 1, 200}}, false, 0, false, false},
	}
	for _, tt := range tests {
		r, err := compare.ByParams(base, jobsTable("n", tt.nw), axes, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.Common != 2 || r.Pairs != 6 || r.Failed() != tt.failed {
			t.Errorf("%s: common %d pairs %d failed %v, want 2, 6, %v", tt.name, r.Common, r.Pairs, r.Failed(), tt.failed)
		}
		d := r.Deltas[0]
		if d.Point != "switch.LossyAlpha=0.5" || math.Abs(d.Delta-tt.delta) > 1e-12 || d.Excludes0 != tt.excludes0 || d.Moved() != tt.moved {
			t.Errorf("%s: delta %+v, want %g excludes0 %v", tt.name, d, tt.delta, tt.excludes0)
		}
	}
	// A replicate on one side only fails the comparison and is named.
	r, err := compare.ByParams(base, jobsTable("n", [][3]float64{{0.5, 0, 100}, {0.5, 1, 200}, {0.5, 2, 150}, {1, 0, 10}, {1, 1, 20}}), axes, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Failed() || len(r.OnlyBase) != 1 || r.OnlyBase[0] != "switch.LossyAlpha=1 replicate=2" {
		t.Errorf("missing replicate: failed %v, only base %v", r.Failed(), r.OnlyBase)
	}
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil || !json.Valid(buf.Bytes()) {
		t.Errorf("JSON: %v\n%s", err, buf.String())
	}
}

func TestDeltaTolerance(t *testing.T) {
	// |new-base| > atol + rtol*|base| is beyond; equality is within.
	tests := []struct {
		base, new, rtol, atol float64
		beyond                bool
	}{
		{100, 100, 0, 0, false},
		{100, 101, 0.01, 0, false},
		{100, 101.5, 0.01, 0, true},
		{0, 1, 1, 0, true},
		{0, 1, 0, 1, false},
		{math.NaN(), math.NaN(), 0, 0, false},
		{math.NaN(), 1, 1, 1, true},
	}
	for _, tt := range tests {
		b := &resultsdir.Table{Name: "jobs", Rows: 1, Columns: []*resultsdir.Column{
			{Name: "job_id", Type: "string", Str: []string{"a"}, Null: []bool{false}},
			{Name: "fct_p99_usec", Type: "double", Num: []float64{tt.base}, Null: []bool{math.IsNaN(tt.base)}}}}
		n := &resultsdir.Table{Name: "jobs", Rows: 1, Columns: []*resultsdir.Column{
			{Name: "job_id", Type: "string", Str: []string{"a"}, Null: []bool{false}},
			{Name: "fct_p99_usec", Type: "double", Num: []float64{tt.new}, Null: []bool{false}}}}
		r, err := compare.Tables(b, n, compare.Options{Metrics: []string{"fct_p99_usec"}, RTol: tt.rtol, ATol: tt.atol})
		if err != nil {
			t.Fatal(err)
		}
		if r.Failed() != tt.beyond {
			t.Errorf("base %g new %g rtol %g atol %g: failed %v, want %v", tt.base, tt.new, tt.rtol, tt.atol, r.Failed(), tt.beyond)
		}
	}
}
