package report

import (
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// chartOrder lists the metrics a user tuning a fabric looks at first, after the main
// metrics; the page then shows the rest of stats.MetricNames (delivery counters) in order.
var chartOrder = []string{
	"drops_total", "drops_lossless", "drops_lossy", "nic_rx_drops", "pfc_pause_tx",
	"pfc_paused_usec", "fct_p50_usec", "fct_p99_usec", "fct_max_usec", "goodput_gbps",
	"ecn_marked", "cnp_sent", "retransmits", "max_egress_queue_bytes",
	"max_ingress_port_bytes", "max_pool_bytes",
}

// PerfMetrics are the simulator-performance columns of jobs: shown in one table at the
// end of the page, never charted.
var PerfMetrics = perfMetrics

// pageOrder returns the charted metrics of jobs, each once: the main metrics (answers.go),
// then chartOrder, then every other numeric column that is a summary metric or a
// per-class metric (…_lossless, …_lossy) of a newer tool; never PerfMetrics. A nil jobs
// table gives the order over stats.MetricNames.
func pageOrder(jobs *resultsdir.Table) []string {
	var out []string
	add := func(m string) {
		if slices.Contains(out, m) || slices.Contains(perfMetrics, m) {
			return
		}
		if jobs == nil {
			if slices.Contains(stats.MetricNames, m) {
				out = append(out, m)
			}
			return
		}
		if c := jobs.Col(m); c != nil && !c.IsString() {
			out = append(out, m)
		}
	}
	for _, m := range mainMetrics {
		add(m.Name)
	}
	for _, m := range chartOrder {
		add(m)
	}
	for _, m := range stats.MetricNames {
		add(m)
	}
	if jobs != nil {
		for _, c := range jobs.Columns {
			if strings.HasSuffix(c.Name, "_lossless") || strings.HasSuffix(c.Name, "_lossy") {
				add(c.Name)
			}
		}
	}
	return out
}
