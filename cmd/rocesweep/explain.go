package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/nic"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/switchdev"
	"github.com/rocesweep/rocesweep/model/topo"
	"github.com/rocesweep/rocesweep/sweep"
)

// cmdExplain prints the derived numbers of one configuration (design.md "Commands users
// type"): the switch buffer set-up of switch.md §4 (from switchdev.InitBuffer) for each
// switch tier of the topology, the pause times of each link kind (records.md §2 link
// rule), and the NIC pools, PFC thresholds, pause time and rates of nic.md §11, §12, §17
// (from nic.ComputePools). Bad input exits 2 before anything is printed.
func cmdExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var sets []string
	var asJSON bool
	fs.StringArrayVar(&sets, "set", nil, "override one attribute: path=value (repeatable)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	jobSel := fs.String("job", "", "with a SPEC that sweeps: the job to explain, by id or index (default 0; rocesweep plan SPEC lists them)")
	if err := fs.Parse(args); err != nil {
		return flagError("explain", fs, err)
	}
	if fs.NArg() > 1 {
		return usagef("explain: one SPEC at most, got %d arguments", fs.NArg())
	}
	cfg, job, err := explainTarget(fs.Args(), sets, *jobSel)
	if err != nil {
		return err
	}
	ex, err := explainConfig(&cfg)
	if err != nil {
		return err
	}
	ex.Job = job
	if job != nil && !asJSON {
		fmt.Fprintf(stdout, "explaining %s of %d, id %s (--job ID or INDEX picks another)\n\n", job.Label, job.Of, job.ID)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	ex.writeSheet(stdout)
	return nil
}

// explainJob names the job of a sweep that explain explains.
type explainJob struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Label string `json:"label"` // "job 3 (switch.LossyAlpha=1, ...)"
	Of    int    `json:"of"`    // jobs in the plan
}

// explainTarget returns the configuration to explain: for a SPEC that sweeps, the job
// sel names (an id or an index; job 0 when empty) with its job; otherwise explainLoad's.
func explainTarget(files, sets []string, sel string) (config.Config, *explainJob, error) {
	if len(files) == 1 {
		data, err := os.ReadFile(files[0])
		if err != nil {
			return config.Config{}, nil, usagef("explain: %v", err)
		}
		spec, err := sweep.ParseSpec(files[0], data, sets)
		if err != nil {
			return config.Config{}, nil, usageError{err}
		}
		if len(spec.Axes) > 0 || spec.Sample != nil {
			p, err := sweep.Expand(spec, nil)
			if err != nil {
				return config.Config{}, nil, usageError{err}
			}
			j, err := pickJob(p, sel)
			if err != nil {
				return config.Config{}, nil, err
			}
			return j.Config, &explainJob{Index: j.Index, ID: j.ID, Label: p.Label(j), Of: len(p.Jobs)}, nil
		}
	}
	if sel != "" {
		return config.Config{}, nil, usagef("explain: --job %s: the configuration has no sweep, so one job", sel)
	}
	cfg, err := explainLoad("explain", files, sets)
	return cfg, nil, err
}

// pickJob finds a job of p by id or index; "" is job 0.
func pickJob(p *sweep.Plan, sel string) (*sweep.Job, error) {
	if sel == "" {
		sel = "0"
	}
	for _, j := range p.Jobs {
		if j.ID == sel {
			return j, nil
		}
	}
	if i, err := strconv.Atoi(sel); err == nil && i >= 0 && i < len(p.Jobs) {
		return p.Jobs[i], nil
	}
	return nil, usagef("explain: --job %s: no job with that id, and not an index 0..%d (rocesweep plan SPEC lists them)", sel, len(p.Jobs)-1)
}

// explainLoad builds the configuration of a single-job command: the SPEC file (if any,
// its sweep section ignored) or the defaults, then each --set in order. Errors are
// usage errors (exit 2).
func explainLoad(cmd string, files, sets []string) (config.Config, error) {
	cfg := config.Default()
	if len(files) == 1 {
		data, err := os.ReadFile(files[0])
		if err != nil {
			return cfg, usagef("%s: %v", cmd, err)
		}
		if cfg, err = config.Load(files[0], data); err != nil {
			return cfg, usageError{err}
		}
	}
	for _, s := range sets {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return cfg, usagef("--set %q: want path=value", s)
		}
		if err := cfg.Set(strings.TrimSpace(path), value); err != nil {
			return cfg, usagef("--set %s: %v", s, err)
		}
	}
	return cfg, nil
}

