package stats

import "testing"

// Every metric's unit and better direction, from its name.
func TestUnitAndBetter(t *testing.T) {
	for _, tc := range []struct {
		metric string
		unit   string
		better int
	}{
		{"fct_p99_usec_lossless", "µs", -1}, {"fct_p50_usec", "µs", -1}, {"cct_p50_usec", "µs", -1},
		{"pfc_paused_usec", "µs", -1}, {"sim_time_sec", "s", 0}, {"wall_sec", "s", 0}, {"events_per_sec", "", 0},
		{"goodput_gbps", "Gbps", 1}, {"busbw_gbps", "Gbps", 1}, {"max_pool_bytes", "B", 0}, {"bytes_delivered", "B", 1},
		{"drops_lossless", "", -1}, {"nic_rx_drops", "", -1}, {"ecn_marked", "", 0}, {"msgs_completed_lossless", "", 1},
		{"cct_iterations", "", 1}, {"slowdown_p99_lossy", "", -1}, {"stuck_pause_ports", "", -1},
		{"host_fct_p99_usec_lossless", "µs", -1}, {"completed_frac_lossy", "", 1}, {"msgs_host_completed", "", 1}, {"msgs_started", "", 0},
	} {
		if u, b := Unit(tc.metric), Better(tc.metric); u != tc.unit || b != tc.better {
			t.Errorf("%s: unit %q, better %d; want %q, %d", tc.metric, u, b, tc.unit, tc.better)
		}
	}
	for _, m := range MetricNames { // every metric has a unit answer and a direction answer
		_, _ = Unit(m), Better(m)
	}
}
