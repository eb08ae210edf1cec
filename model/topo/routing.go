package topo

import "fmt"

// Routing: shortest paths with equal-cost sets, computed once per topology
// (switch.md §10). Hop count is the cost: every cable costs 1. A member of the set of
// switch s toward host h is an egress port of s whose peer lies on a shortest path to h
// (the port "where an equal-cost route begins"); members are in ascending port id
// (DC-15). NICs never forward, so paths run switch to switch and end on the host's
// port at its attachment (rack) switch.
//
// Tables are per attachment switch, not per host: every host behind the same rack
// switch has the same routes everywhere but at that rack switch, where the set is the
// host's own port. Memory is O(switches × rack switches) int32s plus the interned sets.

// routeTables maps hosts to attachment switches; Graph.route and Graph.hops are indexed
// [switch ordinal × A + attachment ordinal], A = len(attachSw).
type routeTables struct {
	attach   []int32 // host -> attachment ordinal
	attachSw []int32 // attachment ordinal -> switch ordinal
	hostSet  []int32 // host -> set id of {its port} at its attachment switch
	slot     []int32 // host -> index among the hosts of its attachment switch
	attachOf []int32 // switch ordinal -> attachment ordinal, -1 if no host attaches to it
	perAtt   []int32 // attachment ordinal -> hosts attached
}

// buildRoutes fills the routing tables. It runs one breadth-first search per attachment
// switch over the switch-only graph: O(A × (S + cables)).
func (g *Graph) buildRoutes() error {
	S := len(g.Switches)
	H := len(g.NICs)
	rt := &g.rt
	rt.attach = make([]int32, H)
	rt.hostSet = make([]int32, H)
	rt.slot = make([]int32, H)
	attOf := make([]int32, S) // switch ordinal -> attachment ordinal, -1 if none
	for i := range attOf {
		attOf[i] = -1
	}
	intern := map[string]int32{} // member list as little-endian bytes -> set id
	var key []byte
	setID := func(ports []int16) int32 {
		key = key[:0]
		for _, p := range ports {
			key = append(key, byte(p), byte(p>>8))
		}
		if id, ok := intern[string(key)]; ok {
			return id
		}
		id := int32(len(g.sets))
		g.sets = append(g.sets, append([]int16(nil), ports...))
		intern[string(key)] = id
		return id
	}
	for h, n := range g.NICs {
		p := g.Nodes[n].Ports[0]
		si := g.Nodes[p.Peer].Index
		if attOf[si] < 0 {
			attOf[si] = int32(len(rt.attachSw))
			rt.attachSw = append(rt.attachSw, si)
			rt.perAtt = append(rt.perAtt, 0)
		}
		rt.attach[h] = attOf[si]
		rt.slot[h] = rt.perAtt[attOf[si]]
		rt.perAtt[attOf[si]]++
		rt.hostSet[h] = setID([]int16{p.PeerPort})
	}
	rt.attachOf = attOf
	A := len(rt.attachSw)
	g.route = make([]int32, S*A)
	g.hops = make([]uint8, S*A)
	dist := make([]int32, S)
	queue := make([]int32, 0, S)
	var members []int16
	for a, target := range rt.attachSw {
		for i := range dist {
			dist[i] = -1
		}
		dist[target] = 0
		queue = append(queue[:0], target)
		for q := 0; q < len(queue); q++ {
			i := queue[q]
			for _, p := range g.Nodes[g.Switches[i]].Ports {
				peer := &g.Nodes[p.Peer]
				if peer.Kind != SwitchNode || dist[peer.Index] >= 0 {
					continue
				}
				dist[peer.Index] = dist[i] + 1
				queue = append(queue, peer.Index)
			}
		}
		for i := 0; i < S; i++ {
			d := dist[i]
			if d < 0 {
				return fmt.Errorf("topology: %s cannot reach %s", g.Nodes[g.Switches[i]].Name, g.Nodes[g.Switches[target]].Name)
			}
			if d > 254 {
				return fmt.Errorf("topology: path from %s to %s has %d hops (max 254)", g.Nodes[g.Switches[i]].Name, g.Nodes[g.Switches[target]].Name, d)
			}
			g.hops[i*A+a] = uint8(d)
			if d == 0 {
				g.route[i*A+a] = -1 // never read: the host's own port set applies
				continue
			}
			members = members[:0]
			for _, p := range g.Nodes[g.Switches[i]].Ports { // ascending ifid (DC-15)
				peer := &g.Nodes[p.Peer]
				if peer.Kind == SwitchNode && dist[peer.Index] == d-1 {
					members = append(members, p.Ifid)
				}
			}
			g.route[i*A+a] = setID(members)
		}
	}
	return nil
}

