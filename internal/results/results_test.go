package results_test

import (
	"errors"
	"io/fs"
	"testing"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/results/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
)

func TestReadJobsAndManifest(t *testing.T) {
	dir := t.TempDir()
	s := resultstest.Grid([]float64{0.5, 1, 2}, []float64{200e3, 700e3}, 2, true)
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "synthetic" || m.PlanSize != 12 || len(m.Axes) != 2 {
		t.Fatalf("manifest = %+v", m)
	}
	jobs, err := results.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	if jobs.Rows != 12 {
		t.Fatalf("rows = %d, want 12", jobs.Rows)
	}
	want := 5 + 2 + len(stats.MetricNames)
	if len(jobs.Columns) != want {
		t.Fatalf("columns = %d, want %d", len(jobs.Columns), want)
	}
	if c := jobs.Col("fct_p99_usec"); c == nil || c.Type != "double" || c.Num[0] != s.Jobs[0].Summary.FctP99Usec {
		t.Fatalf("fct_p99_usec = %+v", c)
	}
	if c := jobs.Col("drops_total"); c.Type != "int64" || c.Num[4] != float64(s.Jobs[4].Summary.DropsTotal) {
		t.Fatalf("drops_total = %+v", c)
	}
	if c := jobs.Col("status"); c.Str[11] != "failed" {
		t.Fatalf("status = %v", c.Str)
	}
	if got := results.Axes(m, jobs); len(got) != 2 || got[0] != "switch_LossyAlpha" {
		t.Fatalf("axes = %v", got)
	}
	// Without the manifest's list the axes are the varying non-metric columns.
	if got := results.Axes(nil, jobs); len(got) != 2 || got[1] != "switch_StaticPoolXoffThreshold" {
		t.Fatalf("derived axes = %v", got)
	}
	bs, err := results.ReadTable(dir, "buffer_stats", func(id string) bool { return id == "j0003" })
	if err != nil {
		t.Fatal(err)
	}
	if bs.Rows != 16 {
		t.Fatalf("buffer_stats rows for j0003 = %d, want 16", bs.Rows)
	}
	if _, err := results.ReadTable(dir, "lb_stats", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing table: err = %v", err)
	}
}
