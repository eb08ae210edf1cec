package explain

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

func TestWarnings(t *testing.T) {
	c := config.Default()
	if w := Messages(Warnings(&c)); len(w) != 0 {
		t.Errorf("default warnings: %v", w)
	}
	c.NIC.EnableBufferStats, c.Global.EnableNetworkBufferStatsReporting = true, true
	if w := Messages(Warnings(&c)); len(w) != 0 {
		t.Errorf("warnings with net-buff-stats on: %v", w)
	}
	for _, tc := range []struct {
		sets [][2]string
		want string
	}{
		{[][2]string{{"switch.StaticPoolXonThreshold", "700KB"}}, "no hysteresis"},
		{[][2]string{{"switch.PoolAllocationMap", "[0.5, 0.3, 0, 0, 0, 0, 0, 0]"}}, "sums to 0.8, not 1"},
		{[][2]string{{"switch.TrafficClassPoolMapping", "[1, 0, 0, 0, 0, 0, 0, 0]"}}, "DC-5"},
		{[][2]string{{"nic.PfcStaticXoffThreshold", "[0.999, 0.8, 0, 0, 0, 0, 0, 0]"}}, "under the guidance 18,368 B"},
		{[][2]string{{"nic.PfcXonResumeThreshold", "[0.8, 0.4, 0, 0, 0, 0, 0, 0]"}}, "pauses lift almost at once"},
		{[][2]string{{"nic.EgressBufferManager.TotalBufferSize", "4KB"}}, "below MSS + 58"},
		{[][2]string{{"nic.EnableBufferStats", "true"}}, "nic.EnableBufferStats is true but global.EnableNetworkBufferStatsReporting is false: net-buff-stats is written only with both, so no row is (nic.md §16.5)"},
		{[][2]string{{"global.EnableNetworkBufferStatsReporting", "true"}}, "global.EnableNetworkBufferStatsReporting is true but nic.EnableBufferStats is false"},
	} {
		c := config.Default()
		for _, kv := range tc.sets {
			if err := c.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		w := strings.Join(Messages(Warnings(&c)), "\n")
		if !strings.Contains(w, tc.want) {
			t.Errorf("%v: warnings %q, want %q", tc.sets, w, tc.want)
		}
	}
}

// TestWarnSwitchDelayInStar: records.md §2 gives switch–NIC links the NIC's Delay, so a
// star never uses the switch's; a user who sets it is told.
func TestWarnSwitchDelayInStar(t *testing.T) {
	c := config.Default()
	if err := c.Set("switch.Delay", "2us"); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(Messages(Warnings(&c)), func(w string) bool { return strings.Contains(w, "no effect in a star") }) {
		t.Fatalf("no warning for switch.Delay in a star: %q", Messages(Warnings(&c)))
	}
	if err := c.Set("topology.kind", "leaf-spine"); err != nil {
		t.Fatal(err)
	}
	for _, w := range Messages(Warnings(&c)) {
		if strings.Contains(w, "no effect in a star") {
			t.Fatalf("warning on a leaf-spine: %s", w)
		}
	}
}
