package topo

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

func build(t testing.TB, tp config.Topology) *Graph {
	t.Helper()
	sw, nic := config.DefaultSwitch(), config.DefaultNIC()
	g, err := Build(tp, &sw, &nic)
	if err != nil {
		t.Fatalf("Build(%+v): %v", tp, err)
	}
	return g
}

var (
	star16   = config.Topology{Kind: "star", Hosts: 16}
	ls       = config.Topology{Kind: "leaf-spine", Leaves: 4, Spines: 2, HostsPerLeaf: 4, UplinksPerSpine: 3}
	lsDflt   = config.Topology{Kind: "leaf-spine", Leaves: 2, Spines: 2, HostsPerLeaf: 8} // U = NumUpLinksPerSwitch = 8
	fatTree4 = config.Topology{Kind: "fat-tree", K: 4}
	fatTree6 = config.Topology{Kind: "fat-tree", K: 6}
)

// TestCounts checks node, host, cable and per-switch port counts against the connected
// port formulas: star = hosts; leaf = hosts_per_leaf + spines × U; spine = leaves × U;
// fat-tree = k.
func TestCounts(t *testing.T) {
	tests := []struct {
		name                 string
		tp                   config.Topology
		switches, hosts      int
		cables               int
		portsByTier          map[int]int
		spinesF, fab, racksF int
	}{
		{"star", star16, 1, 16, 16, map[int]int{TierRack: 16}, 0, 0, 1},
		{"leaf-spine U=3", ls, 6, 16, 16 + 4*2*3, map[int]int{TierRack: 4 + 2*3, TierSpine: 4 * 3}, 2, 0, 4},
		{"leaf-spine U=NumUpLinksPerSwitch", lsDflt, 4, 16, 16 + 2*2*8, map[int]int{TierRack: 8 + 2*8, TierSpine: 2 * 8}, 2, 0, 2},
		{"fat-tree k=4", fatTree4, 4 + 8 + 8, 16, 16 + 16 + 16, map[int]int{0: 4, 1: 4, 2: 4}, 4, 8, 8},
		{"fat-tree k=6", fatTree6, 9 + 18 + 18, 54, 54 * 3, map[int]int{0: 6, 1: 6, 2: 6}, 9, 18, 18},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := build(t, tc.tp)
			if len(g.Switches) != tc.switches || g.Hosts() != tc.hosts || len(g.Cables) != tc.cables {
				t.Fatalf("switches %d hosts %d cables %d, want %d %d %d", len(g.Switches), g.Hosts(), len(g.Cables), tc.switches, tc.hosts, tc.cables)
			}
			perTier := map[int]int{}
			for _, s := range g.Switches {
				n := &g.Nodes[s]
				perTier[n.Tier]++
				if want := tc.portsByTier[n.Tier]; g.ConnectedPorts(s) != want {
					t.Errorf("%s (tier %d): %d connected ports, want %d", n.Name, n.Tier, g.ConnectedPorts(s), want)
				}
			}
			if perTier[0] != tc.spinesF || perTier[1] != tc.fab || perTier[2] != tc.racksF {
				t.Errorf("switches per tier %v, want spine %d fabric %d rack %d", perTier, tc.spinesF, tc.fab, tc.racksF)
			}
			if rows := g.TopologyRows("j"); len(rows) != len(g.Cables) {
				t.Errorf("%d topology rows, want %d (one per cable)", len(rows), len(g.Cables))
			}
		})
	}
}

