// Package explain derives the numbers `rocesweep explain` shows for one configuration,
// and every warning a command gives about it, from the model's own code: the switch
// buffer set-up of switch.md §4 (switchdev.InitBuffer) for each switch tier of the wiring
// (topo.WireConfig), the pause times of each link kind (switch.md §7.1, records.md §2),
// the NIC pools, thresholds and rates of nic.md §11, §12, §17 (nic.ComputePools), the
// sizing conditions of switch.md §4.6 and the settings the spec accepts but calls risky.
//
// It is a package of its own, not part of model/fabric, because it runs no simulation:
// it needs the wiring and the device set-up only, and a library caller (or a command
// that validates a whole grid) gets the figures and warnings without building a fabric.
// Byte figures are integers and times picoseconds (sim.Time); the JSON keys are those of
// `explain --json`.
package explain

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/nic"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/switchdev"
	"github.com/rocesweep/rocesweep/model/topo"
)

// Explanation is one configuration's derived figures.
type Explanation struct {
	Topology Topology `json:"topology"`
	// Switch is the rack (lowest) switch tier; Switches lists every tier when the
	// topology has more than one.
	Switch   Switch   `json:"switch"`
	Switches []Switch `json:"switches,omitempty"`
	NIC      NIC      `json:"nic"`
}

// Tiers returns every switch tier, rack first (Switches, or Switch alone).
func (ex *Explanation) Tiers() []Switch {
	if ex.Switches == nil {
		return []Switch{ex.Switch}
	}
	return ex.Switches
}

// Topology is the wiring's size.
type Topology struct {
	Kind     string `json:"kind"`
	Hosts    int    `json:"hosts"`
	Switches int    `json:"switches"`
}

// Switch is one switch tier's buffer set-up (switch.md §4, §6.1) and links.
type Switch struct {
	Tier            string `json:"tier"`   // rack, leaf, spine, edge, aggregation, core
	Count           int    `json:"count"`  // switches of this tier
	Config          string `json:"config"` // "switch", or "switch + tiers.spine (LossyAlpha 0.5, ...)"
	ConnectedPorts  int    `json:"connected_ports"`
	HeadroomPerPort int64  `json:"headroom_per_port"`
	HeadroomTotal   int64  `json:"headroom_total"`
	SizingTotal     int64  `json:"sizing_total"`
	EgressLimitForm string `json:"egress_limit_form"`
	UETPolicy       bool   `json:"uet_policy"`
	Xoff            int64  `json:"xoff"`
	Xon             int64  `json:"xon"`
	// PauseTimeNs and RefreshNs are those of PauseLink: the switch–NIC link where the tier
	// has one (pause times follow each link's rate and Delay), else its first link.
	PauseTimeNs   float64 `json:"pause_time_ns"`
	RefreshNs     float64 `json:"refresh_ns"`
	PauseLink     string  `json:"pause_link"`
	Links         []Link  `json:"links"`
	LargestPacket int64   `json:"largest_packet"` // charged bytes used by lossless_fits
	Pools         []Pool  `json:"pools"`
}

// Link is one kind of cable at a switch tier with its PFC timing (switch.md §7.1,
// records.md §2: operating rate = min of both ends, Delay of the lower end).
type Link struct {
	Link        string  `json:"link"` // "rack-nic", "leaf-spine", ...
	Ports       int     `json:"ports"`
	RateGbps    float64 `json:"rate_gbps"`
	DelayNs     float64 `json:"delay_ns"`
	DelayOf     string  `json:"delay_of"` // whose Delay the link takes
	PauseTimeNs float64 `json:"pause_time_ns"`
	RefreshNs   float64 `json:"refresh_ns"`
	// HeadroomNeeded is sizing condition 1 for this link (switchdev.HeadroomNeeded), what
	// a port's headroom must hold once it pauses its peer.
	HeadroomNeeded int64 `json:"headroom_needed"`
}

// Pool is one switch pool (switch.md §4.2-§4.4) and sizing condition 2 (§4.6).
type Pool struct {
	Pool            int     `json:"pool"`
	Size            int64   `json:"size"`
	Nominal         int64   `json:"nominal"`
	StaticLimit     int64   `json:"static_limit"`
	PerPortLimit    *int64  `json:"per_port_limit"` // null when dynamic
	RetxLimit       *int64  `json:"retx_limit,omitempty"`
	EcnMin          float64 `json:"ecn_min"`
	EcnMax          float64 `json:"ecn_max"`
	LosslessClasses []int   `json:"lossless_classes"`
	LossyClasses    []int   `json:"lossy_classes"`
	LosslessFits    *bool   `json:"lossless_fits"` // sizing condition 2; null without a lossless class
	LosslessNeeds   int64   `json:"lossless_needs,omitempty"`
}