// Route returns the equal-cost members at switch node switchNode toward host dstHost:
// the egress port ids on shortest paths, ascending. The slice is shared and interned —
// identical member lists are the same slice (so a switch may key its equal-cost sets by
// the first element's address) — and must not be modified. O(1), no allocation.
// switchNode must be a switch's node index and dstHost a host index; it panics
// otherwise.
func (g *Graph) Route(switchNode int, dstHost int32) []int16 {
	i := g.Nodes[switchNode].Index
	a := g.rt.attach[dstHost]
	if g.rt.attachSw[a] == i {
		return g.sets[g.rt.hostSet[dstHost]]
	}
	return g.sets[g.route[int(i)*len(g.rt.attachSw)+int(a)]]
}

// RouteKeys is a dense numbering of the destinations one switch tells apart, for its
// next-hop table: hosts behind the same attachment switch have the same
// equal-cost set everywhere but at that switch (Route), so a switch needs one entry per
// attachment switch plus one per host attached to itself, not one per host.
type RouteKeys struct {
	Attach []int32 // host -> attachment ordinal (shared by every switch: do not modify)
	Slot   []int32 // host -> index among its attachment switch's hosts (shared)
	Self   int32   // the switch's own attachment ordinal; -1 when no host attaches to it
	N      int32   // attachment switches
	Size   int     // keys: N + the hosts attached to the switch
}

// Key returns host's key: its attachment ordinal, or N + its slot when it attaches to
// the switch itself. Two hosts with the same key have the same Route at the switch.
func (k *RouteKeys) Key(host int32) int32 {
	if a := k.Attach[host]; a != k.Self {
		return a
	}
	return k.N + k.Slot[host]
}

// RouteKeys returns the route keys of switch node switchNode.
func (g *Graph) RouteKeys(switchNode int) RouteKeys {
	k := RouteKeys{Attach: g.rt.attach, Slot: g.rt.slot, Self: g.rt.attachOf[g.Nodes[switchNode].Index], N: int32(len(g.rt.attachSw))}
	k.Size = int(k.N)
	if k.Self >= 0 {
		k.Size += int(g.rt.perAtt[k.Self])
	}
	return k
}

// Hops returns the number of cables on a shortest path from host srcHost to host
// dstHost (0 when they are the same host). The integrator computes an ideal FCT from it:
// serialisation + Σ propagation + PCIe; every cable of a path has the same delay class
// per tier (Path lists them).
func (g *Graph) Hops(srcHost, dstHost int32) int {
	if srcHost == dstHost {
		return 0
	}
	s := g.Nodes[g.Nodes[g.NICs[srcHost]].Ports[0].Peer].Index
	return int(g.hops[int(s)*len(g.rt.attachSw)+int(g.rt.attach[dstHost])]) + 2
}

// Path returns the cables (indexes in Cables) of one shortest path from host srcHost to
// host dstHost, in travel order, taking the first member at every switch. All shortest
// paths of these topologies have the same length, rates and delays, so any one serves
// for an ideal FCT (bottleneck rate = min RateBps, propagation = Σ Delay). It allocates;
// call it at set-up, not per packet.
func (g *Graph) Path(srcHost, dstHost int32) []int {
	if srcHost == dstHost {
		return nil
	}
	n := g.NICs[srcHost]
	p := g.Nodes[n].Ports[0]
	path := []int{p.Cable}
	n = p.Peer
	for g.Nodes[n].Kind == SwitchNode {
		port := g.Nodes[n].Ports[g.Route(n, dstHost)[0]]
		path = append(path, port.Cable)
		n = port.Peer
	}
	return path
}