// TestStructure checks the invariants of every built graph: ids = indexes, switches
// before NICs, unique names, ports consistent with cables, RC-6 port order, ul/dl, the
// link rate/delay rule.
func TestStructure(t *testing.T) {
	for _, tp := range []config.Topology{star16, ls, lsDflt, fatTree4, fatTree6} {
		t.Run(tp.Kind, func(t *testing.T) {
			g := build(t, tp)
			names := map[string]bool{}
			for i, n := range g.Nodes {
				if n.ID != int64(i) {
					t.Fatalf("node %d has ID %d", i, n.ID)
				}
				if names[n.Name] {
					t.Fatalf("duplicate name %q", n.Name)
				}
				names[n.Name] = true
				switch n.Kind {
				case SwitchNode:
					if g.Switches[n.Index] != i || n.Host != -1 || i >= len(g.Switches) {
						t.Fatalf("%s: switch index %d host %d", n.Name, n.Index, n.Host)
					}
				case NICNode:
					if g.NICs[n.Host] != i || n.Index != n.Host || n.Tier != TierNIC || len(n.Ports) != 1 || i != len(g.Switches)+int(n.Host) {
						t.Fatalf("%s: NIC index %d host %d ports %d", n.Name, n.Index, n.Host, len(n.Ports))
					}
				default:
					t.Fatalf("%s: kind %v", n.Name, n.Kind)
				}
				seenUp := false
				for p, port := range n.Ports {
					if int(port.Ifid) != p {
						t.Fatalf("%s port %d has ifid %d", n.Name, p, port.Ifid)
					}
					peer := &g.Nodes[port.Peer]
					if port.Uplink != (peer.Tier < n.Tier) {
						t.Fatalf("%s port %d: uplink %v but peer tier %d, own %d", n.Name, p, port.Uplink, peer.Tier, n.Tier)
					}
					if seenUp && !port.Uplink {
						t.Fatalf("%s port %d: downlink after an uplink (RC-6)", n.Name, p)
					}
					seenUp = seenUp || port.Uplink
					back := peer.Ports[port.PeerPort]
					if back.Peer != i || back.PeerPort != port.Ifid || back.Cable != port.Cable {
						t.Fatalf("%s port %d: peer port does not point back", n.Name, p)
					}
					c := g.Cables[port.Cable]
					if !(c.A == i && c.APort == port.Ifid) && !(c.B == i && c.BPort == port.Ifid) {
						t.Fatalf("%s port %d: cable %d does not end here", n.Name, p, port.Cable)
					}
				}
			}
			for i, c := range g.Cables {
				a, b := &g.Nodes[c.A], &g.Nodes[c.B]
				if a.Tier >= b.Tier {
					t.Fatalf("cable %d: upper end tier %d, lower end tier %d", i, a.Tier, b.Tier)
				}
				if i > 0 {
					p := g.Cables[i-1]
					if p.A > c.A || (p.A == c.A && p.APort >= c.APort) {
						t.Fatalf("cable %d not ordered by (upper node, upper port)", i)
					}
				}
				wantDelay := 500 * sim.Nanosecond // switch Delay for switch-switch links
				if b.Kind == NICNode {
					wantDelay = 100 * sim.Nanosecond // NIC Delay for NIC links
				}
				if c.RateBps != 400e9 || c.Delay != wantDelay {
					t.Fatalf("cable %d (%s-%s): %g bps %v, want 400e9 %v", i, a.Name, b.Name, c.RateBps, c.Delay, wantDelay)
				}
			}
		})
	}
}

// TestLinkRule: a link runs at the lower of both ends' DataRate and uses the Delay of
// its lower end (records.md §2).
func TestLinkRule(t *testing.T) {
	sw, nic := config.DefaultSwitch(), config.DefaultNIC()
	sw.NetworkInterface.UplinkNetworkInterface.DataRate = 800e9
	sw.NetworkInterface.DownlinkNetworkInterface.DataRate = 400e9
	sw.NetworkInterface.TransmissionMedium.Delay = 700 * sim.Nanosecond
	nic.NetworkInterface.UplinkNetworkInterface.DataRate = 200e9
	nic.NetworkInterface.TransmissionMedium.Delay = 50 * sim.Nanosecond
	g, err := Build(ls, &sw, &nic)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cables {
		a, b := &g.Nodes[c.A], &g.Nodes[c.B]
		var rate float64
		var delay sim.Time
		switch {
		case b.Kind == NICNode: // rack downlink 400G vs NIC 200G
			rate, delay = 200e9, 50*sim.Nanosecond
		default: // spine downlink 400G vs leaf uplink 800G
			rate, delay = 400e9, 700*sim.Nanosecond
		}
		if c.RateBps != rate || c.Delay != delay {
			t.Errorf("%s-%s: %g bps %v, want %g %v", a.Name, b.Name, c.RateBps, c.Delay, rate, delay)
		}
	}
}