// NIC is nic.md §11, §12, §17 for the line rate L.
type NIC struct {
	LineRateGbps       float64    `json:"line_rate_gbps"`
	EgressPools        [8]int64   `json:"egress_pools"`
	IngressPools       [8]int64   `json:"ingress_pools"`
	Xoff               [8]int64   `json:"xoff"`
	Xon                [8]int64   `json:"xon"`
	Headroom           [8]int64   `json:"headroom"`
	PauseTimeNs        float64    `json:"pause_time_ns"` // first PFC-enabled TC with a pool
	RefreshNs          float64    `json:"refresh_ns"`
	PauseTimeNsPerTC   [8]float64 `json:"pause_time_ns_per_tc"`
	HeadroomGuidance   int64      `json:"headroom_guidance"`
	DataPacketBytes    int64      `json:"data_packet_bytes"`
	PCIePayloadGbps    float64    `json:"pcie_payload_gbps"`
	NetworkPayloadGbps float64    `json:"network_payload_gbps"`
	PCIeRxPayloadGbps  float64    `json:"pcie_rx_payload_gbps"`
}

// Explain validates cfg and derives every figure and warning. A configuration that
// breaks a rule that stops a run is an error (config.Validate's, joined), except the
// UET-policy/RoCE-NIC incompatibility (config.RefUETWithRoCE), which is a warning so
// that the UET pools can still be inspected.
func Explain(cfg *config.Config) (Explanation, []Warning, error) {
	var ex Explanation
	var ws warnings
	if err := cfg.Validate(); err != nil {
		var hard []error
		for _, e := range unjoin(err) {
			if r := (*config.Rule)(nil); errors.As(e, &r) && r.Ref == config.RefUETWithRoCE {
				ws.add(r.Path, r.Ref, "a run would stop: "+e.Error())
				continue
			}
			hard = append(hard, e)
		}
		if len(hard) > 0 {
			return ex, nil, errors.Join(hard...)
		}
	}
	g, err := topo.WireConfig(cfg) // the wiring: explain reads no route
	if err != nil {
		return ex, nil, err
	}
	ex.Topology = Topology{Kind: cfg.Topology.Kind, Hosts: g.Hosts(), Switches: len(g.Switches)}

	// Switch tiers, lowest (rack) first.
	var tiers []int
	var bufs []switchdev.Buffer
	for _, tier := range []int{topo.TierRack, topo.TierFabric, topo.TierSpine} {
		var first *topo.Node
		count := 0
		for _, s := range g.Switches {
			if n := &g.Nodes[s]; n.Tier == tier {
				if first == nil {
					first = n
				}
				count++
			}
		}
		if first == nil {
			continue
		}
		se, b, err := explainSwitch(cfg, g, first, count)
		if err != nil {
			return Explanation{}, nil, err
		}
		ex.Switches = append(ex.Switches, se)
		tiers, bufs = append(tiers, tier), append(bufs, b)
	}
	// Tiers of one buffer set-up share their pools' warnings (conditions 2 and 3).
	for _, group := range Sections(ex.Switches) {
		sizingWarnings(&ws, cfg, ex.Switches, tiers, bufs, group)
	}
	ex.Switch = ex.Switches[0]
	if len(ex.Switches) == 1 {
		ex.Switches = nil
	}

	// NIC: L = min(NIC DataRate, rack switch downlink DataRate) (nic.md §0).
	p := nic.ComputePools(&cfg.NIC, &cfg.Global, LineRate(cfg))
	ex.NIC = explainNIC(cfg, &p)
	if p.PCIePayloadGbps < p.NetworkPayloadGbps {
		ws.add("nic.HostInterface", "nic.md §17", fmt.Sprintf("nic: PCIe payload rate %.1f Gbps is below the network payload rate %.1f Gbps: PCIe-bound, ingress pools fill and PFC engages (nic.md §17)",
			p.PCIePayloadGbps, p.NetworkPayloadGbps))
	}
	settingWarnings(&ws, cfg, &p)
	phaseLockWarnings(&ws, cfg)
	return ex, ws.list, nil
}

// Warnings returns Explain's warnings for cfg; for a configuration Explain refuses, the
// warnings of its settings alone (those need no buffer set-up).
func Warnings(cfg *config.Config) []Warning {
	if _, ws, err := Explain(cfg); err == nil {
		return ws
	}
	var ws warnings
	p := nic.ComputePools(&cfg.NIC, &cfg.Global, LineRate(cfg))
	settingWarnings(&ws, cfg, &p)
	return ws.list
}

