package compare

import (
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/internal/selection"
)

// Direction says which way a move of metric is better for a study asking objective obj:
// -1 when lower is better, +1 when higher is better, 0 when neither is (a count of
// activity such as events or ECN marks, a buffer's peak, the simulated time). The
// objective's metric goes by its goal; other metrics by what they measure: losses, waits
// and completion times are better low, delivered work is better high.
func Direction(metric string, obj *selection.Objective) int {
	if obj != nil && metric == obj.Metric {
		if obj.Goal == selection.Max {
			return 1
		}
		return -1
	}
	switch {
	case slices.Contains(higherBetter, metric):
		return 1
	case slices.Contains(lowerBetter, metric),
		strings.HasPrefix(metric, "fct_"), strings.HasPrefix(metric, "slowdown_"), strings.HasPrefix(metric, "drops_"),
		strings.HasPrefix(metric, "cct_") && metric != "cct_iterations":
		return -1
	}
	return 0
}

var (
	higherBetter = []string{"goodput_gbps", "busbw_gbps", "bytes_delivered", "msgs_completed", "msgs_completed_lossless",
		"msgs_completed_lossy", "cct_iterations"}
	lowerBetter = []string{"nic_rx_drops", "pfc_pause_tx", "pfc_paused_usec", "retransmits", "stuck_pause_ports"}
)

// verdict labels a move of diff (new − base) of a metric with direction dir: "better",
// "worse", or "" when the metric has no better direction or the move is not a number.
func verdict(dir int, diff float64) string {
	switch {
	case dir == 0 || diff != diff || diff == 0:
		return ""
	case (diff > 0) == (dir > 0):
		return "better"
	}
	return "worse"
}