// TestPortOrder pins RC-6 wiring for the leaf-spine (hosts, then spine-major uplinks)
// and fat-tree layouts documented in the package comment.
func TestPortOrder(t *testing.T) {
	g := build(t, ls) // 2 spines (nodes 0,1), 4 leaves (2..5), U = 3, 4 hosts per leaf
	leaf1 := &g.Nodes[3]
	if leaf1.Name != "Rack-1.RackSwitch" {
		t.Fatalf("node 3 is %q", leaf1.Name)
	}
	for p, port := range leaf1.Ports {
		var wantPeer int
		if p < 4 {
			wantPeer = g.NICs[4+p]
		} else {
			wantPeer = (p - 4) / 3 // spine s = (p-HPL)/U
		}
		if port.Peer != wantPeer {
			t.Errorf("leaf 1 port %d peer %s, want %s", p, g.Nodes[port.Peer].Name, g.Nodes[wantPeer].Name)
		}
	}
	for p, port := range g.Nodes[1].Ports { // spine 1: port l×U+u to leaf l
		if want := 2 + p/3; port.Peer != want || port.PeerPort != int16(4+1*3+p%3) {
			t.Errorf("spine 1 port %d: peer %d port %d, want %d port %d", p, port.Peer, port.PeerPort, want, 4+3+p%3)
		}
	}
	ft := build(t, fatTree4) // spines 0-3, fabric 4-11 (pod-major), racks 12-19, NICs 20-35
	wantNames := map[int]string{0: "Plane-0.SpineSwitch-0", 3: "Plane-1.SpineSwitch-3", 4: "Pod-0.FabricSwitch-0",
		7: "Pod-1.FabricSwitch-1", 12: "Pod-0.Rack-0.RackSwitch", 19: "Pod-3.Rack-7.RackSwitch", 20: "Pod-0.Rack-0.Host-0", 35: "Pod-3.Rack-7.Host-15"}
	for n, name := range wantNames {
		if ft.Nodes[n].Name != name {
			t.Errorf("node %d named %q, want %q", n, ft.Nodes[n].Name, name)
		}
	}
	// Fabric switch pod 1 position 1 (node 7): ports 0,1 racks 14,15; ports 2,3 spines 2,3.
	for p, want := range []int{14, 15, 2, 3} {
		if got := ft.Nodes[7].Ports[p].Peer; got != want {
			t.Errorf("Pod-1.FabricSwitch-1 port %d peer %d, want %d", p, got, want)
		}
	}
	// Spine 2 (plane 1): port p to pod p's fabric switch 1 = node 4 + 2p + 1.
	for p, port := range ft.Nodes[2].Ports {
		if port.Peer != 5+2*p {
			t.Errorf("spine 2 port %d peer %d, want %d", p, port.Peer, 5+2*p)
		}
	}
}