// LineRate is the NIC's line rate L = min(NIC DataRate, rack switch downlink DataRate)
// (nic.md §0).
func LineRate(cfg *config.Config) float64 {
	rack := cfg.TierSwitch(config.TierRack)
	return min(float64(cfg.NIC.NetworkInterface.UplinkNetworkInterface.DataRate), float64(rack.NetworkInterface.DownlinkNetworkInterface.DataRate))
}

// largestPacket is a NIC data packet as the switch charges it: its L3 length, MSS + 40
// and at least 46 B (switch.md §5.1, nic.md §6).
func largestPacket(cfg *config.Config) int64 {
	return max(46, int64(cfg.NIC.RoceQpManager.MSS)+40)
}

// Sections groups tiers (indexes into tiers, in order) that run the same switch
// configuration on the same port count, so the same buffer set-up: a fat tree's three
// tiers are one section until a tier block sets its own.
func Sections(tiers []Switch) [][]int {
	var out [][]int
	keys := map[string]int{}
	for i, s := range tiers {
		key := fmt.Sprintf("%s|%d|%d|%d|%s|%v|%d|%d|%v", s.Config, s.ConnectedPorts, s.HeadroomPerPort, s.SizingTotal,
			s.EgressLimitForm, s.UETPolicy, s.Xoff, s.Xon, poolsKey(s.Pools))
		j, ok := keys[key]
		if !ok {
			j = len(out)
			keys[key] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], i)
	}
	return out
}

func poolsKey(ps []Pool) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%d %d %d %d %v %v %g %g %v %v %v %d;", p.Pool, p.Size, p.Nominal, p.StaticLimit, deref(p.PerPortLimit), deref(p.RetxLimit),
			p.EcnMin, p.EcnMax, p.LosslessClasses, p.LossyClasses, p.LosslessFits != nil && *p.LosslessFits, p.LosslessNeeds)
	}
	return b.String()
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

