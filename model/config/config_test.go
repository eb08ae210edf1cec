package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

func TestSchemaDefaults(t *testing.T) {
	want := map[string]struct{ typ, def string }{
		"name":                         {"string", "sim"},
		"seed":                         {"uint", "1"},
		"duration":                     {"timeval", "1ms"},
		"stop":                         {"string", "duration"},
		"global.Mtu":                   {"bytes", "4184B"},
		"global.NDStatsReportInterval": {"timeval", "1ms"},
		"topology.hosts":               {"int", "16"},
		"workload.message_size":        {"bytes", "1MiB"},
		"workload.mix":                 {"list", "[]"},
		"workload.rounds":              {"int", "0"},
		"workload.period":              {"timeval", "0s"},
		"switch.SwitchingCapacity":     {"datarate", "51200Gbps"},
		"switch.NetworkInterface.TransmissionMedium.Delay":                   {"timeval", "500ns"},
		"switch.SharedBufferManager.TotalSharedBufferSize":                   {"bytes", "256MB"},
		"switch.SharedBufferManager.HeadRoomPerPortLimit":                    {"bytes", "256KB"},
		"switch.SharedBufferManager.PoolAllocationMap":                       {"vector", "[0.9, 0.1, 0, 0, 0, 0, 0, 0]"},
		"switch.SharedBufferManager.LossyAlpha":                              {"double", "1"},
		"switch.LoadBalancingFlowlet.Gap":                                    {"timeval", "100us"},
		"nic.NetworkInterface.UplinkNetworkInterface.DataRate":               {"datarate", "400Gbps"},
		"nic.NetworkInterface.IngressBufferManager.TotalBufferSize":          {"bytes", "4MB"},
		"nic.NetworkInterface.IngressBufferManager.QuantaValue":              {"vector", "[65535, 65535, 0, 0, 0, 0, 0, 0]"},
		"nic.HostInterface.NICSide.TransactionLayer.RXHeaderBufferSize":      {"queuesize", "16KB"},
		"nic.HostInterface.HostSide.PhysicalLayer.LaneBps":                   {"datarate", "31.52Gbps"},
		"nic.TransportProcessingLayers.RoceTransportLayer.RetransmitTimeout": {"timeval", "64ms"},
		"nic.RoceQpManager.MSS":                                              {"bytes", "4096B"},
		"nic.ECNHandler.ControlIntervalDurationNs":                           {"uint", "45000"},
	}
	got := map[string]Attr{}
	for _, a := range Schema() {
		if _, dup := got[a.Path]; dup {
			t.Errorf("duplicate path %s", a.Path)
		}
		got[a.Path] = a
		if a.Type == 0 || a.Default == "" {
			t.Errorf("%s: empty type or default", a.Path)
		}
	}
	for path, w := range want {
		a, ok := got[path]
		if !ok {
			t.Errorf("%s missing from the schema", path)
			continue
		}
		if a.Type.String() != w.typ || a.Default != w.def {
			t.Errorf("%s: type %s default %s, want %s %s", path, a.Type, a.Default, w.typ, w.def)
		}
	}
	if e := got["switch.EcmpHashMethod"].Enum; len(e) != 6 {
		t.Errorf("EcmpHashMethod enum %v", e)
	}
}

// Every default printed by the schema parses back to the default value.
func TestSchemaRoundTrip(t *testing.T) {
	def := Default()
	for _, a := range Schema() {
		if a.Type == KindList {
			continue
		}
		c := Default()
		if err := c.Set(a.Path, a.Default); err != nil {
			t.Errorf("Set(%s, %q): %v", a.Path, a.Default, err)
			continue
		}
		g1, _ := c.Get(a.Path)
		g2, _ := def.Get(a.Path)
		if g1 != g2 {
			t.Errorf("%s: %q after round trip, want %q", a.Path, g1, g2)
		}
	}
}