// TestRoutes: every host reachable from every switch by following members, each member
// strictly closer, and the ECMP member counts of the brief.
func TestRoutes(t *testing.T) {
	for _, tp := range []config.Topology{star16, ls, lsDflt, fatTree4, fatTree6} {
		t.Run(tp.Kind, func(t *testing.T) {
			g := build(t, tp)
			for _, s := range g.Switches {
				for h := int32(0); h < int32(g.Hosts()); h++ {
					ms := g.Route(s, h)
					if len(ms) == 0 {
						t.Fatalf("%s has no route to host %d", g.Nodes[s].Name, h)
					}
					for i := 1; i < len(ms); i++ {
						if ms[i] <= ms[i-1] {
							t.Fatalf("%s → %d: members %v not ascending", g.Nodes[s].Name, h, ms)
						}
					}
					for _, m := range ms { // follow every member to the host within the hop budget
						n, steps := g.Nodes[s].Ports[m].Peer, 1
						for g.Nodes[n].Kind == SwitchNode {
							n = g.Nodes[n].Ports[g.Route(n, h)[0]].Peer
							steps++
							if steps > 8 {
								t.Fatalf("%s → %d: loop", g.Nodes[s].Name, h)
							}
						}
						if n != g.NICs[h] {
							t.Fatalf("%s → %d via %d ends at %s", g.Nodes[s].Name, h, m, g.Nodes[n].Name)
						}
						// Shortest: cables to the NIC = BFS distance to its rack switch + 1.
						A := len(g.rt.attachSw)
						if want := int(g.hops[int(g.Nodes[s].Index)*A+int(g.rt.attach[h])]) + 1; steps != want {
							t.Fatalf("%s → %d via %d: %d cables, shortest is %d", g.Nodes[s].Name, h, m, steps, want)
						}
					}
				}
			}
		})
	}

	g := build(t, ls) // U = 3, 2 spines
	leaf0, spine1 := 2, 1
	if n := len(g.Route(leaf0, 15)); n != 2*3 {
		t.Errorf("leaf toward a remote host: %d members, want spines × U = 6", n)
	}
	if got := g.Route(leaf0, 1); !reflect.DeepEqual(got, []int16{1}) {
		t.Errorf("leaf toward its own host 1: %v, want [1]", got)
	}
	if got := g.Route(spine1, 9); !reflect.DeepEqual(got, []int16{6, 7, 8}) {
		t.Errorf("spine toward host 9 (leaf 2): %v, want U = 3 members [6 7 8]", got)
	}
	ft := build(t, fatTree4)
	rack0, fab0 := 12, 4
	if n := len(ft.Route(rack0, 15)); n != 2 {
		t.Errorf("fat-tree rack toward another pod: %d members, want k/2 = 2", n)
	}
	if got := ft.Route(fab0, 15); !reflect.DeepEqual(got, []int16{2, 3}) {
		t.Errorf("fat-tree fabric toward another pod: %v, want [2 3]", got)
	}
	if got := ft.Route(fab0, 3); !reflect.DeepEqual(got, []int16{1}) {
		t.Errorf("fat-tree fabric toward own pod's rack 1: %v, want [1]", got)
	}
	if got := ft.Route(rack0, 2); !reflect.DeepEqual(got, []int16{2, 3}) {
		t.Errorf("fat-tree rack toward the other rack of its pod: %v, want [2 3]", got)
	}
	if got := ft.Route(0, 15); !reflect.DeepEqual(got, []int16{3}) {
		t.Errorf("fat-tree spine toward pod 3: %v, want [3]", got)
	}
}

// TestInterned: identical member lists are one slice.
func TestInterned(t *testing.T) {
	g := build(t, ls)
	a, b := g.Route(2, 15), g.Route(3, 0) // both leaves: all 6 uplinks, ports 4..9
	if &a[0] != &b[0] {
		t.Errorf("identical member lists %v and %v are different slices", a, b)
	}
	if allocs := testing.AllocsPerRun(100, func() { _ = g.Route(2, 15) }); allocs != 0 {
		t.Errorf("Route allocates %v per call, want 0", allocs)
	}
}

func TestHopsAndPath(t *testing.T) {
	tests := []struct {
		name     string
		tp       config.Topology
		src, dst int32
		hops     int
	}{
		{"star", star16, 0, 15, 2},
		{"star self", star16, 3, 3, 0},
		{"leaf-spine same leaf", ls, 0, 3, 2},
		{"leaf-spine remote", ls, 0, 15, 4},
		{"fat-tree same rack", fatTree4, 0, 1, 2},
		{"fat-tree same pod", fatTree4, 0, 2, 4},
		{"fat-tree other pod", fatTree4, 0, 15, 6},
	}
	for _, tc := range tests {
		g := build(t, tc.tp)
		if got := g.Hops(tc.src, tc.dst); got != tc.hops {
			t.Errorf("%s: Hops(%d,%d) = %d, want %d", tc.name, tc.src, tc.dst, got, tc.hops)
		}
		p := g.Path(tc.src, tc.dst)
		if len(p) != tc.hops {
			t.Errorf("%s: Path has %d cables, want %d", tc.name, len(p), tc.hops)
		}
		if tc.hops > 0 && (g.Cables[p[0]].B != g.NICs[tc.src] || g.Cables[p[len(p)-1]].B != g.NICs[tc.dst]) {
			t.Errorf("%s: Path %v does not start at the source NIC and end at the destination NIC", tc.name, p)
		}
	}
}

