package topo

import (
	"fmt"
	"math"

	"github.com/rocesweep/rocesweep/model/config"
)

// The largest fabric a job may have (reliability.md "Limits"). Each bounds one cost that grows
// with the fabric: a NIC per host, a switch port's queues and counters, and the routing
// tables, one entry per switch and rack switch (routing.go), which a job builds in
// O(rack switches × (switches + ports)). Build and ShapeOf refuse a topology beyond any of
// them, naming it.
const (
	MaxHosts        = 1 << 16 // 65,536: the fat tree of k = 64
	MaxSwitchPorts  = 1 << 20 // 1,048,576 connected switch ports (k = 64: 327,680)
	MaxRouteEntries = 1 << 24 // 16,777,216 = switches × rack switches (k = 64: 10,485,760)
)

// maxPortID is the largest port id (ifid, an int16).
const maxPortID = 1<<15 - 1

// Shape is a topology's size, from its keys alone in closed form: what Build would wire,
// counted without wiring it, so that a job can be estimated in O(1) (fabric.EstimateJob).
// Build wires exactly this shape (TestShapeMatchesBuild).
type Shape struct {
	Hosts, Switches int
	SwitchPorts     int // connected ports of all switches (each has a cable)
	Cables          int
	RackSwitches    int // switches hosts attach to; every rack switch has HostsPerRack
	HostsPerRack    int
	FirstRack       int // node index of rack switch 0; racks are consecutive nodes
}

// RouteEntries is the size of the routing tables: one entry per switch and rack switch.
func (s Shape) RouteEntries() int64 { return int64(s.Switches) * int64(s.RackSwitches) }

// RackOf returns the node index of host h's rack switch (Graph: Nodes[NICs[h]].Ports[0].Peer).
func (s Shape) RackOf(h int) int { return s.FirstRack + h/s.HostsPerRack }

// ShapeConfig is ShapeOf for a job's config, with the checks BuildConfig makes first (a
// DataRate of each tier above 0).
func ShapeConfig(c *config.Config) (Shape, error) {
	for t := range 3 {
		sw := c.TierSwitch(t)
		if err := checkRates(&sw, &c.NIC); err != nil {
			return Shape{}, err
		}
	}
	rack := c.TierSwitch(TierRack)
	s, _, err := shapeOf(c.Topology, &rack)
	return s, err
}

// ShapeOf returns the shape of topology t, whose rack switches have the attributes of
// rack (leaf-spine: NumUpLinksPerSwitch when uplinks_per_spine is 0), or Build's error
// for it. It allocates nothing.
func ShapeOf(t config.Topology, rack *config.Switch) (Shape, error) {
	s, _, err := shapeOf(t, rack)
	return s, err
}