// explanation is the JSON of `explain --json` (keys fixed by issue 2; tests and scripts
// rely on them).
type explanation struct {
	Topology explainTopology `json:"topology"`
	// Switch is the rack (lowest) switch tier; Switches lists every tier when the
	// topology has more than one.
	Switch   switchExplain   `json:"switch"`
	Switches []switchExplain `json:"switches,omitempty"`
	NIC      nicExplain      `json:"nic"`
	Warnings []string        `json:"warnings"`
	Job      *explainJob     `json:"job,omitempty"` // the job of a sweep SPEC explained
}

type explainTopology struct {
	Kind     string `json:"kind"`
	Hosts    int    `json:"hosts"`
	Switches int    `json:"switches"`
}

type switchExplain struct {
	Tier            string        `json:"tier"`   // rack, leaf, spine, edge, aggregation, core
	Count           int           `json:"count"`  // switches of this tier
	Config          string        `json:"config"` // "switch", or "switch + tiers.spine (LossyAlpha 0.5, ...)" (issue 17)
	ConnectedPorts  int           `json:"connected_ports"`
	HeadroomPerPort int64         `json:"headroom_per_port"`
	HeadroomTotal   int64         `json:"headroom_total"`
	SizingTotal     int64         `json:"sizing_total"`
	EgressLimitForm string        `json:"egress_limit_form"`
	UETPolicy       bool          `json:"uet_policy"`
	Xoff            int64         `json:"xoff"`
	Xon             int64         `json:"xon"`
	PauseTimeNs     float64       `json:"pause_time_ns"` // on PauseLink
	RefreshNs       float64       `json:"refresh_ns"`
	PauseLink       string        `json:"pause_link"`
	Links           []explainLink `json:"links"`
	LargestPacket   int64         `json:"largest_packet"` // charged bytes used by lossless_fits
	Pools           []explainPool `json:"pools"`
}

// explainLink is one kind of cable at a switch tier with its PFC timing (switch.md §7.1,
// records.md §2: operating rate = min of both ends, Delay of the lower end).
type explainLink struct {
	Link        string  `json:"link"` // "rack-nic", "leaf-spine", ...
	Ports       int     `json:"ports"`
	RateGbps    float64 `json:"rate_gbps"`
	DelayNs     float64 `json:"delay_ns"`
	DelayOf     string  `json:"delay_of"` // whose Delay the link takes
	PauseTimeNs float64 `json:"pause_time_ns"`
	RefreshNs   float64 `json:"refresh_ns"`
	// HeadroomNeeded is sizing condition 1 for this link: 2 × rate × Delay / 8 + 2 × Mtu
	// (switch.md §4.6), what a port's headroom must hold once it pauses its peer.
	HeadroomNeeded int64 `json:"headroom_needed"`
}

