// Package topo builds the fabric of one job as pure data: its nodes (switches and NICs),
// their ports, the cables between them, the shortest-path equal-cost routing tables and
// the topology-report rows (records.md §2, §9; switch.md §1, §10). It creates no device
// and schedules nothing; the fabric integrator turns a Graph into switches, NICs and
// links.
//
// # Node ids (stable)
//
// Node index = node_id. Switches come first, top-down by tier and then in wiring order,
// NICs last in host order:
//
//	star:       0 rack switch; 1..H NICs (host h = node 1+h)
//	leaf-spine: 0..S-1 spines (tier 0); S..S+L-1 leaves (tier 2); then NICs, leaf-major
//	fat-tree:   0..(k/2)²-1 spines; then k pods × k/2 fabric switches (pod-major);
//	            then k pods × k/2 rack switches (pod-major); then NICs, rack-major
//
// So Switches[i] == i and NICs[h] == len(Switches)+h, for every kind.
//
// # Names (records.md RC-5: ours, unique, stable)
//
//	star:       Rack-0.RackSwitch, Rack-0.Host-<h>
//	leaf-spine: SpineSwitch-<s>, Rack-<l>.RackSwitch, Rack-<l>.Host-<h>
//	fat-tree:   Plane-<j>.SpineSwitch-<s>, Pod-<p>.FabricSwitch-<j>,
//	            Pod-<p>.Rack-<r>.RackSwitch, Pod-<p>.Rack-<r>.Host-<h>
//
// where h is the global host index, l and r global rack indexes, s the global spine
// index and j the fabric position inside the pod (= the spine plane it connects to).
//
// # Port ids (records.md RC-6)
//
// Downlinks first in wiring order, then uplinks in wiring order:
//
//	leaf:   0..HPL-1 hosts; then spine-major: port HPL + s×U + u is the u-th cable to spine s
//	spine:  leaf-major: port l×U + u is the u-th cable to leaf l
//	fat-tree rack switch: 0..k/2-1 hosts; k/2 + j to fabric switch j of its pod
//	fat-tree fabric switch: 0..k/2-1 to the pod's racks; k/2 + m to spine j×k/2 + m
//	fat-tree spine: port p to pod p
//	NIC: port 0, uplink
//
// U (leaf-spine parallel cables) is uplinks_per_spine, or the switch's
// NumUpLinksPerSwitch when 0 (RC-7). The fat-tree is the classic k-ary tree of k-port
// switches, one cable per switch pair (see Build).
package topo

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// NodeKind says whether a node is a switch or a NIC.
type NodeKind uint8

// Node kinds. The zero kind is invalid so that a zeroed Node is caught.
const (
	SwitchNode NodeKind = 1
	NICNode    NodeKind = 2
)

// String returns "Switch" or "NIC" (the records' component_type, RC-5).
func (k NodeKind) String() string {
	switch k {
	case SwitchNode:
		return "Switch"
	case NICNode:
		return "NIC"
	}
	return fmt.Sprintf("NodeKind(%d)", uint8(k))
}

// Tiers (records.md §2).
const (
	TierSpine  = 0
	TierFabric = 1
	TierRack   = 2
	TierNIC    = 3
)

// Port device class names (records.md RC-5): nd_name / net_device.
const (
	SwitchNetDevice = "switch::EthNetDevice"
	NICNetDevice    = "nic::RoceNetDevice"
)

// Node is one switch or NIC.
type Node struct {
	ID    int64    // node_id; equals the node's index in Graph.Nodes
	Name  string   // component_name, hierarchical and unique (RC-5)
	Kind  NodeKind // SwitchNode or NICNode
	Tier  int      // 0 spine, 1 fabric, 2 rack, 3 NIC
	Index int32    // index in Graph.Switches or Graph.NICs
	Host  int32    // NIC: host index (IP address = Host+1); -1 for switches
	Ports []Port   // indexed by ifid
}