func TestCanonical(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"switch.LossyAlpha", "switch.SharedBufferManager.LossyAlpha", ""},
		{"switch.SharedBufferManager.LossyAlpha", "switch.SharedBufferManager.LossyAlpha", ""},
		{"nic.HostSide.LaneBps", "nic.HostInterface.HostSide.PhysicalLayer.LaneBps", ""},
		{"nic.IngressBufferManager.TotalBufferSize", "nic.NetworkInterface.IngressBufferManager.TotalBufferSize", ""},
		{"nic.DataRate", "nic.NetworkInterface.UplinkNetworkInterface.DataRate", ""},
		{"switch.Gap", "switch.LoadBalancingFlowlet.Gap", ""},
		{"report_interval", "global.NDStatsReportInterval", ""},
		{"topology.hosts", "topology.hosts", ""},
		{"workload.mix.0.senders", "workload.mix.0.senders", ""},
		{"switch.DataRate", "", "switch.DataRate: ambiguous attribute, matches switch.NetworkInterface.UplinkNetworkInterface.DataRate, switch.NetworkInterface.DownlinkNetworkInterface.DataRate"},
		{"nic.TotalBufferSize", "", "ambiguous"},
		{"switch.LossyAlpa", "", "switch.LossyAlpa: unknown attribute (did you mean switch.LossyAlpha?)"},
		{"switch.StaticPoolXofThreshold", "", "did you mean switch.StaticPoolXoffThreshold"},
		{"topology.host", "", "did you mean topology.hosts?"},
		{"workload.mix.0.sendrs", "", `unknown workload key "sendrs" (did you mean senders?)`},
		{"workload.mix.x.senders", "", "numbered"},
		{"swich.LossyAlpha", "", "unknown attribute"},
		{"nic.Mtu", "", "nic.Mtu: unknown attribute (did you mean global.Mtu?)"},
		{"Mtu", "", "Mtu: unknown attribute (did you mean global.Mtu?)"},
		{"switch.NetworkInterface.LossyAlpha", "", "unknown attribute"},
	} {
		got, err := Canonical(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("Canonical(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Canonical(%q) error = %v; want %q", tc.in, err, tc.err)
		}
	}
}

