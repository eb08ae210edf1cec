package explain

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

// explainSets explains the defaults with each "path=value" set in order.
func explainSets(t *testing.T, sets ...string) (Explanation, []string) {
	t.Helper()
	c := config.Default()
	for _, s := range sets {
		path, value, _ := strings.Cut(s, "=")
		if err := c.Set(path, value); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	ex, ws, err := Explain(&c)
	if err != nil {
		t.Fatalf("%v: %v", sets, err)
	}
	return ex, Messages(ws)
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// pool returns the explained pool p of s.
func pool(t *testing.T, s Switch, p int) Pool {
	t.Helper()
	for _, x := range s.Pools {
		if x.Pool == p {
			return x
		}
	}
	t.Fatalf("no pool %d in %+v", p, s.Pools)
	return Pool{}
}

func hasWarning(ws []string, part string) bool {
	return slices.ContainsFunc(ws, func(w string) bool { return strings.Contains(w, part) })
}

// TestSwitch128 reproduces switch.md §12.1, §12.2 for the 128-port default switch in all
// three egress-limit forms.
func TestSwitch128(t *testing.T) {
	type poolWant struct {
		size, static   int64
		perPort        int64 // -1 = null (dynamic)
		ecnMin, ecnMax float64
		lossless       []int
		lossy          []int
		fits           bool
	}
	for _, tc := range []struct {
		name  string
		sets  []string
		form  string
		pools []poolWant
	}{
		{"12.2 alpha=1", nil, "dynamic", []poolWant{
			{200_908_800, 200_908_800, -1, 40_181_760, 160_727_040, []int{0}, []int{2, 3, 4, 5, 6, 7}, true},
			{22_323_200, 22_323_200, -1, 4_464_640, 17_858_560, []int{1}, []int{}, false},
		}},
		{"12.2 alpha=0 QDTE false", []string{"switch.LossyAlpha=0"}, "even_split", []poolWant{
			{200_908_800, 1_569_600, 1_569_600, 313_920, 1_255_680, []int{0}, []int{2, 3, 4, 5, 6, 7}, true},
			{22_323_200, 174_400, 174_400, 34_880, 139_520, []int{1}, []int{}, false},
		}},
		{"12.2 alpha=0 QDTE true", []string{"switch.LossyAlpha=0", "switch.QueueDropThresholdEnable=true"}, "fixed_cap", []poolWant{
			{200_908_800, 1_500_000, 1_500_000, 300_000, 1_200_000, []int{0}, []int{2, 3, 4, 5, 6, 7}, true},
			{22_323_200, 1_500_000, 1_500_000, 300_000, 1_200_000, []int{1}, []int{}, false},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, ws := explainSets(t, append([]string{"topology.hosts=128"}, tc.sets...)...)
			s := ex.Switch
			if s.ConnectedPorts != 128 || s.HeadroomPerPort != 256_000 || s.HeadroomTotal != 32_768_000 || s.SizingTotal != 223_232_000 ||
				s.Xoff != 700_000 || s.Xon != 300_000 || s.EgressLimitForm != tc.form || s.LargestPacket != 4136 {
				t.Errorf("switch %+v", s)
			}
			if ex.Switches != nil || len(ex.Tiers()) != 1 {
				t.Errorf("star has one tier, got switches %+v", ex.Switches)
			}
			if len(s.Pools) != 2 {
				t.Fatalf("pools %+v", s.Pools)
			}
			for i, w := range tc.pools {
				p := pool(t, s, i)
				if p.Size != w.size || p.StaticLimit != w.static || !near(p.EcnMin, w.ecnMin, 1e-6) || !near(p.EcnMax, w.ecnMax, 1e-6) {
					t.Errorf("pool %d: %+v, want %+v", i, p, w)
				}
				if (w.perPort < 0) != (p.PerPortLimit == nil) || (p.PerPortLimit != nil && *p.PerPortLimit != w.perPort) {
					t.Errorf("pool %d per-port limit %v, want %d", i, p.PerPortLimit, w.perPort)
				}
				if !slices.Equal(p.LosslessClasses, w.lossless) || !slices.Equal(p.LossyClasses, w.lossy) {
					t.Errorf("pool %d classes %v / %v", i, p.LosslessClasses, p.LossyClasses)
				}
				if p.LosslessFits == nil || *p.LosslessFits != w.fits {
					t.Errorf("pool %d lossless_fits %v, want %v", i, p.LosslessFits, w.fits)
				}
			}
			// Switch–NIC link: min(400, 400) Gbps, the NIC's 100 ns Delay (records.md §2).
			if !near(s.PauseTimeNs, 83_984.8, 1e-6) || !near(s.RefreshNs, 41_992.4, 1e-6) || !strings.Contains(s.PauseLink, "rack-nic") {
				t.Errorf("pause %v / %v on %q", s.PauseTimeNs, s.RefreshNs, s.PauseLink)
			}
			// Pool 1 at 128 ports fails condition 2: 128 × (700,000 + 4,136) B.
			want := "rack switch pool 1 (22,323,200 B) fails sizing condition 2: 128 ports × (Xoff 700,000 + largest packet 4,136) = 90,129,408 B; lossless TC1 can be dropped at ingress (switch.md §4.6)"
			if !slices.Contains(ws, want) {
				t.Errorf("warnings %q lack %q", ws, want)
			}
		})
	}
}

// TestSwitchDerived covers switch.md §12.5 fix (a), §12.6 and §12.7.
func TestSwitchDerived(t *testing.T) {
	// switch.md §12.7 unbalanced map: residue to the last pool; ECN band from the corrected
	// pool (DC-4), 20% and 80% of 111,616,000 B.
	ex, ws := explainSets(t, "topology.hosts=128", "switch.PoolAllocationMap=[0.5, 0.3, 0, 0, 0, 0, 0, 0]")
	p0, p1 := pool(t, ex.Switch, 0), pool(t, ex.Switch, 1)
	if p0.Size != 111_616_000 || p1.Nominal != 66_969_600 || p1.Size != 111_616_000 || p1.EcnMin != 22_323_200 || p1.EcnMax != 89_292_800 {
		t.Errorf("unbalanced map: %+v %+v", p0, p1)
	}
	if !hasWarning(ws, "sums to 0.8, not 1") {
		t.Errorf("no map-sum warning: %v", ws)
	}
	// switch.md §12.5 fix (a): pool 1 = 91,525,120, pool 0 = 131,706,880; both lossless pools fit.
	ex, _ = explainSets(t, "topology.hosts=128", "switch.PoolAllocationMap=[0.59, 0.41, 0, 0, 0, 0, 0, 0]")
	p0, p1 = pool(t, ex.Switch, 0), pool(t, ex.Switch, 1)
	if p0.Size != 131_706_880 || p1.Size != 91_525_120 || !*p0.LosslessFits || !*p1.LosslessFits || p1.LosslessNeeds != 128*704_136 {
		t.Errorf("fix (a): %+v %+v", p0, p1)
	}
	// switch.md §12.6: 400 Gbps, 500 ns on a switch–switch link = 84.3848 us, refresh 42.1924 us.
	ex, _ = explainSets(t, "topology.kind=leaf-spine", "topology.leaves=4", "topology.spines=2", "topology.hosts_per_leaf=16")
	if len(ex.Switches) != 2 || ex.Switches[0].Tier != "leaf" || ex.Switches[1].Tier != "spine" || ex.Switch.Tier != "leaf" {
		t.Fatalf("tiers %+v", ex.Switches)
	}
	leaf, spine := ex.Switches[0], ex.Switches[1]
	if leaf.ConnectedPorts != 16+2*8 || spine.ConnectedPorts != 4*8 || leaf.Count != 4 || spine.Count != 2 {
		t.Errorf("ports leaf %d spine %d", leaf.ConnectedPorts, spine.ConnectedPorts)
	}
	if len(leaf.Links) != 2 || leaf.Links[1].Link != "leaf-spine" || leaf.Links[1].Ports != 16 || !near(leaf.Links[1].PauseTimeNs, 84_384.8, 1e-6) || !near(leaf.Links[1].RefreshNs, 42_192.4, 1e-6) {
		t.Errorf("leaf links %+v", leaf.Links)
	}
	if !near(spine.PauseTimeNs, 84_384.8, 1e-6) || ex.Topology != (Topology{Kind: "leaf-spine", Hosts: 64, Switches: 6}) {
		t.Errorf("spine pause %v, topology %+v", spine.PauseTimeNs, ex.Topology)
	}
}

// TestUET reproduces switch.md §12.7 UET policy numbers (trimming off and on). The UET
// policy cannot run with this NIC (nic.md §15 rule 7): Explain gives the numbers and a
// warning, not an error.
func TestUET(t *testing.T) {
	c := config.Default()
	c.Topology.Hosts = 128
	c.Switch.SharedBufferManager.UETPolicyEnabled = true
	ex, ws, err := Explain(&c)
	if err != nil {
		t.Fatal(err)
	}
	s := ex.Switch
	if len(s.Pools) != 3 || s.EgressLimitForm != "fixed_cap" || !s.UETPolicy {
		t.Fatalf("uet %+v", s)
	}
	for p, want := range []int64{95_670_857, 63_780_571, 63_780_572} {
		got := pool(t, s, p)
		if got.Size != want || *got.PerPortLimit != 1_500_000 || *got.RetxLimit != 2_250_000 {
			t.Errorf("pool %d: %+v, want size %d", p, got, want)
		}
	}
	if len(ws) == 0 || ws[0].Rule != config.RefUETWithRoCE || ws[0].Path != "switch.SharedBufferManager.UETPolicyEnabled" ||
		!strings.HasPrefix(ws[0].Message, "a run would stop: switch.SharedBufferManager.UETPolicyEnabled: a switch with the UET policy") {
		t.Errorf("no UET warning first: %+v", ws)
	}
	// The same rule next to another broken rule: the other is an error, naming it.
	c.Global.Mtu = 0
	if _, _, err := Explain(&c); err == nil || !strings.Contains(err.Error(), "global.Mtu") || strings.Contains(err.Error(), "UET") {
		t.Errorf("Mtu 0 with UET: err %v, want the Mtu rule alone", err)
	}
	ex, _ = explainSets(t, "topology.hosts=128", "switch.UETPolicyEnabled=true", "switch.TrimmingEnabled=true", "switch.EnablePFC=[0, 0, 0, 0, 0, 0, 0, 0]")
	got := pool(t, ex.Switch, 0)
	if *got.PerPortLimit != 300_000 || *got.RetxLimit != 450_000 {
		t.Errorf("trimming: %+v", got)
	}
}

// TestNIC reproduces nic.md §17 at defaults.
func TestNIC(t *testing.T) {
	ex, _ := explainSets(t, "topology.hosts=128")
	n := ex.NIC
	if n.LineRateGbps != 400 || n.EgressPools[0] != 230_400 || n.EgressPools[1] != 25_600 || n.EgressPools[2] != 0 ||
		n.IngressPools[0] != 3_600_000 || n.IngressPools[1] != 400_000 ||
		n.Xoff[0] != 2_880_000 || n.Xoff[1] != 320_000 || n.Xon[0] != 1_440_000 || n.Xon[1] != 160_000 ||
		n.Headroom[0] != 720_000 || n.Headroom[1] != 80_000 {
		t.Errorf("pools %+v", n)
	}
	if !near(n.PauseTimeNs, 83_984.8, 1e-6) || !near(n.RefreshNs, 41_992.4, 1e-6) {
		t.Errorf("pause %v refresh %v", n.PauseTimeNs, n.RefreshNs)
	}
	if n.HeadroomGuidance != 18_368 || n.DataPacketBytes != 4_154 {
		t.Errorf("guidance %d data %d", n.HeadroomGuidance, n.DataPacketBytes)
	}
	if !near(n.PCIePayloadGbps, 472.9, 0.05) || !near(n.NetworkPayloadGbps, 394.4, 0.05) {
		t.Errorf("rates %v %v", n.PCIePayloadGbps, n.NetworkPayloadGbps)
	}
	// PCIe 3.0 lanes: 118.2 Gbps payload, PCIe-bound → warning (nic.md §17).
	ex, ws := explainSets(t, "nic.HostSide.LaneBps=7.88Gbps", "nic.NICSide.LaneBps=7.88Gbps")
	if !near(ex.NIC.PCIePayloadGbps, 118.2, 0.05) || !slices.Contains(ws, "nic: PCIe payload rate 118.2 Gbps is below the network payload rate 394.4 Gbps: PCIe-bound, ingress pools fill and PFC engages (nic.md §17)") {
		t.Errorf("pcie3: %v %v", ex.NIC.PCIePayloadGbps, ws)
	}
	// The guidance is condition 1 on the NIC's link, rounded up like the switch's: 0.1 B
	// of wire at 400 Gbps and 1 ps is a byte. The warning compares with the same figure.
	ex, ws = explainSets(t, "nic.Delay=1ps", "nic.PfcStaticXoffThreshold=[0.998, 0.8, 0, 0, 0, 0, 0, 0]")
	if ex.NIC.HeadroomGuidance != 1+8368 || !hasWarning(ws, "nic TC 0: headroom 7,200 B is under the guidance 8,369 B") {
		t.Errorf("guidance %d, warnings %q", ex.NIC.HeadroomGuidance, ws)
	}
	// L = min(NIC, switch downlink).
	if ex, _ := explainSets(t, "switch.DownlinkNetworkInterface.DataRate=100Gbps"); ex.NIC.LineRateGbps != 100 {
		t.Errorf("L = %v", ex.NIC.LineRateGbps)
	}
}

// A tier's uplink sets the rate and delay of the cables from it up; the pause time
// (65,535 × 512 bit / rate + Delay, switch.md §7.1), its refresh (half, §7.2) and the
// headroom a port needs (2 × rate × Delay / 8 + 2 × Mtu, §4.6 condition 1) follow, on both
// ends of those cables, while host links keep the NIC's. 100 m of fibre is 500 ns, 2 km
// is 10 us.
func TestTierUplinks(t *testing.T) {
	base := []string{"topology.kind=leaf-spine", "topology.leaves=2", "topology.spines=2", "topology.hosts_per_leaf=4",
		"topology.uplinks_per_spine=1", "workload.senders=7", "tiers.rack.uplink.rate=800Gbps", "tiers.spine.switch.TotalSharedBufferSize=64MB"}
	for _, tc := range []struct {
		delay   string
		pauseNs float64
		needed  int64
	}{
		{"500ns", 65535*512/800.0 + 500, 100_000 + 2*4184},
		{"10us", 65535*512/800.0 + 10_000, 2_000_000 + 2*4184}, // float seconds gave 2,000,001
	} {
		ex, ws := explainSets(t, append(base, "tiers.rack.uplink.delay="+tc.delay)...)
		if len(ex.Switches) != 2 {
			t.Fatalf("%d switch sections", len(ex.Switches))
		}
		found := 0
		for _, s := range ex.Switches {
			for _, l := range s.Links {
				if l.Link == "leaf-nic" {
					// Host links: NIC rate and Delay, untouched.
					if l.RateGbps != 400 || l.DelayNs != 100 || !near(l.PauseTimeNs, 65535*512/400.0+100, 1e-6) || l.HeadroomNeeded != 18_368 {
						t.Errorf("%s: leaf-nic %+v", tc.delay, l)
					}
					continue
				}
				found++
				if l.RateGbps != 800 || !near(l.PauseTimeNs, tc.pauseNs, 1e-6) || !near(l.RefreshNs, tc.pauseNs/2, 1e-6) ||
					l.HeadroomNeeded != tc.needed || l.DelayOf != "tiers.rack.uplink.delay" {
					t.Errorf("%s: %s link %+v; want pause %g ns, refresh %g, headroom needed %d", tc.delay, l.Link, l, tc.pauseNs, tc.pauseNs/2, tc.needed)
				}
			}
			if s.Tier == "spine" && s.Config != "switch + tiers.spine (TotalSharedBufferSize 64MB)" {
				t.Errorf("spine config %q", s.Config)
			}
			if s.Tier == "leaf" && s.Config != "switch + tiers.rack (uplink.rate 800Gbps, uplink.delay "+tc.delay+")" {
				t.Errorf("leaf config %q", s.Config)
			}
		}
		if found != 2 {
			t.Errorf("%s: %d leaf-spine link kinds, want 2 (one per end)", tc.delay, found)
		}
		// 2 km needs 2,008,368 B per port, over the default 256,000 B headroom: warned,
		// naming the tier's own attribute.
		want := "leaf switch: HeadRoomPerPortLimit 256,000 B is below the 2,008,368 B a leaf-spine link needs (2 × rate × Delay / 8 + 2 × Mtu, switch.md §4.6 condition 1)"
		if warned := slices.Contains(ws, want); warned != (tc.delay == "10us") {
			t.Errorf("%s: condition 1 warning %v in %q", tc.delay, warned, ws)
		}
	}
}

// A lossy incast with every source of desynchronisation off is warned about (spec.md
// "Desynchronised senders"); a lossless incast, or either setting on, is not.
func TestPhaseLockWarning(t *testing.T) {
	lossy := []string{"workload.data_tc=2", "nic.IngressBufferManager.PoolAllocationVector=[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
		"nic.EgressBufferManager.PoolAllocationVector=[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]"}
	for _, tc := range []struct {
		name string
		sets []string
		want bool
	}{
		{"lossless incast", nil, false},
		{"lossy incast", lossy, true},
		{"lossy incast, clock tolerance", append(slices.Clone(lossy), "nic.ClockTolerancePpm=100"), false},
		{"lossy incast, tx jitter", append(slices.Clone(lossy), "nic.TxJitter=5ns"), false},
		{"lossy permutation", append(slices.Clone(lossy), "workload.kind=permutation"), false},
	} {
		_, ws := explainSets(t, tc.sets...)
		if got := hasWarning(ws, "desynchronisation off"); got != tc.want {
			t.Errorf("%s: phase-lock warning %v, want %v: %q", tc.name, got, tc.want, ws)
		}
	}
}

// The sizing and setting warnings together, each once, with their paths and rules:
// what validate, run, slurm, sim and explain all print.
func TestWarningsTyped(t *testing.T) {
	c := config.Default()
	for _, s := range []string{"topology.hosts=128", "switch.StaticPoolXonThreshold=700KB",
		"nic.PfcStaticXoffThreshold=[0.999, 0.8, 0, 0, 0, 0, 0, 0]", "switch.PoolAllocationMap=[0.8, 0.1, 0, 0, 0, 0, 0, 0]"} {
		path, value, _ := strings.Cut(s, "=")
		if err := c.Set(path, value); err != nil {
			t.Fatal(err)
		}
	}
	_, ws, err := Explain(&c)
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{"switch.SharedBufferManager.PoolAllocationMap", "switch.md §4.6", "rack switch pool 1 (44,646,400 B) fails sizing condition 2: 128 ports × (Xoff 700,000 + largest packet 4,136) = 90,129,408 B; lossless TC1 can be dropped at ingress (switch.md §4.6)"}, // 0.1 and the 0.1 residue (§4.2)
		{"switch.SharedBufferManager.StaticPoolXonThreshold", "switch.md §4.5, §11.1", "switch.StaticPoolXonThreshold 700,000 B ≥ StaticPoolXoffThreshold 700,000 B: no hysteresis, ports flap pause/resume per packet (switch.md §4.5, §11.1)"},
		{"switch.SharedBufferManager.PoolAllocationMap", "switch.md §4.2, §11.1", "switch.PoolAllocationMap [0.8, 0.1, 0, 0, 0, 0, 0, 0] sums to 0.9, not 1: the residue goes to the last non-zero pool (switch.md §4.2, §11.1)"},
		{"nic.NetworkInterface.IngressBufferManager.PfcStaticXoffThreshold", "nic.md §12.4, §15", "nic TC 0: headroom 3,600 B is under the guidance 18,368 B (2 × L × Delay / 8 + 2 × Mtu): expect rx_drops when pauses go out (nic.md §12.4, §15)"},
	}
	if !slices.Equal(ws, want) {
		t.Errorf("warnings\n  %q\nwant\n  %q", ws, want)
	}
	// Every warning a user reads names the rule it cites.
	for _, w := range ws {
		if !strings.Contains(w.Message, strings.Split(w.Rule, ",")[0]) || w.Path == "" {
			t.Errorf("%+v: message does not cite its rule, or no path", w)
		}
	}
}

// Tiers with their own switch block warn with their own paths; a setting all tiers
// share is warned once.
func TestWarningsOncePerMessage(t *testing.T) {
	_, ws := explainSets(t, "topology.kind=fat-tree", "topology.k=4", "workload.senders=15", "switch.StaticPoolXonThreshold=800KB",
		"tiers.spine.switch.LossyAlpha=0.5")
	n, m := 0, 0
	for _, w := range ws {
		if strings.HasPrefix(w, "switch.StaticPoolXonThreshold") {
			n++
		}
		if strings.HasPrefix(w, "tiers.spine.switch.StaticPoolXonThreshold") {
			m++
		}
	}
	if n != 1 || m != 1 {
		t.Errorf("%d switch. and %d tiers.spine.switch. Xon warnings, want 1 and 1: %q", n, m, ws)
	}
}

// A rate above 10¹⁸ bit/s saturates the guidance instead of printing a negative byte
// count in a warning.
func TestWarningsDoNotOverflow(t *testing.T) {
	c := config.Default()
	for _, set := range []string{"nic.DataRate=1e18Gbps", "switch.DownlinkNetworkInterface.DataRate=1e18Gbps", "switch.UplinkNetworkInterface.DataRate=1e18Gbps"} {
		path, value, _ := strings.Cut(set, "=")
		if err := c.Set(path, value); err != nil {
			t.Fatalf("%s: %v", set, err)
		}
	}
	ws := Messages(Warnings(&c))
	for _, w := range ws {
		if strings.Contains(w, "-9,223,372,036,854,775,808") {
			t.Errorf("overflow in %q", w)
		}
	}
	if !hasWarning(ws, "under the guidance 9,223,372,036,854,775,807 B") {
		t.Errorf("no saturated headroom guidance warning: %q", ws)
	}
}

func TestTCs(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{{nil, "-"}, {[]int{1}, "TC1"}, {[]int{0, 2, 3, 4, 7}, "TC0,TC2–4,TC7"}, {[]int{2, 3, 4, 5, 6, 7}, "TC2–7"}} {
		if got := TCs(tc.in); got != tc.want {
			t.Errorf("TCs(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Tiers of one buffer set-up (one section of the sheet) give their pools' warnings once,
// naming every tier; a tier with its own block gives its own.
func TestSectionWarnings(t *testing.T) {
	base := []string{"topology.kind=fat-tree", "topology.k=4", "workload.senders=15", "switch.TotalSharedBufferSize=2MB",
		"switch.HeadRoomPerPortLimit=100KB", "switch.StaticPoolXoffThreshold=100KB", "switch.StaticPoolXonThreshold=50KB"}
	cond2 := func(ws []string) (out []string) {
		for _, w := range ws {
			if strings.Contains(w, "fails sizing condition 2") {
				out = append(out, w[:strings.Index(w, " (")])
			}
		}
		return out
	}
	ex, ws := explainSets(t, base...)
	if got := Sections(ex.Tiers()); len(got) != 1 || !slices.Equal(got[0], []int{0, 1, 2}) {
		t.Errorf("sections %v, want [[0 1 2]]", got)
	}
	if got, want := cond2(ws), []string{"edge, aggregation and core switch pool 1"}; !slices.Equal(got, want) {
		t.Errorf("condition 2 warnings %q, want %q", got, want)
	}
	ex, ws = explainSets(t, append(base, "tiers.spine.switch.LossyAlpha=0.5")...)
	if got := Sections(ex.Tiers()); len(got) != 2 || !slices.Equal(got[0], []int{0, 1}) || !slices.Equal(got[1], []int{2}) {
		t.Errorf("sections %v, want [[0 1] [2]]", got)
	}
	if got, want := cond2(ws), []string{"edge and aggregation switch pool 1", "core switch pool 1"}; !slices.Equal(got, want) {
		t.Errorf("condition 2 warnings %q, want %q", got, want)
	}
	for _, tc := range []struct {
		in   []string
		want string
	}{{nil, ""}, {[]string{"leaf"}, "leaf"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"}} {
		if got := And(tc.in); got != tc.want {
			t.Errorf("And(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
