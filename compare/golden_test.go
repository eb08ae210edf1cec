package compare_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

var update = flag.Bool("update", false, "rewrite compare/testdata/*.golden with this code's output")

// The text, JSON and failure line of both pairings over one perturbed grid are exactly the golden
// files: a job whose metrics move (both replicates of one point, so the paired interval
// exists), a small move within tolerance, a status change, a job on one side only and a
// metric missing on one side.
func TestGoldenOutputs(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	if err := resultstest.Write(base, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	nw := filepath.Join(t.TempDir(), "new")
	err := resultstest.Copy(base, nw, func(tb *resultsdir.Table) {
		if tb.Name != "jobs" {
			return
		}
		ids := tb.Col("job_id").Str
		for i, id := range ids {
			switch id {
			case "j0003", "j0004": // one point, both replicates: a move with an interval
				tb.Col("fct_p99_usec").Num[i] *= 1.5 + float64(i)*0.01
				tb.Col("drops_total").Num[i] += 2
			case "j0005": // within tolerance (--atol 0.01)
				tb.Col("goodput_gbps").Num[i] += 1e-3
			case "j0002":
				tb.Col("status").Str[i] = "timeout"
			}
		}
		// drops_lossy is missing in new.
		tb.Columns = slices.DeleteFunc(tb.Columns, func(c *resultsdir.Column) bool { return c.Name == "drops_lossy" })
		// j0008, the last row, is in base only.
		tb.Rows--
		for _, c := range tb.Columns {
			c.Null = c.Null[:tb.Rows]
			if c.IsString() {
				c.Str = c.Str[:tb.Rows]
			} else {
				c.Num = c.Num[:tb.Rows]
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	opts := compare.Options{Metrics: []string{"fct_p99_usec", "drops_total", "goodput_gbps", "drops_lossy"}, ATol: 0.01, RTol: 1e-9}
	byJob, err := compare.Dirs(base, nw, opts)
	if err != nil {
		t.Fatal(err)
	}
	byParams, err := compare.DirsByParams(base, nw, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"by-job.txt", func(b *bytes.Buffer) error { return byJob.WriteText(b) }},
		{"by-job.json", func(b *bytes.Buffer) error { return byJob.WriteJSON(b) }},
		{"by-params.txt", func(b *bytes.Buffer) error { return byParams.WriteText(b) }},
		{"by-params.json", func(b *bytes.Buffer) error { return byParams.WriteJSON(b) }},
		{"by-job.failure", func(b *bytes.Buffer) error { _, err := b.WriteString(byJob.FailureLine() + "\n"); return err }},
		{"by-params.failure", func(b *bytes.Buffer) error { _, err := b.WriteString(byParams.FailureLine() + "\n"); return err }},
	} {
		var b bytes.Buffer
		if err := tt.write(&b); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", tt.name+".golden")
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b.Bytes(), want) {
			t.Errorf("%s differs from %s:\n%s", tt.name, path, b.String())
		}
	}
	if !byJob.Failed() || !byParams.Failed() {
		t.Errorf("Failed() = %v by job, %v by params; want both true (moves and a status change)", byJob.Failed(), byParams.Failed())
	}
}