func TestSetGet(t *testing.T) {
	c := Default()
	for _, kv := range [][2]string{
		{"switch.LossyAlpha", "0.5"},
		{"switch.StaticPoolXoffThreshold", "200KB"},
		{"switch.PoolAllocationMap", "[0.59, 0.41, 0, 0, 0, 0, 0, 0]"},
		{"nic.IngressBufferManager.TotalBufferSize", "8MiB"},
		{"duration", "2ms"},
		{"report_interval", "100us"},
		{"topology.hosts", "128"},
		{"workload.message_size", "64KiB"},
		{"workload.mix.0.kind", "permutation"},
		{"workload.mix.0.message_size", "1MB"},
		{"workload.mix.1.senders", "3"},
		{"stop", "drain"},
	} {
		if err := c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	if c.Switch.SharedBufferManager.LossyAlpha != 0.5 || c.Switch.SharedBufferManager.StaticPoolXoffThreshold != 200_000 ||
		c.Switch.SharedBufferManager.PoolAllocationMap != (Vec8{0.59, 0.41}) ||
		c.NIC.NetworkInterface.IngressBufferManager.TotalBufferSize != 8<<20 || c.Duration != 2*sim.Millisecond ||
		c.Global.NDStatsReportInterval != 100*sim.Microsecond || c.Topology.Hosts != 128 || c.Workload.MessageSize != 64<<10 || c.Stop != "drain" {
		t.Errorf("values not set: %+v", c)
	}
	if len(c.Workload.Mix) != 2 || c.Workload.Mix[0].Kind != "permutation" || c.Workload.Mix[0].MessageSize != 1_000_000 || c.Workload.Mix[1].Senders != 3 {
		t.Errorf("mix = %+v", c.Workload.Mix)
	}
	if v, err := c.Get("switch.StaticPoolXoffThreshold"); err != nil || v != "200KB" {
		t.Errorf("Get = %q, %v", v, err)
	}
	if v, err := c.Get("workload.mix.1.senders"); err != nil || v != "3" {
		t.Errorf("Get mix = %q, %v", v, err)
	}
	for _, tc := range []struct{ path, value, err string }{
		{"switch.TotalSharedBufferSize", "700XB", `switch.SharedBufferManager.TotalSharedBufferSize: unknown unit "XB" for a size (use B, KB, KiB, MB, MiB, GB, GiB) (value "700XB")`},
		{"switch.HeadRoomPerPortLimit", "-1KB", `negative size (nic.md §15 rule 5) (value "-1KB")`},
		{"switch.TotalSharedBufferSize", "5GB", `exceeds the largest switch size 4,294,967,295 B (switch.md §1, DC-21)`},
		{"switch.PoolAllocationMap", "[0.9, 0.1, 0, 0, 0, 0, 0]", `7 entries, a list needs exactly 8 (switch.md §1, §11 rule 2)`},
		{"switch.EnablePFC", "[1, 0.5, 0, 0, 0, 0, 0, 0]", `not a whole number (switch.md §1, §11 rule 1)`},
		{"nic.HostSide.LaneCount", "17", `LaneCount 17 outside 1-16 (nic.md §15 rule 4) (value "17")`},
		{"nic.NICSide.LaneCount", "0", `outside 1-16`},
		{"switch.EcmpHashMethod", "crc33", `not one of dpr, hash, hashWithSalt, crc32, crc32WithSalt, dprWithFallback (did you mean crc32?)`},
		{"switch.QueueDropThreshold", "2.5", `not a whole number`},
		{"switch.UETPolicyEnabled", "yes", `true or false`},
		{"nic.DataRate", "400", `a rate needs a unit`},
		{"switch.StaticPoolXoffThreshold", "700", `switch.SharedBufferManager.StaticPoolXoffThreshold: a size needs a unit (B, KB, KiB, MB, MiB, GB, GiB): 700B or 700KB? (value "700")`},
		{"workload.message_size", "1048576", `a size needs a unit`},
		{"duration", "1.5ps", `finer than 1 ps`},
		{"workload.mix", "[]", `list of workloads`},
		{"workload.mix.5.senders", "1", `workload.mix has 2 entries; the next one is 2`},
	} {
		err := c.Set(tc.path, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Set(%s, %s) error = %v; want %q", tc.path, tc.value, err, tc.err)
		}
	}
}

func TestLoadYAML(t *testing.T) {
	spec := `name: alpha-xoff
seed: 7
replicates: 2
duration: 2ms
stop: drain
report_interval: 100us
topology: {kind: star, hosts: 128}
workload: {kind: incast, senders: 15, message_size: 1MiB, data_tc: 0, control_tc: 1}
switch:
  LossyAlpha: 0.5
  SharedBufferManager:
    StaticPoolXoffThreshold: 400KB
    PoolAllocationMap: [0.59, 0.41, 0, 0, 0, 0, 0, 0]
  EnablePFC: "[1, 1, 0, 0, 0, 0, 0, 0]"
  NetworkInterface: {DownlinkNetworkInterface: {DataRate: 200Gbps}}
nic:
  DataRate: 200Gbps
  IngressBufferManager: {TotalBufferSize: 8MB}
  HostSide.LaneCount: 8
sweep:
  grid:
    switch.LossyAlpha: [0.25, 0.5]
`
	c, err := Load("alpha.yaml", []byte(spec))
	if err != nil {
		t.Fatal(err)
	}
	b := c.Switch.SharedBufferManager
	if c.Name != "alpha-xoff" || c.Seed != 7 || c.Duration != 2*sim.Millisecond || c.Stop != "drain" ||
		c.Global.NDStatsReportInterval != 100*sim.Microsecond || c.Topology.Hosts != 128 ||
		b.LossyAlpha != 0.5 || b.StaticPoolXoffThreshold != 400_000 || b.PoolAllocationMap != (Vec8{0.59, 0.41}) ||
		c.Switch.NetworkInterface.DownlinkNetworkInterface.DataRate != 200e9 ||
		c.NIC.NetworkInterface.UplinkNetworkInterface.DataRate != 200e9 ||
		c.NIC.NetworkInterface.IngressBufferManager.TotalBufferSize != 8_000_000 ||
		c.NIC.HostInterface.HostSide.PhysicalLayer.LaneCount != 8 {
		t.Errorf("loaded %+v", c)
	}
	mix := `workload:
  kind: mix
  mix:
    - {kind: incast, senders: 4}
    - {kind: permutation, message_size: 64KB}
`
	c, err = Load("mix.yaml", []byte(mix))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Workload.Mix) != 2 || c.Workload.Mix[0].Senders != 4 || c.Workload.Mix[1].MessageSize != 64_000 || c.Workload.Mix[1].Kind != "permutation" {
		t.Errorf("mix %+v", c.Workload.Mix)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("mix validate: %v", err)
	}
}

