package resultsdir_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
)

func TestReadJobsAndManifest(t *testing.T) {
	dir := t.TempDir()
	s := resultstest.Grid([]float64{0.5, 1, 2}, []float64{200e3, 700e3}, 2, true)
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "synthetic" || m.PlanSize != 12 || len(m.Axes) != 2 {
		t.Fatalf("manifest = %+v", m)
	}
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
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
	if got := resultsdir.Axes(m, jobs); len(got) != 2 || got[0] != "switch_LossyAlpha" {
		t.Fatalf("axes = %v", got)
	}
	// Without the manifest's list the axes are the varying non-metric columns.
	if got := resultsdir.Axes(nil, jobs); len(got) != 2 || got[1] != "switch_StaticPoolXoffThreshold" {
		t.Fatalf("derived axes = %v", got)
	}
	bs, err := resultsdir.ReadTable(dir, "buffer_stats", func(id string) bool { return id == "j0003" })
	if err != nil {
		t.Fatal(err)
	}
	if bs.Rows != 16 {
		t.Fatalf("buffer_stats rows for j0003 = %d, want 16", bs.Rows)
	}
	if _, err := resultsdir.ReadTable(dir, "lb_stats", nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing table: err = %v", err)
	}
}

// Points groups replicates of one grid point, orders points by their values (numbers
// numerically: 200KB before 1MB) and replicates by number whatever the row order.
func TestPoints(t *testing.T) {
	dir := t.TempDir()
	s := resultstest.Grid([]float64{2, 0.5}, []float64{1e6, 200e3}, 3, false)
	s.Jobs[0], s.Jobs[2] = s.Jobs[2], s.Jobs[0] // replicates 2, 1, 0 in the file
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	axes := []string{"switch_LossyAlpha", "switch_StaticPoolXoffThreshold"}
	pts := resultsdir.Points(jobs, axes, nil)
	var got []string
	for _, p := range pts {
		got = append(got, strings.Join(p.Text, "/")+fmt.Sprint(p.Reps))
	}
	want := "[0.5/200000[0 1 2] 0.5/1000000[0 1 2] 2/200000[0 1 2] 2/1000000[0 1 2]]"
	if fmt.Sprint(got) != want {
		t.Fatalf("points = %v, want %s", got, want)
	}
	// The first point of the file (alpha 2, Xoff 1MB) has its replicate 0 in row 2.
	p := pts[3]
	if p.Rows[0] != 2 || p.Rows[2] != 0 {
		t.Errorf("rows of alpha 2 / 1MB = %v, want [2 1 0]", p.Rows)
	}
	fct := jobs.Col("fct_p99_usec")
	if v := p.ByReplicate(fct, 4); v[0] != 400+80+200 || v[2] != 400+80+200+0.02 || !math.IsNaN(v[3]) {
		t.Errorf("ByReplicate = %v", v)
	}
	if n := len(resultsdir.Points(jobs, nil, nil)); n != 1 {
		t.Errorf("no axes: %d points, want 1", n)
	}
	odd := resultsdir.Points(jobs, axes, func(r int) bool { return r%2 == 1 })
	if n := len(odd[0].Rows) + len(odd[1].Rows) + len(odd[2].Rows) + len(odd[3].Rows); n != 6 {
		t.Errorf("filtered points hold %d rows, want 6", n)
	}
}

// Readers find a swept column by any spelling of its path, as the runner names it
// (resultsdir.ColumnOf): a manifest written from a spec that used the full path still
// matches the switch_LossyAlpha column.
func TestColumnOfAnySpelling(t *testing.T) {
	for path, want := range map[string]string{
		"switch.LossyAlpha":                     "switch_LossyAlpha",
		"switch.SharedBufferManager.LossyAlpha": "switch_LossyAlpha",
		"nic.NICSide.PhysicalLayer.LaneCount":   "nic_HostInterface_NICSide_PhysicalLayer_LaneCount",
		"not.an.attribute":                      "not_an_attribute",
	} {
		if got := resultsdir.ColumnOf(path); got != want {
			t.Errorf("ColumnOf(%s) = %s, want %s", path, got, want)
		}
	}
}

// Only the files that commits name are read: a copy of a committed part under a name of
// no shard, of another shard, or of this shard but no commit (a kill between rename and
// journal append) adds no rows.
func TestReadOnlyCommittedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3}, 2, false)); err != nil {
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
	for _, name := range []string{"extra.parquet", "part-2of2-000001.parquet", "part-1of1-000099.parquet"} {
		if err := os.WriteFile(filepath.Join(dir, "jobs", name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	again, err := resultsdir.Parts(dir, "jobs")
	if err != nil || !slices.Equal(again, parts) {
		t.Errorf("Parts with strays = %v (%v), want %v", again, err, parts)
	}
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	if jobs.Rows != 4 {
		t.Errorf("jobs rows = %d, want 4 (strays not read)", jobs.Rows)
	}
}

// BenchmarkReadTable reads a 60-job sweep's jobs table (41 columns) and an interval
// table of 200 rows a job, whole and for one job.
func BenchmarkReadTable(b *testing.B) {
	dir := b.TempDir()
	s := resultstest.Grid([]float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3, 1e6, 2e6}, 3, false)
	s.Intervals = 200
	if err := resultstest.Write(dir, s); err != nil {
		b.Fatal(err)
	}
	one := s.Jobs[7].ID
	for _, c := range []struct {
		name, table string
		keep        func(string) bool
	}{
		{"jobs", "jobs", nil},
		{"nd_stats", "nd_stats", nil},
		{"nd_stats/one_job", "nd_stats", func(id string) bool { return id == one }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := resultsdir.ReadTable(dir, c.table, c.keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
