package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// TestPageOrder: the page charts every summary metric but the simulator-performance ones
// exactly once, the main metrics first.
func TestPageOrder(t *testing.T) {
	got := pageOrder(nil)
	if len(got) != len(stats.MetricNames)-len(PerfMetrics) {
		t.Fatalf("page order %v: %d metrics, want %d", got, len(got), len(stats.MetricNames)-len(PerfMetrics))
	}
	first := ""
	for _, m := range mainMetrics {
		if slices.Contains(stats.MetricNames, m.Name) {
			first = m.Name
			break
		}
	}
	if got[0] != first {
		t.Errorf("first charted metric %s, want the first main metric %s", got[0], first)
	}
	for _, m := range stats.MetricNames {
		n := slices.Index(got, m)
		switch {
		case slices.Contains(PerfMetrics, m) && n >= 0:
			t.Errorf("simulator metric %s is charted", m)
		case !slices.Contains(PerfMetrics, m) && (n < 0 || slices.Index(got[n+1:], m) >= 0):
			t.Errorf("metric %s appears %d times", m, strings.Count(strings.Join(got, " ")+" ", m+" "))
		}
	}
}