// shapeOf is ShapeOf, also returning the leaf-spine's parallel cables per leaf–spine pair.
func shapeOf(t config.Topology, rack *config.Switch) (Shape, int, error) {
	var s Shape
	u := 0
	switch t.Kind {
	case "star":
		if err := positive("hosts", t.Hosts); err != nil {
			return s, 0, err
		}
		if t.Hosts > maxPortID {
			return s, 0, fmt.Errorf("topology: Rack-0.RackSwitch has %d ports, more than a port id holds (%d)", t.Hosts, maxPortID)
		}
		s = Shape{Hosts: t.Hosts, Switches: 1, SwitchPorts: t.Hosts, Cables: t.Hosts, RackSwitches: 1, HostsPerRack: t.Hosts}
	case "leaf-spine":
		for _, kv := range []struct {
			k string
			v int
		}{{"leaves", t.Leaves}, {"spines", t.Spines}, {"hosts_per_leaf", t.HostsPerLeaf}} {
			if err := positive(kv.k, kv.v); err != nil {
				return s, 0, err
			}
		}
		u = t.UplinksPerSpine
		if u < 0 {
			return s, 0, fmt.Errorf("topology.uplinks_per_spine: must be >= 0 (0 = switch.NumUpLinksPerSwitch), got %d", u)
		}
		if u == 0 {
			// RC-7: parallel uplinks per peer = the lower switch's NumUpLinksPerSwitch.
			if rack.NumUpLinksPerSwitch < 1 || rack.NumUpLinksPerSwitch > 1<<14 {
				return s, 0, fmt.Errorf("switch.NumUpLinksPerSwitch: must be 1..16384 when topology.uplinks_per_spine is 0, got %d", rack.NumUpLinksPerSwitch)
			}
			u = int(rack.NumUpLinksPerSwitch)
		}
		if n := mul(t.Leaves, t.HostsPerLeaf); n > MaxHosts {
			return s, 0, fmt.Errorf("topology: a leaf-spine of %s leaves × %s hosts_per_leaf has %s hosts; at most %s (docs/reliability.md \"Limits\")",
				config.Commas(int64(t.Leaves)), config.Commas(int64(t.HostsPerLeaf)), commas(n), config.Commas(MaxHosts))
		}
		if n := float64(t.HostsPerLeaf) + mul(t.Spines, u); n > maxPortID {
			return s, 0, fmt.Errorf("topology: a leaf would have hosts_per_leaf + spines × uplinks = %s ports (max %d)", commas(n), maxPortID)
		}
		if n := mul(t.Leaves, u); n > maxPortID {
			return s, 0, fmt.Errorf("topology: a spine would have leaves × uplinks = %s ports (max %d)", commas(n), maxPortID)
		}
		// Both per-switch port counts are now below 2^15 and the leaves at most 2^16, so
		// these products fit an int.
		hosts, up := t.Leaves*t.HostsPerLeaf, t.Leaves*t.Spines*u
		s = Shape{Hosts: hosts, Switches: t.Spines + t.Leaves, SwitchPorts: hosts + 2*up, Cables: hosts + up,
			RackSwitches: t.Leaves, HostsPerRack: t.HostsPerLeaf, FirstRack: t.Spines}
		if s.SwitchPorts > MaxSwitchPorts {
			return s, 0, fmt.Errorf("topology: a leaf-spine of %s leaves, %s spines and %d uplinks per leaf–spine pair has %s switch ports; at most %s (docs/reliability.md \"Limits\")",
				config.Commas(int64(t.Leaves)), config.Commas(int64(t.Spines)), u, config.Commas(int64(s.SwitchPorts)), config.Commas(MaxSwitchPorts))
		}
		if n := s.RouteEntries(); n > MaxRouteEntries {
			return s, 0, fmt.Errorf("topology: a leaf-spine of %s leaves and %s spines routes from %s switches to %s rack switches: %s route entries; at most %s (docs/reliability.md \"Limits\")",
				config.Commas(int64(t.Leaves)), config.Commas(int64(t.Spines)), config.Commas(int64(s.Switches)), config.Commas(int64(s.RackSwitches)),
				config.Commas(n), config.Commas(MaxRouteEntries))
		}
	case "fat-tree":
		k := t.K
		if k < 2 || k%2 != 0 {
			return s, 0, fmt.Errorf("topology.k: must be an even number >= 2, got %d", k)
		}
		if n := float64(k) * float64(k) * float64(k) / 4; n > MaxHosts {
			return s, 0, fmt.Errorf("topology.k: a fat tree of k = %d has %s hosts; at most %s (docs/reliability.md \"Limits\")", k, commas(n), config.Commas(MaxHosts))
		}
		// k³/4 ≤ 2^16, so k ≤ 64 and every product below fits an int. Each switch has k
		// ports; (k/2)² spines, k pods of k/2 fabric and k/2 rack switches.
		half := k / 2
		hosts := k * k * k / 4
		s = Shape{Hosts: hosts, Switches: half*half + 2*k*half, RackSwitches: k * half, HostsPerRack: half,
			FirstRack: half*half + k*half, Cables: 3 * hosts}
		s.SwitchPorts = s.Switches * k
		// At most k = 64: 327,680 switch ports and 10,485,760 route entries, below the
		// limits, so the host limit is the one a fat tree meets.
	default:
		return s, 0, fmt.Errorf("topology.kind: unknown kind %q (star, leaf-spine, fat-tree)", t.Kind)
	}
	return s, u, nil
}

// mul is a × b as a float64, exact below 2^53 and never wrapping, for checks of keys a
// spec may set to any int.
func mul(a, b int) float64 { return float64(a) * float64(b) }

// commas writes a count that may exceed an int64 ("250,000"; "1.845e+19").
func commas(x float64) string {
	if x < math.MaxInt64/2 {
		return config.Commas(int64(x))
	}
	return config.CommasF(x)
}
