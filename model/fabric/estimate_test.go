package fabric

import (
	"runtime"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/topo"
)

// allocated returns the allocations and bytes one call of f makes.
func allocated(f func()) (mallocs, bytes uint64) {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.Mallocs - a.Mallocs, b.TotalAlloc - a.TotalAlloc
}

// TestEstimateBoundedWork: a job is estimated from its topology's shape, so the estimate
// of a k = 64 fat tree (65,536 hosts; its routing tables alone are 10 M entries, 52 MB)
// allocates as often as that of a k = 4 one, and a k = 100 fat tree is refused by its
// size before anything is built.
func TestEstimateBoundedWork(t *testing.T) {
	perm := []string{"topology.kind", "fat-tree", "workload.kind", "permutation", "workload.message_size", "2MB", "stop", "drain", "duration", "20ms"}
	small := job(t, append(perm, "topology.k", "4")...)
	large := job(t, append(perm, "topology.k", "64")...)
	huge := job(t, append(perm, "topology.k", "100")...)
	est := func(cfg *config.Config) func() {
		return func() {
			if _, err := EstimateJob(cfg); err != nil {
				t.Fatal(err)
			}
		}
	}
	if a, b := testing.AllocsPerRun(5, est(&small)), testing.AllocsPerRun(5, est(&large)); a != b {
		t.Errorf("estimate allocations: %v at k = 4, %v at k = 64; want the same", a, b)
	}
	if _, bytes := allocated(est(&large)); bytes > 64<<10 {
		t.Errorf("estimate of k = 64 allocated %d B, want under 64 KB", bytes)
	}
	e, err := EstimateJob(&large)
	if err != nil || e.Hosts != 65536 || e.Switches != 5120 || e.SwitchPorts != 327680 {
		t.Errorf("k = 64: %+v, %v; want 65,536 hosts, 5,120 switches, 327,680 switch ports", e, err)
	}
	var herr error
	_, bytes := allocated(func() { _, herr = EstimateJob(&huge) })
	want := `topology.k: a fat tree of k = 100 has 250,000 hosts; at most 65,536 (docs/reliability.md "Limits")`
	if herr == nil || herr.Error() != want {
		t.Errorf("k = 100: %v, want %q", herr, want)
	}
	if bytes > 64<<10 {
		t.Errorf("refusing k = 100 allocated %d B, want under 64 KB", bytes)
	}
	if err := Validate(&huge); err == nil || !strings.Contains(err.Error(), "at most 65,536") {
		t.Errorf("Validate(k = 100) = %v, want the size limit", err)
	}
}

// TestEstimateMatchesGraph: the closed forms the estimate uses equal what the built
// fabric has: the host cable's rate (with a rack tier of its own and tier uplinks) and
// the counts.
func TestEstimateMatchesGraph(t *testing.T) {
	for _, sets := range [][]string{
		{"topology.hosts", "8"},
		{"topology.hosts", "8", "nic.DataRate", "100Gbps"},
		{"topology.kind", "leaf-spine", "topology.leaves", "3", "topology.spines", "2", "topology.hosts_per_leaf", "4",
			"tiers.rack.switch.DownlinkNetworkInterface.DataRate", "200Gbps", "tiers.rack.uplink.rate", "800Gbps"},
		{"topology.kind", "fat-tree", "topology.k", "6", "tiers.fabric.uplink.rate", "100Gbps",
			"switch.DownlinkNetworkInterface.DataRate", "100Gbps", "workload.kind", "allreduce", "workload.group_by", "rail"},
	} {
		cfg := job(t, sets...)
		g, err := topo.BuildConfig(&cfg)
		if err != nil {
			t.Fatal(err)
		}
		e, err := EstimateJob(&cfg)
		if err != nil {
			t.Fatalf("%v: %v", sets, err)
		}
		ports := 0
		for _, n := range g.Switches {
			ports += len(g.Nodes[n].Ports)
		}
		host := g.Cables[g.Nodes[g.NICs[0]].Ports[0].Cable].RateBps
		if hostLineRate(&cfg) != host || e.Hosts != g.Hosts() || e.Switches != len(g.Switches) || e.SwitchPorts != ports {
			t.Errorf("%v: estimate %g bps, %d hosts, %d switches, %d ports; the fabric %g bps, %d, %d, %d",
				sets, hostLineRate(&cfg), e.Hosts, e.Switches, e.SwitchPorts, host, g.Hosts(), len(g.Switches), ports)
		}
	}
}

// An estimate prints plain numbers: no "1e+02 M events" or "9.62e+04 messages".
func TestEstimateString(t *testing.T) {
	e := Estimate{Hosts: 1024, SwitchPorts: 2048, Messages: 96_213.4, Rows: 100_000, Events: 104e6, MemBytes: 96_000_000}
	if got, want := e.String(), "~96 MB, ~100 M events (1,024 hosts, 2,048 switch ports, 96,200 messages, 100,000 rows)"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if e.Messages = 1024; !strings.Contains(e.String(), " 1,024 messages") {
		t.Errorf("a whole message count is exact: %q", e.String())
	}
	for _, tc := range []struct {
		x    float64
		n    int
		want string
	}{
		{1.63, 2, "1.6"}, {0.534, 2, "0.53"}, {104, 2, "100"}, {2672.4, 3, "2,670"}, {128, 3, "128"}, {0.5, 3, "0.5"}, {0, 3, "0"}, {1.2e20, 3, "1.2e+20"},
	} {
		if got := sigFigs(tc.x, tc.n); got != tc.want {
			t.Errorf("sigFigs(%g, %d) = %q, want %q", tc.x, tc.n, got, tc.want)
		}
	}
}
