package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runExplain runs `rocesweep explain ARGS... --json` and decodes its output.
func runExplain(t *testing.T, args ...string) explanation {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainWithArgs(context.Background(), append(append([]string{"explain"}, args...), "--json"), &out, &errb)
	if code != 0 {
		t.Fatalf("explain %v: exit %d: %s", args, code, errb.String())
	}
	var ex explanation
	if err := json.Unmarshal(out.Bytes(), &ex); err != nil {
		t.Fatalf("explain %v: %v\n%s", args, err, out.String())
	}
	return ex
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// pool returns the explained pool p of s.
func pool(t *testing.T, s switchExplain, p int) explainPool {
	t.Helper()
	for _, x := range s.Pools {
		if x.Pool == p {
			return x
		}
	}
	t.Fatalf("no pool %d in %+v", p, s.Pools)
	return explainPool{}
}

// TestExplainSwitch128 reproduces switch.md §12.1, §12.2 for the 128-port default switch in
// all three egress-limit forms.
func TestExplainSwitch128(t *testing.T) {
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
			args := []string{"--set", "topology.hosts=128"}
			for _, s := range tc.sets {
				args = append(args, "--set", s)
			}
			ex := runExplain(t, args...)
			s := ex.Switch
			if s.ConnectedPorts != 128 || s.HeadroomPerPort != 256_000 || s.HeadroomTotal != 32_768_000 || s.SizingTotal != 223_232_000 ||
				s.Xoff != 700_000 || s.Xon != 300_000 || s.EgressLimitForm != tc.form {
				t.Errorf("switch %+v", s)
			}
			if ex.Switches != nil {
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
		})
	}
}

// TestExplainSwitchDerived covers switch.md §12.5 fix (a), §12.6 and §12.7.
func TestExplainSwitchDerived(t *testing.T) {
	// switch.md §12.7 unbalanced map: residue to the last pool; ECN band from the nominal.
	ex := runExplain(t, "--set", "topology.hosts=128", "--set", "switch.PoolAllocationMap=[0.5, 0.3, 0, 0, 0, 0, 0, 0]")
	p0, p1 := pool(t, ex.Switch, 0), pool(t, ex.Switch, 1)
	if p0.Size != 111_616_000 || p1.Nominal != 66_969_600 || p1.Size != 111_616_000 || p1.EcnMin != 13_393_920 || p1.EcnMax != 53_575_680 {
		t.Errorf("unbalanced map: %+v %+v", p0, p1)
	}
	if !strings.Contains(strings.Join(ex.Warnings, "\n"), "sums to 0.8, not 1") {
		t.Errorf("no map-sum warning: %v", ex.Warnings)
	}
	// switch.md §12.5 fix (a): pool 1 = 91,525,120, pool 0 = 131,706,880; both lossless pools fit.
	ex = runExplain(t, "--set", "topology.hosts=128", "--set", "switch.PoolAllocationMap=[0.59, 0.41, 0, 0, 0, 0, 0, 0]")
	p0, p1 = pool(t, ex.Switch, 0), pool(t, ex.Switch, 1)
	if p0.Size != 131_706_880 || p1.Size != 91_525_120 || !*p0.LosslessFits || !*p1.LosslessFits {
		t.Errorf("fix (a): %+v %+v", p0, p1)
	}
	// switch.md §12.6: 400 Gbps, 500 ns on a switch–switch link = 84.3848 us, refresh 42.1924 us.
	ex = runExplain(t, "--set", "topology.kind=leaf-spine", "--set", "topology.leaves=4", "--set", "topology.spines=2", "--set", "topology.hosts_per_leaf=16")
	if len(ex.Switches) != 2 || ex.Switches[0].Tier != "leaf" || ex.Switches[1].Tier != "spine" || ex.Switch.Tier != "leaf" {
		t.Fatalf("tiers %+v", ex.Switches)
	}
	leaf, spine := ex.Switches[0], ex.Switches[1]
	if leaf.ConnectedPorts != 16+2*8 || spine.ConnectedPorts != 4*8 || leaf.Count != 4 || spine.Count != 2 {
		t.Errorf("ports leaf %d spine %d", leaf.ConnectedPorts, spine.ConnectedPorts)
	}
	if len(leaf.Links) != 2 || leaf.Links[1].Link != "leaf-spine" || !near(leaf.Links[1].PauseTimeNs, 84_384.8, 1e-6) || !near(leaf.Links[1].RefreshNs, 42_192.4, 1e-6) {
		t.Errorf("leaf links %+v", leaf.Links)
	}
	if !near(spine.PauseTimeNs, 84_384.8, 1e-6) {
		t.Errorf("spine pause %v", spine.PauseTimeNs)
	}
}