// TestTopologyRows pins one row of each link class (records.md §9).
func TestTopologyRows(t *testing.T) {
	g := build(t, ls)
	rows := g.TopologyRows("job-7")
	// Cables are ordered by upper node: spine 0's first cable leads.
	want0 := stats.TopologyLink{JobID: "job-7", ComponentName: "SpineSwitch-0", ComponentType: "Switch", Tier: 0,
		Subtier: 4294967295, NodeID: 0, NetDevice: "switch::EthNetDevice", DevID: 0,
		PeerComponentName: "Rack-0.RackSwitch", PeerComponentType: "Switch", PeerTier: 2, PeerSubtier: 4294967295,
		PeerNodeID: 2, PeerNetDevice: "switch::EthNetDevice", PeerDevID: 4, LinkspeedGbps: 400, PropDelayNs: 500}
	if rows[0] != want0 {
		t.Errorf("row 0 = %+v\nwant   %+v", rows[0], want0)
	}
	last := rows[len(rows)-1]
	wantLast := stats.TopologyLink{JobID: "job-7", ComponentName: "Rack-3.RackSwitch", ComponentType: "Switch", Tier: 2,
		Subtier: 4294967295, NodeID: 5, NetDevice: "switch::EthNetDevice", DevID: 3,
		PeerComponentName: "Rack-3.Host-15", PeerComponentType: "NIC", PeerTier: 3, PeerSubtier: 4294967295,
		PeerNodeID: 21, PeerNetDevice: "nic::RoceNetDevice", PeerDevID: 0, LinkspeedGbps: 400, PropDelayNs: 100}
	if last != wantLast {
		t.Errorf("last row = %+v\nwant      %+v", last, wantLast)
	}
}

// TestStable: the same input builds an identical graph.
func TestStable(t *testing.T) {
	for _, tp := range []config.Topology{star16, ls, fatTree6} {
		a, b := build(t, tp), build(t, tp)
		if !reflect.DeepEqual(a.Nodes, b.Nodes) || !reflect.DeepEqual(a.Cables, b.Cables) || !reflect.DeepEqual(a.TopologyRows("x"), b.TopologyRows("x")) {
			t.Errorf("%s: two builds differ", tp.Kind)
		}
	}
}

func TestBuildErrors(t *testing.T) {
	sw, nic := config.DefaultSwitch(), config.DefaultNIC()
	tests := []struct {
		tp   config.Topology
		want string
	}{
		{config.Topology{Kind: "ring"}, `topology.kind: unknown kind "ring"`},
		{config.Topology{Kind: "star"}, "topology.hosts: must be >= 1, got 0"},
		{config.Topology{Kind: "leaf-spine", Leaves: 2, HostsPerLeaf: 2}, "topology.spines: must be >= 1, got 0"},
		{config.Topology{Kind: "leaf-spine", Leaves: 2, Spines: 1, HostsPerLeaf: 2, UplinksPerSpine: -1}, "topology.uplinks_per_spine: must be >= 0"},
		{config.Topology{Kind: "fat-tree", K: 5}, "topology.k: must be an even number >= 2, got 5"},
		{config.Topology{Kind: "leaf-spine", Leaves: 2, Spines: 4000, HostsPerLeaf: 2, UplinksPerSpine: 10}, "ports (max 32767)"},
	}
	for _, tc := range tests {
		_, err := Build(tc.tp, &sw, &nic)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Build(%+v) = %v, want error containing %q", tc.tp, err, tc.want)
		}
	}
	sw.NumUpLinksPerSwitch = 0
	if _, err := Build(config.Topology{Kind: "leaf-spine", Leaves: 2, Spines: 1, HostsPerLeaf: 2}, &sw, &nic); err == nil || !strings.Contains(err.Error(), "switch.NumUpLinksPerSwitch") {
		t.Errorf("U=0 with NumUpLinksPerSwitch=0: %v", err)
	}
}

