package stats

import (
	"slices"
	"strings"
)

// MachineMetrics are the jobs metrics that measure the simulator's speed on the machine
// that ran it, not the fabric: they differ between two runs of one job, so no answer or
// comparison rests on them.
var MachineMetrics = []string{"wall_sec", "events_per_sec"}

// Unit is the unit of a jobs metric, from the words of its name: "µs" for microseconds
// (fct_p99_usec, fct_p99_usec_lossless), "s" for seconds (sim_time_sec), "Gbps", "B" for
// bytes (max_pool_bytes), and "" for counts, ratios and rates per second
// (events_per_sec).
func Unit(metric string) string {
	words := strings.Split(strings.ToLower(metric), "_")
	switch {
	case slices.Contains(words, "per"):
		return ""
	case slices.Contains(words, "usec"):
		return "µs"
	case slices.Contains(words, "gbps"):
		return "Gbps"
	case slices.Contains(words, "bytes"):
		return "B"
	case slices.Contains(words, "sec"):
		return "s"
	}
	return ""
}

// Better says which way a jobs metric is better, by what it measures: +1 when higher is
// better (delivered work: goodput, bus bandwidth, completed messages and their fraction of
// the started ones), -1 when lower is
// better (losses, waits and completion times: drops, pauses, retransmissions, FCTs,
// slowdowns, collective completion times), 0 when neither is (a count of activity such
// as ECN marks or events, a buffer's peak, the simulated time, the messages started). A study's objective
// overrides it for its own metric.
func Better(metric string) int {
	switch {
	case slices.Contains(higherBetter, metric):
		return 1
	case slices.Contains(lowerBetter, metric),
		strings.HasPrefix(metric, "fct_"), strings.HasPrefix(metric, "host_fct_"), strings.HasPrefix(metric, "slowdown_"), strings.HasPrefix(metric, "drops_"),
		strings.HasPrefix(metric, "cct_") && metric != "cct_iterations":
		return -1
	}
	return 0
}

var (
	higherBetter = []string{"goodput_gbps", "busbw_gbps", "bytes_delivered", "msgs_completed", "msgs_completed_lossless",
		"msgs_completed_lossy", "msgs_host_completed", "completed_frac_lossless", "completed_frac_lossy", "cct_iterations"}
	lowerBetter = []string{"nic_rx_drops", "pfc_pause_tx", "pfc_paused_usec", "retransmits", "stuck_pause_ports"}
)