// TestExplainUET reproduces switch.md §12.7 UET policy numbers (trimming off and on). The
// UET policy cannot run with this NIC (nic.md §15 rule 7): explain shows the numbers and
// warns.
func TestExplainUET(t *testing.T) {
	ex := runExplain(t, "--set", "topology.hosts=128", "--set", "switch.UETPolicyEnabled=true")
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
	if !strings.Contains(strings.Join(ex.Warnings, "\n"), "nic.md §15 rule 7") {
		t.Errorf("no UET warning: %v", ex.Warnings)
	}
	ex = runExplain(t, "--set", "topology.hosts=128", "--set", "switch.UETPolicyEnabled=true", "--set", "switch.TrimmingEnabled=true",
		"--set", "switch.EnablePFC=[0, 0, 0, 0, 0, 0, 0, 0]")
	got := pool(t, ex.Switch, 0)
	if *got.PerPortLimit != 300_000 || *got.RetxLimit != 450_000 {
		t.Errorf("trimming: %+v", got)
	}
}

// TestExplainNIC reproduces nic.md §17 at defaults.
func TestExplainNIC(t *testing.T) {
	n := runExplain(t, "--set", "topology.hosts=128").NIC
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
	ex := runExplain(t, "--set", "nic.HostSide.LaneBps=7.88Gbps", "--set", "nic.NICSide.LaneBps=7.88Gbps")
	if !near(ex.NIC.PCIePayloadGbps, 118.2, 0.05) || !strings.Contains(strings.Join(ex.Warnings, "\n"), "PCIe-bound") {
		t.Errorf("pcie3: %v %v", ex.NIC.PCIePayloadGbps, ex.Warnings)
	}
	// L = min(NIC, switch downlink).
	if ex := runExplain(t, "--set", "switch.DownlinkNetworkInterface.DataRate=100Gbps"); ex.NIC.LineRateGbps != 100 {
		t.Errorf("L = %v", ex.NIC.LineRateGbps)
	}
}

// TestExplainBadInput: each bad input gives one clear error naming the attribute, the
// value and the rule, and exit status 2.
func TestExplainBadInput(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "alpha.yaml")
	if err := os.WriteFile(spec, []byte("name: a\nswitch:\n  LossyAlpa: 1\nsweep:\n  grid: {switch.LossyAlpha: [1, 2]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown attribute", []string{"--set", "switch.LossyAlpa=1"}, []string{"switch.LossyAlpa: unknown attribute (did you mean switch.LossyAlpha?)"}},
		{"unknown unit", []string{"--set", "switch.TotalSharedBufferSize=700XB"}, []string{"switch.SharedBufferManager.TotalSharedBufferSize", `unknown unit "XB"`, `(value "700XB")`}},
		{"negative size", []string{"--set", "switch.HeadRoomPerPortLimit=-1KB"}, []string{"switch.SharedBufferManager.HeadRoomPerPortLimit", "negative size", "nic.md §15 rule 5", `(value "-1KB")`}},
		{"7-entry list", []string{"--set", "switch.PoolAllocationMap=[0.9, 0.1, 0, 0, 0, 0, 0]"}, []string{"switch.SharedBufferManager.PoolAllocationMap", "7 entries", "switch.md §1, §11 rule 2"}},
		{"LaneCount 17", []string{"--set", "nic.HostSide.LaneCount=17"}, []string{"nic.HostInterface.HostSide.PhysicalLayer.LaneCount", "outside 1-16", "nic.md §15 rule 4", `(value "17")`}},
		{"MSS 4126", []string{"--set", "nic.MSS=4126"}, []string{"nic.RoceQpManager.MSS", "4,126 B + 58 = 4,184 B is not below global.Mtu 4,184 B", "(value 4126B)", "nic.md §15 rule 3"}},
		{"headroom", []string{"--set", "topology.hosts=128", "--set", "switch.HeadRoomPerPortLimit=2.5MB"},
			[]string{"switch.SharedBufferManager.HeadRoomPerPortLimit: headroom 2,500,000 B × 128 ports = 320,000,000 B exceeds TotalSharedBufferSize 256,000,000 B", "switch.md §11 rule 5"}},
		{"flowlet dpr", []string{"--set", "switch.LoadBalancingMethod=flowlet", "--set", "switch.EcmpHashMethod=dpr"},
			[]string{"switch.LoadBalancingMethod", "switch.EcmpHashMethod dpr", "(value flowlet)", "switch.md §11 rule 6"}},
		{"ambiguous", []string{"--set", "switch.DataRate=100Gbps"}, []string{"ambiguous", "UplinkNetworkInterface", "DownlinkNetworkInterface"}},
		{"no equals", []string{"--set", "switch.LossyAlpha"}, []string{"want path=value"}},
		{"yaml position", []string{spec}, []string{"alpha.yaml:3:3: switch.LossyAlpa: unknown attribute (did you mean switch.LossyAlpha?)"}},
		{"missing file", []string{filepath.Join(dir, "nope.yaml")}, []string{"nope.yaml"}},
		{"two specs", []string{spec, spec}, []string{"one SPEC at most"}},
		{"bad flag", []string{"--bogus"}, []string{"unknown flag: --bogus"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := mainWithArgs(context.Background(), append([]string{"explain"}, tc.args...), &out, &errb)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr %s", code, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout not empty: %s", out.String())
			}
			first := strings.SplitN(errb.String(), "\n", 2)[0]
			for _, w := range tc.want {
				if !strings.Contains(first, w) {
					t.Errorf("stderr first line\n  %s\nlacks\n  %s", first, w)
				}
			}
			if !strings.HasPrefix(first, "rocesweep: ") {
				t.Errorf("no rocesweep: prefix: %s", first)
			}
		})
	}
}

