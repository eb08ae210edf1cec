package report_test

import (
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/report"
)

// The closing table: one cell per (alpha, Xoff) with mean ± t(0.975, n-1)·s/√n over the
// replicates; the failed job is left out, so its point has one replicate and no interval.
// The last line names the best point and its paired differences to its neighbours: each
// replicate pair differs by exactly 60 or 160, so those intervals have no width.
func TestPivot(t *testing.T) {
	dir := t.TempDir()
	// fct_p99_usec = 400 + 40α + Xoff/5000 + 0.01·replicate; the last job (α 2, 1MB, r 1) failed.
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 2}, []float64{200e3, 1e6}, 2, true)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.Pivot(&b, dir, "fct_p99_usec", nil); err != nil {
		t.Fatal(err)
	}
	// α 0.5, 200KB: {460, 460.01}: mean 460.005, s = 0.00707, half = 12.706205·0.005 = 0.0635.
	// Each job completed 15 messages: every p99 is marked.
	want := `fct_p99_usec (µs): mean ± 95% CI over 1 to 2 replicates (1 point has fewer than 2: a job failed or did not run):
  switch.LossyAlpha \ switch.StaticPoolXoffThreshold           200KB             1MB
  0.5                                                 460.0 ± 0.064†  620.0 ± 0.064†
  2                                                   520.0 ± 0.064†            680†
  p99 of 15 messages per job (msgs_started); † p99 of fewer than 100 messages: the largest few completions, not a tail.
  lowest: LossyAlpha=0.5, StaticPoolXoffThreshold=200KB, 460.0 ± 0.064; neighbour − best, paired: LossyAlpha 0.5 → 2: 60 ± 0; StaticPoolXoffThreshold 200KB → 1MB: 160 ± 0
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if err := report.Pivot(&b, dir, "no_such_metric", nil); err == nil || !strings.Contains(err.Error(), "no_such_metric") {
		t.Errorf("unknown metric: %v", err)
	}
}

// Without --metric, run's closing table shows the report's first main metric that
// varies: the lossless class's p99 FCT here (the question a lossless-incast study asks),
// not drops_total.
func TestPivotDefaultMetric(t *testing.T) {
	dir := t.TempDir()
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 2}, []float64{200e3, 1e6}, 2, true)); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := report.Pivot(&b, dir, "", nil); err != nil {
		t.Fatal(err)
	}
	if first := strings.Fields(b.String())[0]; first != "fct_p99_usec_lossless" {
		t.Errorf("default closing metric %q, want fct_p99_usec_lossless:\n%s", first, b.String())
	}
}
