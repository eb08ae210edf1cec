package topo

import (
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

// TestShapeMatchesBuild: the closed forms of ShapeOf count what Build wires: hosts,
// switches, connected switch ports, cables, the rack switch of every host and the size of
// the routing tables.
func TestShapeMatchesBuild(t *testing.T) {
	sw := config.DefaultSwitch()
	for _, tp := range []config.Topology{
		star16, ls, lsDflt, fatTree4, fatTree6,
		{Kind: "star", Hosts: 1},
		{Kind: "leaf-spine", Leaves: 1, Spines: 1, HostsPerLeaf: 1, UplinksPerSpine: 1},
		{Kind: "leaf-spine", Leaves: 5, Spines: 3, HostsPerLeaf: 7, UplinksPerSpine: 2},
		{Kind: "fat-tree", K: 2},
		{Kind: "fat-tree", K: 16},
	} {
		g := build(t, tp)
		s, err := ShapeOf(tp, &sw)
		if err != nil {
			t.Fatalf("%+v: %v", tp, err)
		}
		ports := 0
		for _, n := range g.Switches {
			ports += g.ConnectedPorts(n)
		}
		racks := map[int]bool{}
		for h, n := range g.NICs {
			rack := g.Nodes[n].Ports[0].Peer
			racks[rack] = true
			if s.RackOf(h) != rack {
				t.Fatalf("%+v: host %d: RackOf %d, Build attaches it to node %d", tp, h, s.RackOf(h), rack)
			}
		}
		got := [6]int{s.Hosts, s.Switches, s.SwitchPorts, s.Cables, s.RackSwitches, int(s.RouteEntries())}
		want := [6]int{g.Hosts(), len(g.Switches), ports, len(g.Cables), len(racks), len(g.route)}
		if got != want {
			t.Errorf("%+v: shape (hosts, switches, ports, cables, racks, route entries) = %v, Build %v", tp, got, want)
		}
	}
}

// TestShapeLimits: the largest fabrics are refused by their shape, naming the topology,
// its size and the limit; the largest fat tree within the limits is k = 64. Keys a spec
// may set to any int never wrap into a small fabric.
func TestShapeLimits(t *testing.T) {
	sw := config.DefaultSwitch()
	for _, tc := range []struct {
		tp   config.Topology
		want string // "" = accepted
	}{
		{config.Topology{Kind: "fat-tree", K: 64}, ""},
		{config.Topology{Kind: "fat-tree", K: 66}, `topology.k: a fat tree of k = 66 has 71,874 hosts; at most 65,536 (docs/reliability.md "Limits")`},
		{config.Topology{Kind: "fat-tree", K: 100}, `topology.k: a fat tree of k = 100 has 250,000 hosts; at most 65,536 (docs/reliability.md "Limits")`},
		{config.Topology{Kind: "fat-tree", K: 1 << 40}, `topology.k: a fat tree of k = 1099511627776 has 3.323e+35 hosts; at most 65,536`},
		{config.Topology{Kind: "leaf-spine", Leaves: 1024, Spines: 64, HostsPerLeaf: 64, UplinksPerSpine: 1}, ""},
		{config.Topology{Kind: "leaf-spine", Leaves: 2000, Spines: 8, HostsPerLeaf: 40, UplinksPerSpine: 1},
			`topology: a leaf-spine of 2,000 leaves × 40 hosts_per_leaf has 80,000 hosts; at most 65,536 (docs/reliability.md "Limits")`},
		{config.Topology{Kind: "leaf-spine", Leaves: 1 << 32, Spines: 1, HostsPerLeaf: 1 << 32, UplinksPerSpine: 1},
			`has 1.845e+19 hosts; at most 65,536`},
		{config.Topology{Kind: "leaf-spine", Leaves: 64, Spines: 512, HostsPerLeaf: 16, UplinksPerSpine: 32},
			`topology: a leaf-spine of 64 leaves, 512 spines and 32 uplinks per leaf–spine pair has 2,098,176 switch ports; at most 1,048,576 (docs/reliability.md "Limits")`},
		{config.Topology{Kind: "leaf-spine", Leaves: 8192, Spines: 8, HostsPerLeaf: 8, UplinksPerSpine: 1},
			`topology: a leaf-spine of 8,192 leaves and 8 spines routes from 8,200 switches to 8,192 rack switches: 67,174,400 route entries; at most 16,777,216 (docs/reliability.md "Limits")`},
		{config.Topology{Kind: "star", Hosts: 40000}, "topology: Rack-0.RackSwitch has 40000 ports, more than a port id holds (32767)"},
		{config.Topology{Kind: "leaf-spine", Leaves: 2, Spines: 1 << 40, HostsPerLeaf: 2, UplinksPerSpine: 1 << 40}, "ports (max 32767)"},
	} {
		_, err := ShapeOf(tc.tp, &sw)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v, want accepted", tc.tp, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: %v, want %q", tc.tp, err, tc.want)
		}
		// Build refuses exactly what ShapeOf does (without wiring anything first).
		if tc.want != "" {
			nic := config.DefaultNIC()
			if _, berr := Build(tc.tp, &sw, &nic); berr == nil || berr.Error() != err.Error() {
				t.Errorf("%+v: Build says %v, ShapeOf %v", tc.tp, berr, err)
			}
		}
	}
}

// TestShapeAllocatesNothing: a shape costs the same at any size (fabric.EstimateJob's
// bound): ShapeOf allocates nothing for a fat tree of k = 4 or k = 64, and ShapeConfig
// only its copies of the tiers' switch attributes, as many at k = 64 as at k = 4.
func TestShapeAllocatesNothing(t *testing.T) {
	c := config.Default()
	rack := c.TierSwitch(TierRack)
	var perConfig [2]float64
	for i, k := range []int{4, 64} {
		c.Topology = config.Topology{Kind: "fat-tree", K: k}
		if n := testing.AllocsPerRun(10, func() {
			if _, err := ShapeOf(c.Topology, &rack); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("ShapeOf, k = %d: %v allocations, want 0", k, n)
		}
		perConfig[i] = testing.AllocsPerRun(10, func() {
			if _, err := ShapeConfig(&c); err != nil {
				t.Fatal(err)
			}
		})
	}
	if perConfig[0] != perConfig[1] || perConfig[1] > 8 {
		t.Errorf("ShapeConfig: %v allocations at k = 4, %v at k = 64; want the same few", perConfig[0], perConfig[1])
	}
}

// TestWireConfig: WireConfig wires what BuildConfig does, without the routing tables.
func TestWireConfig(t *testing.T) {
	c := config.Default()
	c.Topology = fatTree6
	a, err := BuildConfig(&c)
	if err != nil {
		t.Fatal(err)
	}
	b, err := WireConfig(&c)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.route) != 0 || len(b.sets) != 0 {
		t.Errorf("WireConfig built %d route entries and %d sets", len(b.route), len(b.sets))
	}
	if len(a.Nodes) != len(b.Nodes) || len(a.Cables) != len(b.Cables) || a.Cables[len(a.Cables)-1] != b.Cables[len(b.Cables)-1] {
		t.Errorf("WireConfig wired another fabric")
	}
}