func BenchmarkRoute(b *testing.B) {
	g := build(b, config.Topology{Kind: "fat-tree", K: 16})
	sws, hosts := len(g.Switches), int32(g.Hosts())
	b.ReportAllocs()
	var n int
	for i := 0; b.Loop(); i++ {
		n += len(g.Route(i%sws, int32(i)%hosts))
	}
	if n == 0 {
		b.Fatal("no members")
	}
}

func BenchmarkBuildFatTree16(b *testing.B) {
	sw, nic := config.DefaultSwitch(), config.DefaultNIC()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Build(config.Topology{Kind: "fat-tree", K: 16}, &sw, &nic); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConfigConnectedPorts: every switch's port count equals config.ConnectedPorts for its
// tier (the number switch validation and buffer sizing use), and the host count
// config.Hosts.
func TestConfigConnectedPorts(t *testing.T) {
	sw := config.DefaultSwitch()
	for _, tp := range []config.Topology{star16, ls, lsDflt, fatTree4, fatTree6} {
		g := build(t, tp)
		want := config.ConnectedPorts(tp, &sw) // rack tier first, then upward
		if g.Hosts() != config.Hosts(tp) {
			t.Errorf("%s: %d hosts, config.Hosts says %d", tp.Kind, g.Hosts(), config.Hosts(tp))
		}
		for _, s := range g.Switches {
			n := &g.Nodes[s]
			idx := TierRack - n.Tier // rack 0, fabric 1, spine 2 (fat-tree)
			if tp.Kind == "leaf-spine" && n.Tier == TierSpine {
				idx = 1
			}
			if got := g.ConnectedPorts(s); got != want[idx] {
				t.Errorf("%s %s: %d ports, config.ConnectedPorts says %d", tp.Kind, n.Name, got, want[idx])
			}
		}
	}
}

// TestRouteKeys: at every switch, keys are below Size, hosts with one key have the same
// Route (the same interned slice), and the hosts attached to the switch have keys of
// their own; a fat tree's switch needs far fewer keys than hosts.
func TestRouteKeys(t *testing.T) {
	for _, tp := range []config.Topology{
		{Kind: "star", Hosts: 5},
		{Kind: "leaf-spine", Leaves: 3, Spines: 2, HostsPerLeaf: 4},
		{Kind: "fat-tree", K: 4},
		{Kind: "fat-tree", K: 8},
	} {
		g := build(t, tp)
		for _, n := range g.Switches {
			k := g.RouteKeys(n)
			first := make([][]int16, k.Size)
			local := 0
			for h := int32(0); h < int32(g.Hosts()); h++ {
				key := k.Key(h)
				if key < 0 || int(key) >= k.Size {
					t.Fatalf("%v %s: host %d key %d outside 0..%d", tp, g.Nodes[n].Name, h, key, k.Size-1)
				}
				r := g.Route(n, h)
				if first[key] == nil {
					first[key] = r
				} else if &first[key][0] != &r[0] {
					t.Fatalf("%v %s: host %d shares key %d with a host of another route", tp, g.Nodes[n].Name, h, key)
				}
				if key >= k.N {
					local++
				}
			}
			if local != k.Size-int(k.N) {
				t.Errorf("%v %s: %d attached hosts, %d local keys", tp, g.Nodes[n].Name, local, k.Size-int(k.N))
			}
		}
		if k := g.RouteKeys(g.Switches[0]); tp.Kind == "fat-tree" && tp.K == 8 && k.Size != 32 {
			t.Errorf("fat tree k=8 spine: %d keys, want 32 (one per edge switch)", k.Size)
		}
	}
}