// Port is one connected port: every port of a Graph has a cable (switch.md §1).
type Port struct {
	Ifid     int16 // port id on its node (RC-6)
	Peer     int   // node index of the other end
	PeerPort int16 // the other end's ifid
	Uplink   bool  // peer's tier number is smaller (`ul`); a NIC's port is always uplink
	Cable    int   // index in Graph.Cables
}

// Uldl returns the records' `uldl` value of the port: "ul" or "dl".
func (p Port) Uldl() string {
	if p.Uplink {
		return "ul"
	}
	return "dl"
}

// Cable is one bidirectional link (records.md §2 link rule).
type Cable struct {
	A, B         int      // node indexes; A is the upper end (smaller tier number)
	APort, BPort int16    // ifids at A and B
	RateBps      float64  // operating rate: min of both ends' DataRate
	Delay        sim.Time // propagation delay: the Delay of the lower end B
}

// Graph is a built topology. It is immutable after Build and safe for concurrent
// reads.
type Graph struct {
	Nodes    []Node
	Switches []int   // node indexes in switch order (== 0..len-1)
	NICs     []int   // node indexes; NICs[h] is host h
	Cables   []Cable // ordered by (upper node, upper port)

	// Routing tables (routing.go).
	rt    routeTables
	route []int32   // set id at switch ordinal i toward attachment a: route[i*A+a]
	hops  []uint8   // cables from switch ordinal i to attachment switch a: hops[i*A+a]
	sets  [][]int16 // interned member lists
}

// Hosts returns the number of hosts (NICs).
func (g *Graph) Hosts() int { return len(g.NICs) }

// ConnectedPorts returns N of switch.md §1 for a switch: the number of its ports wired
// to a peer, which is every port of a Graph node.
func (g *Graph) ConnectedPorts(switchNode int) int { return len(g.Nodes[switchNode].Ports) }

// builder accumulates nodes and cables; ports are added in wiring order.
type builder struct {
	g       *Graph
	sw      [3]*config.Switch // per tier (records.md §2 number): the tier's switch attributes
	up      [3]uplink         // per tier: the cables from that tier up
	nic     *config.NIC
	pending []Cable // before sorting; port Cable fields are set in finish
}

func (b *builder) addSwitch(name string, tier int) int {
	n := len(b.g.Nodes)
	b.g.Nodes = append(b.g.Nodes, Node{ID: int64(n), Name: name, Kind: SwitchNode, Tier: tier,
		Index: int32(len(b.g.Switches)), Host: -1})
	b.g.Switches = append(b.g.Switches, n)
	return n
}

func (b *builder) addNIC(name string) int {
	n := len(b.g.Nodes)
	h := int32(len(b.g.NICs))
	b.g.Nodes = append(b.g.Nodes, Node{ID: int64(n), Name: name, Kind: NICNode, Tier: TierNIC,
		Index: h, Host: h})
	b.g.NICs = append(b.g.NICs, n)
	return n
}

// uplink is a tier's override of the cables from it up: rate (0 = the link rule's
// min of both ends) and delay (when delaySet; else the lower end's Delay).
type uplink struct {
	rate     float64
	delay    sim.Time
	delaySet bool
}

// rate returns the DataRate of node n's end of a cable (uplink side or downlink side).
func (b *builder) rate(n int, uplink bool) float64 {
	if b.g.Nodes[n].Kind == NICNode {
		return float64(b.nic.NetworkInterface.UplinkNetworkInterface.DataRate)
	}
	sw := b.sw[b.g.Nodes[n].Tier]
	if uplink {
		return float64(sw.NetworkInterface.UplinkNetworkInterface.DataRate)
	}
	return float64(sw.NetworkInterface.DownlinkNetworkInterface.DataRate)
}

// delay returns the propagation Delay of node n (records.md §2: a link uses the Delay of
// its lower end).
func (b *builder) delay(n int) sim.Time {
	if b.g.Nodes[n].Kind == NICNode {
		return b.nic.NetworkInterface.TransmissionMedium.Delay
	}
	return b.sw[b.g.Nodes[n].Tier].NetworkInterface.TransmissionMedium.Delay
}