type explainPool struct {
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

type nicExplain struct {
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

// tierNames names topo tiers per topology kind (config.SwitchTiers order is rack first).
func explainTierName(kind string, tier int) string {
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

// explainConfig validates cfg and derives every figure. Validation failures are usage
// errors, except the UET-policy/RoCE-NIC incompatibility (nic.md §15 rule 7), which
// explain reports as a warning so the UET pools can still be inspected.
func explainConfig(cfg *config.Config) (*explanation, error) {
	ex := &explanation{Warnings: []string{}}
	if err := cfg.Validate(); err != nil {
		var hard []error
		for _, e := range explainUnjoin(err) {
			var r *config.Rule
			if errors.As(e, &r) && strings.Contains(r.Ref, "nic.md §15 rule 7") {
				ex.Warnings = append(ex.Warnings, "a run would stop: "+e.Error())
				continue
			}
			hard = append(hard, e)
		}
		if len(hard) > 0 {
			return nil, usageError{errors.Join(hard...)}
		}
	}
	g, err := topo.WireConfig(cfg) // the wiring: explain reads no route
	if err != nil {
		return nil, usageError{err}
	}
	ex.Topology = explainTopology{Kind: cfg.Topology.Kind, Hosts: g.Hosts(), Switches: len(g.Switches)}

	// Switch tiers, lowest (rack) first.
	mss := int64(cfg.NIC.RoceQpManager.MSS)
	largest := max(46, mss+40) // NIC data packet charged at the switch: L3 length (switch.md §5.1, nic.md §6)
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
		se, warns, err := explainSwitch(cfg, g, first, count, largest)
		if err != nil {
			return nil, usageError{err}
		}
		ex.Warnings = append(ex.Warnings, warns...)
		ex.Switches = append(ex.Switches, se)
	}
	ex.Switch = ex.Switches[0]
	if len(ex.Switches) == 1 {
		ex.Switches = nil
	}

	// NIC: L = min(NIC DataRate, rack switch downlink DataRate) (nic.md §0).
	rack := cfg.TierSwitch(config.TierRack)
	L := min(float64(cfg.NIC.NetworkInterface.UplinkNetworkInterface.DataRate), float64(rack.NetworkInterface.DownlinkNetworkInterface.DataRate))
	p := nic.ComputePools(&cfg.NIC, &cfg.Global, L)
	ne := nicExplain{
		LineRateGbps: L / 1e9, EgressPools: p.Egress, IngressPools: p.Ingress, Xoff: p.Xoff, Xon: p.Xon,
		Headroom: p.Headroom, HeadroomGuidance: p.HeadroomGuidance, DataPacketBytes: p.DataPacketBytes,
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
	ex.NIC = ne
	if p.PCIePayloadGbps < p.NetworkPayloadGbps {
		ex.Warnings = append(ex.Warnings, fmt.Sprintf("nic: PCIe payload rate %.1f Gbps is below the network payload rate %.1f Gbps: PCIe-bound, ingress pools fill and PFC engages (nic.md §17)",
			p.PCIePayloadGbps, p.NetworkPayloadGbps))
	}
	ex.Warnings = append(ex.Warnings, cfg.Warnings()...)
	ex.Warnings = append(ex.Warnings, phaseLockWarnings(cfg)...)
	return ex, nil
}

// phaseLockWarnings warns when a lossy data class receives an incast while every source
// of desynchronisation is off: NICs at exactly one rate phase-lock, simultaneous arrivals
// are served in a fixed order, and the same senders lose every packet (README
// "Desynchronised senders"). Start jitter alone does not break it.
func phaseLockWarnings(cfg *config.Config) []string {
	n := &cfg.NIC
	if n.ClockTolerancePpm != 0 || n.TxJitter != 0 {
		return nil
	}
	elems := []config.Workload{cfg.Workload}
	if cfg.Workload.Kind == "mix" {
		elems = cfg.Workload.Mix
	}
	rack := cfg.TierSwitch(config.TierRack)
	var out []string
	for i, w := range elems {
		if w.Kind != "incast" || w.DataTC < 0 || w.DataTC > 7 || rack.SharedBufferManager.EnablePFC[w.DataTC] == 1 {
			continue
		}
		name := "workload"
		if cfg.Workload.Kind == "mix" {
			name = fmt.Sprintf("workload.mix.%d", i)
		}
		out = append(out, fmt.Sprintf("%s: an incast on lossy data_tc %d with every source of desynchronisation off (nic.ClockTolerancePpm and nic.TxJitter are 0): senders phase-lock, a fixed set of them loses every packet and waits for the retransmission timer; set e.g. nic.ClockTolerancePpm=100 and nic.TxJitter=5ns (README \"Desynchronised senders\")", name, w.DataTC))
	}
	return out
}

// explainSwitch derives one switch tier's figures from switchdev.InitBuffer.
func explainSwitch(cfg *config.Config, g *topo.Graph, n *topo.Node, count int, largest int64) (switchExplain, []string, error) {
	kind := cfg.Topology.Kind
	name := explainTierName(kind, n.Tier)
	N := len(n.Ports)
	sw := cfg.TierSwitch(n.Tier)
	b, err := switchdev.InitBuffer(&sw, N)
	if err != nil {
		return switchExplain{}, nil, err
	}
	se := switchExplain{
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
			pname = explainTierName(kind, peer.Tier)
		}
		label := name + "-" + pname
		if i, ok := byPeer[label]; ok {
			se.Links[i].Ports++
			continue
		}
		lower := &g.Nodes[c.B]
		delayOf := "nic.Delay"
		if lower.Kind == topo.SwitchNode {
			delayOf = "switch.Delay (" + explainTierName(kind, lower.Tier) + " end)"
			if _, _, ok := cfg.TierUplink(lower.Tier); ok {
				delayOf = "tiers." + config.TierNames[lower.Tier] + ".uplink.delay"
			}
		}
		pt := sim.PauseTime(65535, c.RateBps, c.Delay) // switch.md §7.1: switch pauses request 65535 quanta
		byPeer[label] = len(se.Links)
		se.Links = append(se.Links, explainLink{Link: label, Ports: 1, RateGbps: c.RateBps / 1e9, DelayNs: c.Delay.Nanos(),
			DelayOf: delayOf, PauseTimeNs: pt.Nanos(), RefreshNs: (pt / 2).Nanos(),
			HeadroomNeeded: explainHeadroomNeeded(c.RateBps, c.Delay, int64(cfg.Global.Mtu))})
	}
	// The headline pause time is the switch–NIC link where the tier has one (design.md:
	// pause times follow each link's rate and Delay), else its first link.
	if len(se.Links) > 0 {
		l := se.Links[0]
		se.PauseTimeNs, se.RefreshNs = l.PauseTimeNs, l.RefreshNs
		se.PauseLink = fmt.Sprintf("%s: %g Gbps, Delay %g ns (%s; records.md §2 link rule)", l.Link, l.RateGbps, l.DelayNs, l.DelayOf)
	}
	var warns []string
	for p := 0; p < 8; p++ {
		if b.PoolSize[p] == 0 && b.PoolNominal[p] == 0 {
			continue
		}
		ep := explainPool{Pool: p, Size: b.PoolSize[p], Nominal: b.PoolNominal[p], StaticLimit: b.StaticLimit[p],
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
				continue
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
			if !fits {
				warns = append(warns, fmt.Sprintf("%s switch pool %d (%s B) fails sizing condition 2: %d ports × (Xoff %s + largest packet %s) = %s B; lossless %s can be dropped at ingress (switch.md §4.6)",
					name, p, config.Commas(b.PoolSize[p]), N, config.Commas(b.Xoff), config.Commas(largest), config.Commas(ep.LosslessNeeds), explainTCs(ep.LosslessClasses)))
			}
		}
		if used := explainUsedTCs(&cfg.Workload, ep.LossyClasses); len(ep.LosslessClasses) > 0 && len(used) > 0 {
			warns = append(warns, explainStickyPause(name, p, ep, used, &b, se))
		}
		se.Pools = append(se.Pools, ep)
	}
	// Sizing condition 1 (switch.md §4.6) on each link kind.
	for _, l := range se.Links {
		need := l.HeadroomNeeded
		if b.HeadroomPerPort < need {
			warns = append(warns, fmt.Sprintf("%s switch: HeadRoomPerPortLimit %s B is below the %s B a %s link needs (2 × rate × Delay / 8 + 2 × Mtu, switch.md §4.6 condition 1)",
				name, config.Commas(b.HeadroomPerPort), config.Commas(need), l.Link))
		}
	}
	return se, warns, nil
}

// explainStickyPause is the warning for sizing condition 3 (switch.md §4.6): a lossless
// class shares pool p with a lossy class. Lossy bytes count in a port's ingress
// occupancy, but only a lossless departure can lift a pause (switch.md §5.5, DC-9), so a
// port that lossy bytes pushed past Xoff stays paused once its lossless packets are gone.
func explainStickyPause(tier string, p int, ep explainPool, lossy []int, b *switchdev.Buffer, se switchExplain) string {
	c := config.Commas
	refresh := ""
	if len(se.Links) > 0 {
		refresh = fmt.Sprintf(", refreshed every %s on a %s link", explainNs(se.Links[0].RefreshNs), se.Links[0].Link)
	}
	return fmt.Sprintf("%s switch pool %d holds lossless %s and lossy %s, failing sizing condition 3 (switch.md §4.6): "+
		"lossy bytes count toward a port's ingress occupancy, but a pause lifts only when a lossless packet leaves with the port's headroom empty and occupancy ≤ Xon %s B (switch.md §5.5, DC-9). "+
		"A port whose lossy bytes push it past Xoff %s B after its lossless packets have left stays paused%s, even once the buffer is empty: "+
		"a sticky pause, not congestion (status and report count such ports as stuck_pause_ports). Map the lossy class to a pool of its own (TrafficClassPoolMapping)",
		tier, p, explainTCs(ep.LosslessClasses), explainTCs(lossy), c(b.Xon), c(b.Xoff), refresh)
}

// explainUsedTCs returns the classes of tcs that the workload sends on (data_tc or
// control_tc of it or of a mix element): a lossy class nobody uses cannot hold a pause.
func explainUsedTCs(w *config.Workload, tcs []int) []int {
	used := map[int]bool{}
	var add func(w *config.Workload)
	add = func(w *config.Workload) {
		if w.Kind == "mix" {
			for i := range w.Mix {
				add(&w.Mix[i])
			}
			return
		}
		if w.Kind != "none" {
			used[w.DataTC], used[w.ControlTC] = true, true
		}
	}
	add(w)
	var out []int
	for _, tc := range tcs {
		if used[tc] {
			out = append(out, tc)
		}
	}
	return out
}

// explainHeadroomNeeded is sizing condition 1 of switch.md §4.6, 2 × rate × Delay / 8 +
// 2 × Mtu, from the Delay in picoseconds: exact for whole rates and delays, where
// seconds as a float would round 2,000,000 B up to 2,000,001.
func explainHeadroomNeeded(rateBps float64, delay sim.Time, mtu int64) int64 {
	return int64(math.Ceil(2*rateBps*float64(delay)/8e12)) + 2*mtu
}

// explainUnjoin splits an errors.Join result.
func explainUnjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// writeSheet prints the explanation as a readable sheet.
func (ex *explanation) writeSheet(w io.Writer) {
	c := config.Commas
	fmt.Fprintf(w, "topology: %s, %s, %s\n", ex.Topology.Kind, plural(ex.Topology.Hosts, "host"), plural(ex.Topology.Switches, "switch"))
	tiers := ex.Switches
	if tiers == nil {
		tiers = []switchExplain{ex.Switch}
	}
	for _, s := range explainSections(tiers) {
		fmt.Fprintf(w, "\n%s, %d connected ports   [switch.md §4]\n", s.Tier, s.ConnectedPorts)
		fmt.Fprintf(w, "  configuration       %s\n", s.Config)
		if s.UETPolicy {
			fmt.Fprintf(w, "  UET policy: three pools 1.5 : 1 : 1 (switch.md §6.1)\n")
		}
		fmt.Fprintf(w, "  headroom            %s B per port × %d = %s B\n", c(s.HeadroomPerPort), s.ConnectedPorts, c(s.HeadroomTotal))
		fmt.Fprintf(w, "  sizing total        %s B\n", c(s.SizingTotal))
		fmt.Fprintf(w, "  egress limit form   %s\n", s.EgressLimitForm)
		fmt.Fprintf(w, "  Xoff / Xon          %s / %s B (band %s B)\n", c(s.Xoff), c(s.Xon), c(s.Xoff-s.Xon))
		fmt.Fprintf(w, "  %-5s %14s %14s %14s %27s  %-9s %-9s %s\n", "pool", "size", "static limit", "per-port limit", "ECN band", "lossless", "lossy", "fits (cond. 2)")
		for _, p := range s.Pools {
			ppl := "dynamic"
			if p.PerPortLimit != nil {
				ppl = c(*p.PerPortLimit)
			}
			fits := "-"
			if p.LosslessFits != nil {
				fits = fmt.Sprintf("%v (needs %s)", *p.LosslessFits, c(p.LosslessNeeds))
			}
			fmt.Fprintf(w, "  %-5d %14s %14s %14s %27s  %-9s %-9s %s\n", p.Pool, c(p.Size), c(p.StaticLimit), ppl,
				fmt.Sprintf("%s – %s", explainBytesF(p.EcnMin), explainBytesF(p.EcnMax)), explainTCs(p.LosslessClasses), explainTCs(p.LossyClasses), fits)
		}
		fmt.Fprintf(w, "  pause time (65535 quanta), per link kind   [switch.md §7.1, records.md §2]\n")
		for _, l := range s.Links {
			fmt.Fprintf(w, "    %-18s %3d ports  %g Gbps, Delay %g ns (%s): pause %s, refresh %s, headroom needed %s B\n", l.Link, l.Ports, l.RateGbps, l.DelayNs, l.DelayOf,
				explainNs(l.PauseTimeNs), explainNs(l.RefreshNs), c(l.HeadroomNeeded))
		}
	}
	n := ex.NIC
	fmt.Fprintf(w, "\nNIC   [nic.md §11, §12, §17]\n")
	fmt.Fprintf(w, "  line rate L         %g Gbps\n", n.LineRateGbps)
	fmt.Fprintf(w, "  %-4s %12s %12s %12s %12s %12s %12s\n", "TC", "egress pool", "ingress pool", "Xoff", "Xon", "headroom", "pause time")
	for tc := 0; tc < 8; tc++ {
		if n.EgressPools[tc] == 0 && n.IngressPools[tc] == 0 {
			continue
		}
		pt := "-"
		if n.PauseTimeNsPerTC[tc] > 0 {
			pt = explainNs(n.PauseTimeNsPerTC[tc])
		}
		fmt.Fprintf(w, "  %-4d %12s %12s %12s %12s %12s %12s\n", tc, c(n.EgressPools[tc]), c(n.IngressPools[tc]), c(n.Xoff[tc]), c(n.Xon[tc]), c(n.Headroom[tc]), pt)
	}
	fmt.Fprintf(w, "  refresh             %s\n", explainNs(n.RefreshNs))
	fmt.Fprintf(w, "  headroom guidance   %s B (2 × L × Delay / 8 + 2 × Mtu, nic.md §12.4)\n", c(n.HeadroomGuidance))
	fmt.Fprintf(w, "  data packet         %s B on the wire (MSS + 58)\n", c(n.DataPacketBytes))
	fmt.Fprintf(w, "  payload rates       PCIe %.1f Gbps, network %.1f Gbps, PCIe receive while sending %.1f Gbps\n", n.PCIePayloadGbps, n.NetworkPayloadGbps, n.PCIeRxPayloadGbps)
	if len(ex.Warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings:\n")
		for _, s := range ex.Warnings {
			fmt.Fprintf(w, "  ! %s\n", s)
		}
	}
}

// explainSections merges tiers that run the same switch configuration on the same port
// count (so the same buffer set-up) into one section of the sheet, named by its tiers and
// switch counts: "edge, aggregation and core switches (8, 8 and 4 of them)". Their links
// are listed together. The JSON keeps one entry per tier.
func explainSections(tiers []switchExplain) []switchExplain {
	var out []switchExplain
	var names [][]string
	var counts [][]string
	keys := map[string]int{}
	for _, s := range tiers {
		pools, _ := json.Marshal(s.Pools)
		key := fmt.Sprintf("%s|%d|%d|%d|%s|%v|%d|%d|%s", s.Config, s.ConnectedPorts, s.HeadroomPerPort, s.SizingTotal,
			s.EgressLimitForm, s.UETPolicy, s.Xoff, s.Xon, pools)
		i, ok := keys[key]
		if !ok {
			i = len(out)
			keys[key] = i
			out = append(out, s)
			out[i].Links = slices.Clone(s.Links)
			names, counts = append(names, nil), append(counts, nil)
		} else {
			out[i].Links = append(out[i].Links, s.Links...)
		}
		names[i] = append(names[i], s.Tier)
		counts[i] = append(counts[i], fmt.Sprint(s.Count))
	}
	and := func(xs []string) string {
		if len(xs) == 1 {
			return xs[0]
		}
		return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
	}
	for i := range out {
		noun := "switch"
		if len(names[i]) > 1 || counts[i][0] != "1" {
			noun = "switches"
		}
		out[i].Tier = fmt.Sprintf("%s %s (%s of them)", and(names[i]), noun, and(counts[i]))
	}
	return out
}

func explainTCs(tcs []int) string {
	if len(tcs) == 0 {
		return "-"
	}
	var parts []string
	for i := 0; i < len(tcs); {
		j := i
		for j+1 < len(tcs) && tcs[j+1] == tcs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("TC%d–%d", tcs[i], tcs[j]))
		} else {
			parts = append(parts, fmt.Sprintf("TC%d", tcs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// explainBytesF prints a float byte count with separators, keeping a fraction if any.
func explainBytesF(f float64) string {
	if f == float64(int64(f)) {
		return config.Commas(int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

// explainNs prints nanoseconds as microseconds: 83984.8 → "83.9848 us".
func explainNs(ns float64) string { return fmt.Sprintf("%g us", ns/1000) }
