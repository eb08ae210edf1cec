package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// TestPageOrder: the page shows every summary metric exactly once, answers first.
func TestPageOrder(t *testing.T) {
	got := pageOrder()
	if len(got) != len(stats.MetricNames) || got[0] != "drops_total" {
		t.Fatalf("page order %v", got)
	}
	for _, m := range stats.MetricNames {
		if n := slices.Index(got, m); n < 0 || slices.Index(got[n+1:], m) >= 0 {
			t.Errorf("metric %s appears %d times", m, strings.Count(strings.Join(got, " ")+" ", m+" "))
		}
	}
}