func TestLoadYAMLErrors(t *testing.T) {
	for _, tc := range []struct{ spec, err string }{
		{"switch:\n  LossyAlpa: 1\n", `bad.yaml:2:3: switch.LossyAlpa: unknown attribute (did you mean switch.LossyAlpha?)`},
		{"switch: {TotalSharedBufferSize: 700XB}\n", `bad.yaml:1:33: switch.TotalSharedBufferSize: unknown unit "XB"`},
		{"nic:\n  HostSide:\n    LaneCount: 17\n", `bad.yaml:3:16: nic.HostSide.LaneCount: LaneCount 17 outside 1-16 (nic.md §15 rule 4) (value "17")`},
		{"switch:\n  PoolAllocationMap: [0.9, 0.1, 0, 0, 0, 0, 0]\n", `bad.yaml:2:22: switch.PoolAllocationMap: 7 entries, a list needs exactly 8`},
		{"switch:\n  HeadRoomPerPortLimit: -5KB\n", `bad.yaml:2:25: switch.HeadRoomPerPortLimit: negative size`},
		{"topolgy: {hosts: 4}\n", `bad.yaml:1:1: topolgy: unknown key (did you mean topology?)`},
		{"switch:\n  SharedBuferManager: {LossyAlpha: 1}\n", `bad.yaml:2:3: switch.SharedBuferManager: unknown component (did you mean switch.SharedBufferManager?)`},
		{"switch:\n  DataRate: 100Gbps\n", `bad.yaml:2:3: switch.DataRate: ambiguous attribute`},
		{"switch:\n  LossyAlpha: 1\n  SharedBufferManager: {LossyAlpha: 2}\n", `bad.yaml:3:25: switch.SharedBufferManager.LossyAlpha: set twice (first at line 2:3)`},
		{"switch:\n  LossyAlpha:\n", `bad.yaml:2:14: switch.LossyAlpha: no value`},
		{"switch:\n  LossyAlpha: [1, 2]\n", `a list where a double is expected`},
		{"switch: 5\n", `bad.yaml:1:9: switch: switch takes a mapping of attributes`},
		{"switch: {LossyAlpha: 1\n", `bad.yaml:1: YAML syntax: did not find expected`},
		{"workload:\n  mix:\n    - {kind: incast, sendrs: 4}\n", `bad.yaml:3:22: workload.mix.0.sendrs: unknown workload key (did you mean senders?)`},
		{"workload:\n  mix:\n    - {kind: incast, senders: x}\n", `bad.yaml:3:31: workload.mix.0.senders: not a whole number (value "x")`},
		{"- 1\n- 2\n", `bad.yaml:1:1: the spec must be a mapping`},
	} {
		_, err := Load("bad.yaml", []byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error\n  %v\nwant\n  %s", tc.spec, err, tc.err)
		}
	}
	// Several problems are all reported.
	_, err := Load("bad.yaml", []byte("switch: {LossyAlpa: 1, PlaneBDP: 1XB}\n"))
	if err == nil || !strings.Contains(err.Error(), "LossyAlpa") || !strings.Contains(err.Error(), "PlaneBDP") {
		t.Errorf("joined errors: %v", err)
	}
}