// And joins names as a sentence does: "edge", "edge and core", "edge, aggregation and core".
func And(xs []string) string {
	if len(xs) <= 1 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// TierName names topo tier t as the topology kind does (rack, leaf, spine, edge,
// aggregation, core).
func TierName(kind string, tier int) string {
	switch kind {
	case "star":
		return "rack"
	case "leaf-spine":
		if tier == topo.TierRack {
			return "leaf"
		}
		return "spine"
	}
	switch tier {
	case topo.TierRack:
		return "edge"
	case topo.TierFabric:
		return "aggregation"
	}
	return "core"
}

// explainSwitch derives one switch tier's figures from switchdev.InitBuffer for node n,
// the first of count switches of its tier, and returns its buffer too.
func explainSwitch(cfg *config.Config, g *topo.Graph, n *topo.Node, count int) (Switch, switchdev.Buffer, error) {
	kind := cfg.Topology.Kind
	name := TierName(kind, n.Tier)
	N := len(n.Ports)
	sw := cfg.TierSwitch(n.Tier)
	b, err := switchdev.InitBuffer(&sw, N)
	if err != nil {
		return Switch{}, b, err
	}
	largest := largestPacket(cfg)
	se := Switch{
		Tier: name, Count: count, Config: "switch", ConnectedPorts: N, HeadroomPerPort: b.HeadroomPerPort, HeadroomTotal: b.HeadroomTotal,
		SizingTotal: b.SizingTotal, EgressLimitForm: b.LimitForm, UETPolicy: b.UET, Xoff: b.Xoff, Xon: b.Xon,
		LargestPacket: largest,
	}
	if set := cfg.TierSettings(n.Tier); len(set) > 0 {
		se.Config = fmt.Sprintf("switch + tiers.%s (%s)", config.TierNames[n.Tier], strings.Join(set, ", "))
	}
	// Links: one entry per peer kind, in port order (downlinks first, RC-6).
	byPeer := map[string]int{}
	for _, port := range n.Ports {
		c := g.Cables[port.Cable]
		peer := &g.Nodes[port.Peer]
		pname := "nic"
		if peer.Kind == topo.SwitchNode {
			pname = TierName(kind, peer.Tier)
		}
		label := name + "-" + pname
		if i, ok := byPeer[label]; ok {
			se.Links[i].Ports++
			continue
		}
		lower := &g.Nodes[c.B]
		delayOf := "nic.Delay"
		if lower.Kind == topo.SwitchNode {
			delayOf = "switch.Delay (" + TierName(kind, lower.Tier) + " end)"
			if _, _, ok := cfg.TierUplink(lower.Tier); ok {
				delayOf = "tiers." + config.TierNames[lower.Tier] + ".uplink.delay"
			}
		}
		pt := sim.PauseTime(65535, c.RateBps, c.Delay) // switch.md §7.1: switch pauses request 65535 quanta
		byPeer[label] = len(se.Links)
		se.Links = append(se.Links, Link{Link: label, Ports: 1, RateGbps: c.RateBps / 1e9, DelayNs: c.Delay.Nanos(),
			DelayOf: delayOf, PauseTimeNs: pt.Nanos(), RefreshNs: (pt / 2).Nanos(),
			HeadroomNeeded: switchdev.HeadroomNeeded(c.RateBps, c.Delay, int64(cfg.Global.Mtu))})
	}
	if len(se.Links) > 0 {
		l := se.Links[0]
		se.PauseTimeNs, se.RefreshNs = l.PauseTimeNs, l.RefreshNs
		se.PauseLink = fmt.Sprintf("%s: %g Gbps, Delay %g ns (%s; records.md §2 link rule)", l.Link, l.RateGbps, l.DelayNs, l.DelayOf)
	}
	for p := 0; p < 8; p++ {
		if b.PoolSize[p] == 0 && b.PoolNominal[p] == 0 {
			continue
		}
		ep := Pool{Pool: p, Size: b.PoolSize[p], Nominal: b.PoolNominal[p], StaticLimit: b.StaticLimit[p],
			EcnMin: b.EcnMin[p], EcnMax: b.EcnMax[p], LosslessClasses: []int{}, LossyClasses: []int{}}
		if b.LimitForm != switchdev.LimitDynamic {
			v := b.PerPortLimit[p]
			ep.PerPortLimit = &v
		}
		if b.UET {
			v := b.RetxLimit[p]
			ep.RetxLimit = &v
		}
		for tc := 0; tc < 8; tc++ {
			if b.PoolOfTC[tc] != p || (b.UET && tc > 2) {
				continue // UET: the classifier never yields TC3..7 (switch.md §6.2)
			}
			if b.LosslessTC[tc] {
				ep.LosslessClasses = append(ep.LosslessClasses, tc)
			} else {
				ep.LossyClasses = append(ep.LossyClasses, tc)
			}
		}
		if len(ep.LosslessClasses) > 0 {
			fits := b.LosslessFits(p, largest)
			ep.LosslessFits = &fits
			ep.LosslessNeeds = int64(N) * (b.Xoff + largest)
		}
		se.Pools = append(se.Pools, ep)
	}
	return se, b, nil
}

// explainNIC is nic.md §11, §12, §17 from the NIC's pools p.
func explainNIC(cfg *config.Config, p *nic.Pools) NIC {
	ne := NIC{
		LineRateGbps: p.LineRateBps / 1e9, EgressPools: p.Egress, IngressPools: p.Ingress, Xoff: p.Xoff, Xon: p.Xon,
		Headroom: p.Headroom, HeadroomGuidance: nicGuidance(cfg, p), DataPacketBytes: p.DataPacketBytes,
		PCIePayloadGbps: p.PCIePayloadGbps, NetworkPayloadGbps: p.NetworkPayloadGbps, PCIeRxPayloadGbps: p.PCIeRxPayloadGbps,
	}
	ib := &cfg.NIC.NetworkInterface.IngressBufferManager
	pauseTC := -1
	for c := 0; c < 8; c++ {
		ne.PauseTimeNsPerTC[c] = p.PauseTime[c].Nanos()
		if pauseTC < 0 && p.Ingress[c] > 0 && ib.PFCEnableVector[c] == 1 {
			pauseTC = c
		}
	}
	if pauseTC >= 0 {
		ne.PauseTimeNs, ne.RefreshNs = p.PauseTime[pauseTC].Nanos(), p.Refresh[pauseTC].Nanos()
	}
	return ne
}

// nicGuidance is the NIC headroom guidance of nic.md §12.4, 2 × L × Delay / 8 + 2 × Mtu:
// switch.md §4.6 condition 1 on the NIC's link, by the same integer function
// (switchdev.HeadroomNeeded) as the switch's links.
func nicGuidance(cfg *config.Config, p *nic.Pools) int64 {
	return switchdev.HeadroomNeeded(p.LineRateBps, cfg.NIC.NetworkInterface.TransmissionMedium.Delay, int64(cfg.Global.Mtu))
}

// unjoin splits an errors.Join result.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