// TestExplainSpecFile: a sweep spec's job keys apply and its sweep section is ignored.
func TestExplainSpecFile(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "s.yaml")
	body := "name: x\nreplicates: 3\ntopology: {kind: star, hosts: 64}\nswitch: {LossyAlpha: 0}\nsweep:\n  grid:\n    switch.LossyAlpha: [0.25, 0.5]\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	// A spec that sweeps: job 0 (LossyAlpha 0.25: the dynamic form), and says so.
	ex := runExplain(t, spec, "--set", "switch.QueueDropThresholdEnable=true")
	if ex.Switch.ConnectedPorts != 64 || ex.Switch.EgressLimitForm != "dynamic" || ex.Switch.HeadroomTotal != 64*256_000 {
		t.Errorf("%+v", ex.Switch)
	}
	if ex.Job == nil || ex.Job.Index != 0 || ex.Job.Of != 6 || ex.Job.Label != "job 0 (switch.LossyAlpha=0.25, replicate 0)" {
		t.Errorf("job %+v, want job 0 of 6", ex.Job)
	}
	// --job by index and by id pick the same job.
	third := runExplain(t, spec, "--job", "3")
	if byID := runExplain(t, spec, "--job", third.Job.ID); third.Job.Label != "job 3 (switch.LossyAlpha=0.5, replicate 0)" || byID.Job.Index != 3 {
		t.Errorf("--job 3: %+v; by id: %+v", third.Job, byID.Job)
	}
	// Without the sweep, the base configuration (LossyAlpha 0: the fixed cap), no job.
	if err := os.WriteFile(spec, []byte(strings.Split(body, "sweep:")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	ex = runExplain(t, spec, "--set", "switch.QueueDropThresholdEnable=true")
	if ex.Switch.EgressLimitForm != "fixed_cap" || ex.Job != nil {
		t.Errorf("no sweep: %+v, job %+v", ex.Switch, ex.Job)
	}
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"explain", spec, "--job", "1"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--job 1: the configuration has no sweep") {
		t.Errorf("--job without a sweep: exit %d, %s", code, errb.String())
	}
}