func TestConnectedPorts(t *testing.T) {
	sw := DefaultSwitch()
	for _, tc := range []struct {
		t    Topology
		want []int
	}{
		{Topology{Kind: "star", Hosts: 128}, []int{128}},
		{Topology{Kind: "leaf-spine", Leaves: 4, Spines: 2, HostsPerLeaf: 16}, []int{16 + 2*8, 4 * 8}},
		{Topology{Kind: "leaf-spine", Leaves: 4, Spines: 2, HostsPerLeaf: 16, UplinksPerSpine: 1}, []int{18, 4}},
		{Topology{Kind: "fat-tree", K: 8}, []int{8, 8, 8}},
	} {
		got := ConnectedPorts(tc.t, &sw)
		if len(got) != len(tc.want) {
			t.Errorf("%+v: %v, want %v", tc.t, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%+v: %v, want %v", tc.t, got, tc.want)
			}
		}
		if len(SwitchTiers(tc.t)) != len(got) {
			t.Errorf("%+v: tiers %v", tc.t, SwitchTiers(tc.t))
		}
	}
}

// TestValidate: one row per run-stopping rule; each error names the attribute path, the
// value and the rule.
func TestValidate(t *testing.T) {
	if err := func() error { c := Default(); return c.Validate() }(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	for _, tc := range []struct {
		name string
		sets [][2]string
		err  string
	}{
		{"11.1 whole", nil, ""},
		{"11.4 excess", [][2]string{{"switch.PoolAllocationMap", "[1.5, 0.1, 0, 0, 0, 0, 0, 0]"}},
			"switch.SharedBufferManager.PoolAllocationMap: entries sum to 1.6; the excess 0.6 is larger than the last non-zero entry 0.1 (pool 1) (value [1.5, 0.1, 0, 0, 0, 0, 0, 0]) (switch.md §11 rule 4, DC-20)"},
		{"11.4 accepted", [][2]string{{"switch.PoolAllocationMap", "[0.9, 0.2, 0, 0, 0, 0, 0, 0]"}}, ""},
		{"11.3 all zero", [][2]string{{"switch.PoolAllocationMap", "[0, 0, 0, 0, 0, 0, 0, 0]"}}, "no non-zero entry: no pool"},
		{"11.5 headroom", [][2]string{{"topology.hosts", "128"}, {"switch.HeadRoomPerPortLimit", "2.5MB"}},
			"switch.SharedBufferManager.HeadRoomPerPortLimit: headroom 2,500,000 B × 128 ports = 320,000,000 B exceeds TotalSharedBufferSize 256,000,000 B (value 2500KB) (switch.md §11 rule 5)"},
		{"11.5 equality ok", [][2]string{{"topology.hosts", "128"}, {"switch.HeadRoomPerPortLimit", "2MB"}}, ""},
		{"11.6 flowlet dpr", [][2]string{{"switch.LoadBalancingMethod", "flowlet"}, {"switch.EcmpHashMethod", "dpr"}},
			"switch.LoadBalancingMethod: flowlet load balancing cannot run with switch.EcmpHashMethod dpr"},
		{"11.6 flowlet dprWithFallback", [][2]string{{"switch.LoadBalancingMethod", "flowlet"}, {"switch.EcmpHashMethod", "dprWithFallback"}}, "switch.md §11 rule 6"},
		{"11.7 gap", [][2]string{{"switch.Gap", "3s"}}, "switch.LoadBalancingFlowlet.Gap: Gap outside 0s..2s (value 3s) (switch.md §11 rule 7)"},
		{"11.8 lb interval", [][2]string{{"switch.LoadBalancingStatsReportInterval", "5us"}}, "(switch.md §11 rule 8)"},
		{"11.9 uet", [][2]string{{"switch.UETPolicyEnabled", "true"}}, "nic.md §15 rule 7, switch.md §11 rule 9"},
		{"11.10 trimming", [][2]string{{"switch.TrimmingEnabled", "true"}, {"switch.EnablePFC", "[0, 0, 0, 0, 0, 0, 0, 0]"}}, "switch.md §11 rule 10"},
		{"11.11 trimming pfc", [][2]string{{"switch.TrimmingEnabled", "true"}}, "switch.md §11 rule 11"},
		{"DC-21 mapping", [][2]string{{"switch.TrafficClassPoolMapping", "[0, 8, 0, 0, 0, 0, 0, 0]"}}, "outside 0..7"},
		{"DC-21 pfc", [][2]string{{"switch.EnablePFC", "[1, 2, 0, 0, 0, 0, 0, 0]"}}, "EnablePFC entries are 0 or 1"},
		{"DC-21 map range", [][2]string{{"switch.PoolAllocationMap", "[0.9, -0.1, 0, 0, 0, 0, 0, 0.2]"}}, "fractions are 0..1"},
		{"nic 15.1 contiguous", [][2]string{{"nic.IngressBufferManager.PoolAllocationVector", "[0, 0.5, 0.5, 0, 0, 0, 0, 0]"}}, "contiguous from TC 0"},
		{"nic 15.1 negative", [][2]string{{"nic.EgressBufferManager.PoolAllocationVector", "[0.9, -0.1, 0, 0, 0, 0, 0, 0]"}}, "entry 1 is negative"},
		{"nic 15.1 zero", [][2]string{{"nic.EgressBufferManager.PoolAllocationVector", "[0, 0, 0, 0, 0, 0, 0, 0]"}}, "nic.NetworkInterface.EgressBufferManager.PoolAllocationVector: no non-zero entry"},
		{"nic 15.3 mss 4126", [][2]string{{"nic.MSS", "4126"}},
			"nic.RoceQpManager.MSS: MSS 4,126 B + 58 = 4,184 B is not below global.Mtu 4,184 B (largest MSS 4,125 B) (value 4126B) (nic.md §15 rule 3, §6)"},
		{"nic 15.3 mss 4125", [][2]string{{"nic.MSS", "4125"}}, ""},
		{"mtu and mss bare bytes", [][2]string{{"global.Mtu", "9000"}, {"nic.MSS", "8192"}}, ""},
		{"lossy alpha negative", [][2]string{{"switch.LossyAlpha", "-1"}},
			"switch.SharedBufferManager.LossyAlpha: outside its domain: want 0 (a fixed limit) or more (value -1) (switch.md §3.5, §4.4)"},
		{"lossy alpha zero", [][2]string{{"switch.LossyAlpha", "0"}}, ""},
		{"mark probability", [][2]string{{"switch.MaxMarkProbability", "1.5"}}, "switch.EcnHandler.MaxMarkProbability: outside its domain: want a probability in [0, 1] (value 1.5) (switch.md §3.6)"},
		{"ewma weight", [][2]string{{"switch.EwmaWeight", "-0.1"}}, "want a weight in [0, 1]"},
		{"min threshold", [][2]string{{"switch.MinThreshold", "-0.2"}}, "EcnHandler.MinThreshold: outside its domain"},
		{"nic rate floor", [][2]string{{"nic.MinimumRatePercentage", "1.1"}}, "nic.ECNHandler.MinimumRatePercentage: outside its domain: want a fraction of the line rate in [0, 1] (value 1.1) (nic.md §14)"},
		{"nic g", [][2]string{{"nic.CongestionProbabilityWeight", "2"}}, "(nic.md §14)"},
		{"nic 15.3 mss range", [][2]string{{"nic.MSS", "0"}, {"global.Mtu", "9300"}}, "outside 1-9,216 B"},
		{"topology", [][2]string{{"topology.hosts", "0"}}, "topology.hosts: must be at least 1"},
		{"fat-tree k", [][2]string{{"topology.kind", "fat-tree"}, {"topology.k", "5"}}, "even k"},
		{"incast senders", [][2]string{{"topology.hosts", "4"}}, "workload.senders: an incast into one of 4 hosts has 1..3 senders (value 15)"},
		{"duration", [][2]string{{"duration", "0"}}, "duration: duration must be above 0"},
		{"mix empty", [][2]string{{"workload.kind", "mix"}}, "kind mix needs a list"},
		{"data tc", [][2]string{{"workload.data_tc", "8"}}, "workload.data_tc"},
		{"rounds", [][2]string{{"workload.rounds", "20"}, {"workload.period", "50us"}}, ""},
		{"rounds one no period", [][2]string{{"workload.rounds", "1"}}, ""},
		{"rounds without period", [][2]string{{"workload.rounds", "3"}},
			"workload.period: 3 rounds need a period > 0 between their starts (value 0s) (design.md)"},
		{"rounds negative", [][2]string{{"workload.rounds", "-1"}}, "workload.rounds: rounds cannot be negative (0 or 1: one round) (value -1)"},
		{"rounds permutation", [][2]string{{"workload.kind", "permutation"}, {"workload.rounds", "2"}, {"workload.period", "1us"}},
			"workload.rounds: only an incast repeats in rounds (value 2)"},
		{"rounds collective", [][2]string{{"workload.kind", "allreduce"}, {"workload.rounds", "2"}, {"workload.period", "1us"}},
			"a collective repeats with iterations and gap"},
		{"rounds mix entry", [][2]string{{"workload.kind", "mix"}, {"workload.mix.0.kind", "incast"}, {"workload.mix.0.rounds", "2"}},
			"workload.mix.0.period: 2 rounds need a period > 0"},
		{"rounds on a mix", [][2]string{{"workload.kind", "mix"}, {"workload.mix.0.kind", "incast"}, {"workload.rounds", "2"}, {"workload.period", "1us"}},
			"workload.rounds: a mix does not repeat; set rounds on its incast entries (workload.mix.N.rounds) (value 2)"},
		{"leaf-spine headroom", [][2]string{{"topology.kind", "leaf-spine"}, {"topology.leaves", "4"}, {"topology.spines", "32"}, {"topology.hosts_per_leaf", "4"}, {"switch.HeadRoomPerPortLimit", "1MB"}},
			"on a leaf switch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			for _, kv := range tc.sets {
				if err := c.Set(kv[0], kv[1]); err != nil {
					t.Fatal(err)
				}
			}
			err := c.Validate()
			if tc.err == "" {
				if err != nil {
					t.Fatalf("unexpected: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error\n  %v\nwant\n  %s", err, tc.err)
			}
			var r *Rule
			if !errors.As(err, &r) || r.Path == "" || r.Ref == "" {
				t.Errorf("not a Rule with path and ref: %#v", err)
			}
		})
	}
}

