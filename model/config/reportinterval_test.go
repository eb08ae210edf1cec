package config

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// report_interval drives every interval table unless the spec sets one explicitly, in
// any order; LoadBalancingStatsReportInterval never follows below 10 us.
func TestReportIntervalDrivesEveryTable(t *testing.T) {
	us := sim.Microsecond
	for _, c := range []struct {
		name               string
		sets               [][2]string
		nd, buf, lb, netbf sim.Time
	}{
		{"defaults", nil, 1000 * us, 1000 * us, 1000 * us, 1000 * us},
		{"report_interval", [][2]string{{"report_interval", "50us"}}, 50 * us, 50 * us, 50 * us, 50 * us},
		{"below the lb floor", [][2]string{{"report_interval", "2us"}}, 2 * us, 2 * us, 10 * us, 2 * us},
		{"explicit after", [][2]string{{"report_interval", "50us"}, {"switch.BufferStatsReportInterval", "7us"}}, 50 * us, 7 * us, 50 * us, 50 * us},
		{"explicit before", [][2]string{{"switch.LoadBalancingStatsReportInterval", "20us"}, {"global.NetworkBufferStatsReportingInterval", "3us"}, {"report_interval", "50us"}}, 50 * us, 50 * us, 20 * us, 3 * us},
		{"canonical name", [][2]string{{"global.NDStatsReportInterval", "25us"}}, 25 * us, 25 * us, 25 * us, 25 * us},
	} {
		cfg := Default()
		for _, s := range c.sets {
			if err := cfg.Set(s[0], s[1]); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		got := [4]sim.Time{cfg.Global.NDStatsReportInterval, cfg.Switch.SharedBufferManager.BufferStatsReportInterval,
			cfg.Switch.LoadBalancingStatsReportInterval, cfg.Global.NetworkBufferStatsReportingInterval}
		if want := [4]sim.Time{c.nd, c.buf, c.lb, c.netbf}; got != want {
			t.Errorf("%s: nd, buffer, lb, net-buff intervals = %v, want %v", c.name, got, want)
		}
	}
}