// TestExplainSheet: the human form carries the same numbers and the risk warnings.
func TestExplainSheet(t *testing.T) {
	var out, errb bytes.Buffer
	code := mainWithArgs(context.Background(), []string{"explain", "--set", "topology.hosts=128", "--set", "switch.StaticPoolXonThreshold=700KB",
		"--set", "nic.PfcStaticXoffThreshold=[0.999, 0.8, 0, 0, 0, 0, 0, 0]", "--set", "switch.PoolAllocationMap=[0.8, 0.1, 0, 0, 0, 0, 0, 0]"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, w := range []string{
		"128 connected ports", "32,768,000 B", "223,232,000 B", "83.9848 us", "41.9924 us", "18,368 B", "472.9 Gbps", "394.4 Gbps",
		"3,596,400", "3,600,000", "320,000",
		"no hysteresis",               // Xon ≥ Xoff
		"fails sizing condition 2",    // pool 1 at 128 ports
		"under the guidance 18,368 B", // NIC headroom
		"sums to 0.9, not 1",          // PoolAllocationMap
	} {
		if !strings.Contains(s, w) {
			t.Errorf("sheet lacks %q:\n%s", w, s)
		}
	}
}

func TestDefaults(t *testing.T) {
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"defaults", "--json"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var attrs []struct {
		Path, Device, Type, Unit, Default, Doc string
		Enum                                   []string
	}
	if err := json.Unmarshal(out.Bytes(), &attrs); err != nil {
		t.Fatal(err)
	}
	byPath := map[string]string{}
	for _, a := range attrs {
		byPath[a.Path] = a.Type + " " + a.Unit + " " + a.Default
	}
	for path, want := range map[string]string{
		"switch.SharedBufferManager.LossyAlpha":                     "double  1",
		"switch.SharedBufferManager.TotalSharedBufferSize":          "bytes B 256MB",
		"nic.NetworkInterface.IngressBufferManager.TotalBufferSize": "bytes B 4MB",
		"nic.NetworkInterface.UplinkNetworkInterface.DataRate":      "datarate bps 400Gbps",
		"switch.NetworkInterface.TransmissionMedium.Delay":          "timeval ps 500ns",
		"global.Mtu":     "bytes B 4184B",
		"duration":       "timeval ps 1ms",
		"topology.hosts": "int  16",
	} {
		if byPath[path] != want {
			t.Errorf("%s: %q, want %q", path, byPath[path], want)
		}
	}
	out.Reset()
	if code := mainWithArgs(context.Background(), []string{"defaults"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "switch.SharedBufferManager.PoolAllocationMap") || !strings.Contains(out.String(), "[0.9, 0.1, 0, 0, 0, 0, 0, 0]") {
		t.Errorf("table:\n%s", out.String())
	}
	if code := mainWithArgs(context.Background(), []string{"defaults", "extra"}, &out, &errb); code != 2 {
		t.Errorf("extra argument: exit %d", code)
	}
}

// A tier's uplink sets the rate and delay of the cables from it up; the pause time
// (65,535 × 512 bit / rate + Delay, switch.md §7.1), its refresh (half, §7.2) and the
// headroom a port needs (2 × rate × Delay / 8 + 2 × Mtu, §4.6 condition 1) follow, on both
// ends of those cables, while host links keep the NIC's. 100 m of fibre is 500 ns, 2 km
// is 10 us.
func TestExplainTierUplinks(t *testing.T) {
	base := []string{"--set", "topology.kind=leaf-spine", "--set", "topology.leaves=2", "--set", "topology.spines=2",
		"--set", "topology.hosts_per_leaf=4", "--set", "topology.uplinks_per_spine=1", "--set", "workload.senders=7",
		"--set", "tiers.rack.uplink.rate=800Gbps", "--set", "tiers.spine.switch.TotalSharedBufferSize=64MB"}
	for _, tc := range []struct {
		delay           string
		pauseNs, needed float64
	}{
		{"500ns", 65535*512/800.0 + 500, 2*800e9*500e-9/8 + 2*4184},
		{"10us", 65535*512/800.0 + 10_000, 2*800e9*10e-6/8 + 2*4184},
	} {
		ex := runExplain(t, append(base, "--set", "tiers.rack.uplink.delay="+tc.delay)...)
		if len(ex.Switches) != 2 {
			t.Fatalf("%d switch sections", len(ex.Switches))
		}
		found := 0
		for _, s := range ex.Switches {
			for _, l := range s.Links {
				if l.Link == "leaf-nic" {
					// Host links: NIC rate and Delay, untouched.
					if l.RateGbps != 400 || l.DelayNs != 100 || !near(l.PauseTimeNs, 65535*512/400.0+100, 1e-6) {
						t.Errorf("%s: leaf-nic %+v", tc.delay, l)
					}
					continue
				}
				found++
				if l.RateGbps != 800 || !near(l.PauseTimeNs, tc.pauseNs, 1e-6) || !near(l.RefreshNs, tc.pauseNs/2, 1e-6) ||
					float64(l.HeadroomNeeded) != tc.needed || l.DelayOf != "tiers.rack.uplink.delay" {
					t.Errorf("%s: %s link %+v; want pause %g ns, refresh %g, headroom needed %g", tc.delay, l.Link, l, tc.pauseNs, tc.pauseNs/2, tc.needed)
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
		// 2 km needs 2,008,368 B per port, over the default 256,000 B headroom: warned.
		warned := slices.ContainsFunc(ex.Warnings, func(w string) bool { return strings.Contains(w, "2,008,368 B a leaf-spine link needs") })
		if warned != (tc.delay == "10us") {
			t.Errorf("%s: condition 1 warning %v in %q", tc.delay, warned, ex.Warnings)
		}
	}
}

// A lossy incast with every source of desynchronisation off is warned about (README
// "Desynchronised senders"); a lossless incast, or either setting on, is not.
func TestExplainPhaseLockWarning(t *testing.T) {
	lossy := []string{"--set", "workload.data_tc=2", "--set", "nic.IngressBufferManager.PoolAllocationVector=[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
		"--set", "nic.EgressBufferManager.PoolAllocationVector=[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]"}
	for _, tc := range []struct {
		name string
		args []string
		want bool
	}{
		{"lossless incast", nil, false},
		{"lossy incast", lossy, true},
		{"lossy incast, clock tolerance", append(slices.Clone(lossy), "--set", "nic.ClockTolerancePpm=100"), false},
		{"lossy incast, tx jitter", append(slices.Clone(lossy), "--set", "nic.TxJitter=5ns"), false},
		{"lossy permutation", append(slices.Clone(lossy), "--set", "workload.kind=permutation"), false},
	} {
		ex := runExplain(t, tc.args...)
		got := slices.ContainsFunc(ex.Warnings, func(w string) bool { return strings.Contains(w, "desynchronisation off") })
		if got != tc.want {
			t.Errorf("%s: phase-lock warning %v, want %v: %q", tc.name, got, tc.want, ex.Warnings)
		}
	}
}

// validate warns of what explain warns, for every distinct point: the quickstart's
// lossless pools fail sizing condition 2 at some Xoff values (switch.md §4.6).
func TestValidateWarnsAsExplain(t *testing.T) {
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"validate", "../../configs/quickstart.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, errb.String())
	}
	ex := runExplain(t, "../../configs/quickstart.yaml", "--job", "2") // alpha 0.25, Xoff 700KB
	if len(ex.Warnings) == 0 {
		t.Fatal("explain: no warnings for the quickstart's job 2")
	}
	// Each of explain's warnings is printed, or one alike but for its numbers (another
	// Xoff of the grid) stands for it.
	printed := map[string]bool{}
	for _, line := range strings.Split(errb.String(), "\n") {
		if _, msg, ok := strings.Cut(line, " points): "); ok {
			printed[warningShape(msg)] = true
		} else if _, msg, ok := strings.Cut(line, " e.g.): "); ok {
			printed[warningShape(msg)] = true
		}
	}
	for _, w := range ex.Warnings {
		if !printed[warningShape(w)] {
			t.Errorf("validate lacks explain's warning %q:\n%s", w, errb.String())
		}
	}
	// The quickstart passes sizing conditions 1 and 2 and fails condition 3 on purpose
	// (its header says so): one line for the shared pool, none for the others.
	if n, m := strings.Count(errb.String(), "sizing condition 3"), strings.Count(errb.String(), "sizing condition 2"); n != 1 || m != 0 {
		t.Errorf("%d lines of sizing condition 3 and %d of condition 2, want 1 and 0:\n%s", n, m, errb.String())
	}
}

// The sheet has one section per distinct switch configuration: a fat tree's three tiers
// run one buffer set-up (same block, same k ports) until a tier block sets its own.
func TestExplainSectionsPerConfiguration(t *testing.T) {
	for _, tc := range []struct {
		sets []string
		want []string
	}{
		{nil, []string{"edge, aggregation and core switches (8, 8 and 4 of them), 4 connected ports"}},
		{[]string{"--set", "tiers.spine.switch.LossyAlpha=0.5"}, []string{
			"edge and aggregation switches (8 and 8 of them), 4 connected ports",
			"core switches (4 of them), 4 connected ports"}},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"explain", "--set", "topology.kind=fat-tree", "--set", "topology.k=4", "--set", "workload.senders=15"}, tc.sets...)
		if code := mainWithArgs(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		var got []string
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasSuffix(line, "[switch.md §4]") {
				got = append(got, strings.TrimSpace(strings.TrimSuffix(line, "[switch.md §4]")))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: sections %q, want %q", tc.sets, got, tc.want)
		}
	}
}
