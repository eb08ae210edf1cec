package fabric

import (
	"math"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/switchdev"
	"github.com/rocesweep/rocesweep/model/topo"
)

// Per-tier switch attributes reach the switches of that tier and only those: buffer_stats
// carries each tier's own pool limits, and the tier's uplink sets the rate and delay of
// its cables up, which the topology rows and the switches' PFC pause times follow
// (switch.md §7.1: 65,535 × 512 bit / rate + Delay; §7.2: refresh at half).
func TestTiersReachTheirSwitches(t *testing.T) {
	cfg := job(t, "duration", "300us", "topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2",
		"topology.hosts_per_leaf", "4", "topology.uplinks_per_spine", "1",
		"workload.kind", "permutation", "workload.message_size", "100KB",
		"global.NDStatsReportInterval", "100us", "switch.BufferStatsReportInterval", "100us",
		"tiers.spine.switch.TotalSharedBufferSize", "64MB", "tiers.rack.switch.LossyAlpha", "0.5",
		"tiers.rack.uplink.rate", "800Gbps", "tiers.rack.uplink.delay", "10us")
	f, res := run(t, cfg)

	// Expected pool sizes: InitBuffer of each tier's configuration and port count.
	spineSw, rackSw := cfg.Switch, cfg.Switch
	spineSw.SharedBufferManager.TotalSharedBufferSize = 64_000_000
	rackSw.SharedBufferManager.LossyAlpha = 0.5
	want := map[int32]switchdev.Buffer{}
	for tier, sw := range map[int32]*config.Switch{topo.TierSpine: &spineSw, topo.TierRack: &rackSw} {
		ports := 2 // spine: 2 leaves × 1 cable
		if tier == topo.TierRack {
			ports = 4 + 2
		}
		b, err := switchdev.InitBuffer(sw, ports)
		if err != nil {
			t.Fatal(err)
		}
		want[tier] = b
	}
	if want[topo.TierSpine].PoolSize[0] == want[topo.TierRack].PoolSize[0] {
		t.Fatal("test is weak: both tiers would have the same pool 0")
	}
	seen := map[int32]bool{}
	for _, r := range res.Rec.BufferStats {
		if w := want[r.Tier].PoolSize[r.PoolNum]; r.BufferLimit != w {
			t.Errorf("%s pool %d: buffer_limit %d, want the tier's %d", r.ComponentName, r.PoolNum, r.BufferLimit, w)
		}
		seen[r.Tier] = true
	}
	if !seen[topo.TierSpine] || !seen[topo.TierRack] {
		t.Fatalf("buffer_stats rows for tiers %v, want spine and rack", seen)
	}
	for i, sw := range f.switches {
		node := &f.g.Nodes[f.g.Switches[i]]
		if got := sw.Buffer().Alpha; (node.Tier == topo.TierRack) != (got == 0.5) {
			t.Errorf("%s (tier %d): LossyAlpha %v", node.Name, node.Tier, got)
		}
	}

	// Cables: leaf–spine at 800 Gbps and 10 us; host links keep the NIC's 400 Gbps, 100 ns.
	nicDelay := cfg.NIC.NetworkInterface.TransmissionMedium.Delay
	if nicDelay != 100*sim.Nanosecond {
		t.Fatalf("NIC Delay default %v: update the test", nicDelay)
	}
	for _, r := range res.Rec.Topology {
		wr, wd := 400.0, 100.0
		if r.PeerComponentType == "Switch" {
			wr, wd = 800, 10_000
		}
		if r.LinkspeedGbps != wr || r.PropDelayNs != wd {
			t.Errorf("%s–%s: %g Gbps, %g ns; want %g, %g", r.ComponentName, r.PeerComponentName, r.LinkspeedGbps, r.PropDelayNs, wr, wd)
		}
	}
	// Pause times per port follow the port's cable.
	for i, sw := range f.switches {
		node := &f.g.Nodes[f.g.Switches[i]]
		for p, port := range node.Ports {
			rate, delay := 400e9, nicDelay
			if f.g.Nodes[port.Peer].Kind == topo.SwitchNode {
				rate, delay = 800e9, 10*sim.Microsecond
			}
			want := sim.Time(math.Round(65535*512e12/rate)) + delay
			if got := sw.PauseTime(p); got != want {
				t.Errorf("%s port %d: pause time %v, want %v", node.Name, p, got, want)
			}
		}
	}
}