// wire joins the next free port of upper node a (a downlink) with the next free port of
// lower node c (an uplink). Callers wire each node's downlinks before its uplinks
// (RC-6), which the construction order of each kind guarantees; finish checks it.
func (b *builder) wire(a, c int) {
	na, nc := &b.g.Nodes[a], &b.g.Nodes[c]
	ap, cp := int16(len(na.Ports)), int16(len(nc.Ports))
	na.Ports = append(na.Ports, Port{Ifid: ap, Peer: c, PeerPort: cp, Uplink: false})
	nc.Ports = append(nc.Ports, Port{Ifid: cp, Peer: a, PeerPort: ap, Uplink: true})
	cb := Cable{A: a, B: c, APort: ap, BPort: cp, RateBps: min(b.rate(a, false), b.rate(c, true)), Delay: b.delay(c)}
	if nc.Kind == SwitchNode {
		// A tier's uplink setting replaces the link rule for the cables from it up.
		if u := b.up[nc.Tier]; u.rate > 0 {
			cb.RateBps = u.rate
		}
		if u := b.up[nc.Tier]; u.delaySet {
			cb.Delay = u.delay
		}
	}
	b.pending = append(b.pending, cb)
}

// finish orders the cables by (upper node, upper port), links ports to cables and checks
// the port-order rule.
func (b *builder) finish() error {
	g := b.g
	// Cables ordered by upper end: count per node, then place.
	start := make([]int, len(g.Nodes)+1)
	for _, c := range b.pending {
		start[c.A+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	g.Cables = make([]Cable, len(b.pending))
	for _, c := range b.pending {
		// A's downlinks are ports 0..D-1 (RC-6) and are exactly the cables A tops.
		g.Cables[start[c.A]+int(c.APort)] = c
	}
	for i, c := range g.Cables {
		g.Nodes[c.A].Ports[c.APort].Cable = i
		g.Nodes[c.B].Ports[c.BPort].Cable = i
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if len(n.Ports) > maxPortID {
			return fmt.Errorf("topology: %s has %d ports, more than a port id holds (%d)", n.Name, len(n.Ports), maxPortID)
		}
		for p := 1; p < len(n.Ports); p++ {
			if n.Ports[p-1].Uplink && !n.Ports[p].Uplink {
				panic(fmt.Sprintf("topo: %s port %d: downlink after uplink (RC-6)", n.Name, p))
			}
		}
	}
	return nil
}

// Build wires the topology t with the port rates and delays of sw and nic and computes
// the routing tables. Errors name the topology key and value; a fabric beyond MaxHosts,
// MaxSwitchPorts or MaxRouteEntries is refused (reliability.md "Limits").
//
// Kinds:
//   - star: one rack switch (tier 2) with `hosts` NICs.
//   - leaf-spine: `leaves` rack switches (tier 2) with `hosts_per_leaf` NICs each and
//     `spines` spine switches (tier 0); `uplinks_per_spine` parallel cables join each
//     leaf to each spine, the switch's NumUpLinksPerSwitch when 0 (RC-7).
//   - fat-tree: the three-tier k-ary fat tree of k-port switches: (k/2)² spines (tier 0),
//     k pods of k/2 fabric (tier 1) and k/2 rack (tier 2) switches, k/2 hosts per rack,
//     k³/4 hosts. One cable per switch pair, so every switch has exactly k ports;
//     NumUpLinksPerSwitch does not multiply fat-tree cables.
func Build(t config.Topology, sw *config.Switch, nic *config.NIC) (*Graph, error) {
	if sw == nil || nic == nil {
		return nil, fmt.Errorf("topology: switch and NIC attributes are required")
	}
	return buildTiers(t, [3]*config.Switch{sw, sw, sw}, [3]uplink{}, nic, true)
}

// BuildConfig is Build with each tier's own switch attributes and uplinks (the `tiers:`
// block): config.Config.TierSwitch and TierUplink.
func BuildConfig(c *config.Config) (*Graph, error) { return buildConfig(c, true) }

// WireConfig is BuildConfig without the routing tables: the nodes, ports, cables and
// topology rows, for what reads the wiring but forwards nothing (explain's per-tier
// figures). Its O(hosts) cost leaves out the routes' O(rack switches × (switches +
// ports)). Route, RouteKeys, Hops and Path must not be called on its Graph.
func WireConfig(c *config.Config) (*Graph, error) { return buildConfig(c, false) }

func buildConfig(c *config.Config, routes bool) (*Graph, error) {
	var sws [3]*config.Switch
	var ups [3]uplink
	for t := range sws {
		sw := c.TierSwitch(t)
		sws[t] = &sw
		r, d, ok := c.TierUplink(t)
		ups[t] = uplink{rate: float64(r), delay: d, delaySet: ok}
	}
	return buildTiers(c.Topology, sws, ups, &c.NIC, routes)
}

func buildTiers(t config.Topology, sws [3]*config.Switch, ups [3]uplink, nic *config.NIC, routes bool) (*Graph, error) {
	for _, sw := range sws {
		if err := checkRates(sw, nic); err != nil {
			return nil, err
		}
	}
	// The keys' checks and the size limits are ShapeOf's, so that a job is refused by its
	// estimate exactly as it would be here.
	_, u, err := shapeOf(t, sws[TierRack])
	if err != nil {
		return nil, err
	}
	b := &builder{g: &Graph{}, sw: sws, up: ups, nic: nic}
	switch t.Kind {
	case "star":
		b.star(t)
	case "leaf-spine":
		b.leafSpine(t, u)
	case "fat-tree":
		b.fatTree(t)
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	if !routes {
		return b.g, nil
	}
	if err := b.g.buildRoutes(); err != nil {
		return nil, err
	}
	return b.g, nil
}

func checkRates(sw *config.Switch, nic *config.NIC) error {
	if r := sw.NetworkInterface.UplinkNetworkInterface.DataRate; r <= 0 {
		return fmt.Errorf("switch.UplinkNetworkInterface.DataRate: must be > 0, got %g bps", float64(r))
	}
	if r := sw.NetworkInterface.DownlinkNetworkInterface.DataRate; r <= 0 {
		return fmt.Errorf("switch.DownlinkNetworkInterface.DataRate: must be > 0, got %g bps", float64(r))
	}
	if r := nic.NetworkInterface.UplinkNetworkInterface.DataRate; r <= 0 {
		return fmt.Errorf("nic.UplinkNetworkInterface.DataRate: must be > 0, got %g bps", float64(r))
	}
	return nil
}

func positive(key string, v int) error {
	if v < 1 {
		return fmt.Errorf("topology.%s: must be >= 1, got %d", key, v)
	}
	return nil
}

// star wires a checked star (shapeOf).
func (b *builder) star(t config.Topology) {
	rs := b.addSwitch("Rack-0.RackSwitch", TierRack)
	for h := 0; h < t.Hosts; h++ {
		b.wire(rs, b.addNIC(fmt.Sprintf("Rack-0.Host-%d", h)))
	}
}

// leafSpine wires a checked leaf-spine (shapeOf) with u parallel cables per leaf–spine
// pair.
func (b *builder) leafSpine(t config.Topology, u int) {
	spines := make([]int, t.Spines)
	for s := range spines {
		spines[s] = b.addSwitch(fmt.Sprintf("SpineSwitch-%d", s), TierSpine)
	}
	leaves := make([]int, t.Leaves)
	for l := range leaves {
		leaves[l] = b.addSwitch(fmt.Sprintf("Rack-%d.RackSwitch", l), TierRack)
	}
	// Leaf downlinks (hosts) first, then each spine's downlinks and the leaves' uplinks
	// together: spine port l×U+u, leaf port HPL + s×U + u.
	for l, leaf := range leaves {
		for i := 0; i < t.HostsPerLeaf; i++ {
			h := l*t.HostsPerLeaf + i
			b.wire(leaf, b.addNIC(fmt.Sprintf("Rack-%d.Host-%d", l, h)))
		}
	}
	for _, sp := range spines {
		for _, leaf := range leaves {
			for i := 0; i < u; i++ {
				b.wire(sp, leaf)
			}
		}
	}
	// The loop above appends leaf ports spine-major only if, for one leaf, all cables to
	// spine s precede those to spine s+1 — true, as spines are the outer loop.
}

// fatTree wires a checked fat tree (shapeOf).
func (b *builder) fatTree(t config.Topology) {
	k := t.K
	half := k / 2
	spines := make([]int, half*half)
	for s := range spines {
		spines[s] = b.addSwitch(fmt.Sprintf("Plane-%d.SpineSwitch-%d", s/half, s), TierSpine)
	}
	fabric := make([]int, k*half) // pod p, position j: fabric[p*half+j]
	for i := range fabric {
		fabric[i] = b.addSwitch(fmt.Sprintf("Pod-%d.FabricSwitch-%d", i/half, i%half), TierFabric)
	}
	racks := make([]int, k*half) // pod p, rack r (global): racks[r], pod = r/half
	for r := range racks {
		racks[r] = b.addSwitch(fmt.Sprintf("Pod-%d.Rack-%d.RackSwitch", r/half, r), TierRack)
	}
	// Rack downlinks (hosts).
	for r, rs := range racks {
		for i := 0; i < half; i++ {
			h := r*half + i
			b.wire(rs, b.addNIC(fmt.Sprintf("Pod-%d.Rack-%d.Host-%d", r/half, r, h)))
		}
	}
	// Fabric downlinks to the pod's racks; rack uplinks in fabric-position order.
	for p := 0; p < k; p++ {
		for j := 0; j < half; j++ {
			for r := 0; r < half; r++ {
				b.wire(fabric[p*half+j], racks[p*half+r])
			}
		}
	}
	// Spine downlinks (port = pod); fabric uplinks in spine order within the plane.
	for s, sp := range spines {
		j := s / half
		for p := 0; p < k; p++ {
			b.wire(sp, fabric[p*half+j])
		}
	}
}

// TopologyRows returns the topology-report rows (records.md §9): one per cable, in
// Cables order, the upper end first (RC-19). linkspeed_Gbps is the cable's operating
// rate, prop_delay_ns the lower end's Delay.
func (g *Graph) TopologyRows(jobID string) []stats.TopologyLink {
	rows := make([]stats.TopologyLink, len(g.Cables))
	for i, c := range g.Cables {
		a, b := &g.Nodes[c.A], &g.Nodes[c.B]
		rows[i] = stats.TopologyLink{
			JobID:             jobID,
			ComponentName:     a.Name,
			ComponentType:     a.Kind.String(),
			Tier:              int32(a.Tier),
			Subtier:           stats.Subtier,
			NodeID:            a.ID,
			NetDevice:         a.NetDevice(),
			DevID:             int64(c.APort),
			PeerComponentName: b.Name,
			PeerComponentType: b.Kind.String(),
			PeerTier:          int32(b.Tier),
			PeerSubtier:       stats.Subtier,
			PeerNodeID:        b.ID,
			PeerNetDevice:     b.NetDevice(),
			PeerDevID:         int64(c.BPort),
			LinkspeedGbps:     c.RateBps / 1e9,
			PropDelayNs:       c.Delay.Nanos(),
		}
	}
	return rows
}

// NetDevice returns the port device class name of the node (RC-5).
func (n *Node) NetDevice() string {
	if n.Kind == NICNode {
		return NICNetDevice
	}
	return SwitchNetDevice
}