// A negative period cannot be written in a spec (times are refused below 0 when set);
// a Config built in code is refused by Validate.
func TestValidateNegativePeriod(t *testing.T) {
	c := Default()
	c.Workload.Period = -sim.Microsecond
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "workload.period: negative time (value -1us)") {
		t.Fatalf("Validate() = %v, want workload.period: negative time", err)
	}
}

func TestValidateSwitchDirect(t *testing.T) {
	sw := DefaultSwitch()
	sw.SharedBufferManager.TotalSharedBufferSize = 5_000_000_000
	err := ValidateSwitch(&sw, 128)
	if err == nil || !strings.Contains(err.Error(), "5,000,000,000 B exceeds the largest switch size") {
		t.Errorf("bytes cap: %v", err)
	}
	sw = DefaultSwitch()
	sw.SharedBufferManager.EnablePFC[3] = 0.5
	if err := ValidateSwitch(&sw, 16); err == nil || !strings.Contains(err.Error(), "switch.md §11 rule 1") {
		t.Errorf("whole: %v", err)
	}
	n, g := DefaultNIC(), DefaultGlobal()
	n.HostInterface.NICSide.PhysicalLayer.LaneCount = 17
	n.NetworkInterface.IngressBufferManager.QuantaValue[0] = 1.5
	err = ValidateNIC(&n, &g, false)
	if err == nil || !strings.Contains(err.Error(), "LaneCount outside 1-16") || !strings.Contains(err.Error(), "QuantaValue") {
		t.Errorf("nic: %v", err)
	}
}
