package explain

import (
	"fmt"
	"math"
	"slices"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/nic"
	"github.com/rocesweep/rocesweep/model/switchdev"
)

// Warning is a setting or a sizing that the spec accepts but calls risky: it never stops
// a run. Path is the attribute (or element) it concerns, Rule the spec rule it cites, and
// Message the whole sentence a user reads, which names both.
type Warning struct {
	Path    string `json:"path"`    // "switch.SharedBufferManager.StaticPoolXonThreshold", "workload.mix.0"
	Rule    string `json:"rule"`    // "switch.md §4.6"
	Message string `json:"message"` // "rack switch pool 1 (195,200 B) fails sizing condition 2: ..."
}

func (w Warning) String() string { return w.Message }

// Messages returns the messages of ws, in order.
func Messages(ws []Warning) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Message
	}
	return out
}

// warnings collects Warnings, each message once.
type warnings struct{ list []Warning }

func (ws *warnings) add(path, rule, msg string) {
	if slices.ContainsFunc(ws.list, func(w Warning) bool { return w.Message == msg }) {
		return
	}
	ws.list = append(ws.list, Warning{Path: path, Rule: rule, Message: msg})
}

// sizingWarnings checks the sizing conditions of switch.md §4.6 on the tiers of one
// section (group, indexes into ses, tiers and bufs; Sections): condition 2 (a lossless
// pool holds every port's pre-pause bytes) and 3 (a lossless class has a pool of its own)
// once per pool of their one buffer set-up, named by all their tiers, then condition 1
// (headroom covers a pause round trip) per tier and link kind.
func sizingWarnings(ws *warnings, cfg *config.Config, ses []Switch, tiers []int, bufs []switchdev.Buffer, group []int) {
	c := config.Commas
	const sbm = "SharedBufferManager."
	prefix := func(i int) string {
		if len(cfg.TierSettings(tiers[i])) > 0 {
			return "tiers." + config.TierNames[tiers[i]] + ".switch."
		}
		return "switch."
	}
	var names []string
	for _, i := range group {
		names = append(names, ses[i].Tier)
	}
	name := And(names)
	se, b := &ses[group[0]], &bufs[group[0]]
	for _, ep := range se.Pools {
		if len(ep.LosslessClasses) > 0 && !*ep.LosslessFits {
			ws.add(prefix(group[0])+sbm+"PoolAllocationMap", "switch.md §4.6", fmt.Sprintf("%s switch pool %d (%s B) fails sizing condition 2: %d ports × (Xoff %s + largest packet %s) = %s B; lossless %s can be dropped at ingress (switch.md §4.6)",
				name, ep.Pool, c(ep.Size), se.ConnectedPorts, c(b.Xoff), c(se.LargestPacket), c(ep.LosslessNeeds), TCs(ep.LosslessClasses)))
		}
		if used := usedTCs(&cfg.Workload, ep.LossyClasses); len(ep.LosslessClasses) > 0 && len(used) > 0 {
			ws.add(prefix(group[0])+sbm+"TrafficClassPoolMapping", "switch.md §4.6", stickyPause(name, se, ep, used))
		}
	}
	for _, i := range group {
		for _, l := range ses[i].Links {
			if bufs[i].HeadroomPerPort < l.HeadroomNeeded {
				ws.add(prefix(i)+sbm+"HeadRoomPerPortLimit", "switch.md §4.6", fmt.Sprintf("%s switch: HeadRoomPerPortLimit %s B is below the %s B a %s link needs (2 × rate × Delay / 8 + 2 × Mtu, switch.md §4.6 condition 1)",
					ses[i].Tier, c(bufs[i].HeadroomPerPort), c(l.HeadroomNeeded), l.Link))
			}
		}
	}
}

// stickyPause is the warning for sizing condition 3 (switch.md §4.6): a lossless class
// shares pool ep of tier se (and the tiers name lists with it) with the used lossy classes
// lossy. Lossy bytes count in a port's ingress
// occupancy, but only a lossless departure can lift a pause (switch.md §5.5, DC-9), so a
// port that lossy bytes pushed past Xoff stays paused once its lossless packets are gone.
func stickyPause(name string, se *Switch, ep Pool, lossy []int) string {
	c := config.Commas
	refresh := ""
	if len(se.Links) > 0 {
		refresh = fmt.Sprintf(", refreshed every %g us on a %s link", se.Links[0].RefreshNs/1000, se.Links[0].Link)
	}
	return fmt.Sprintf("%s switch pool %d holds lossless %s and lossy %s, failing sizing condition 3 (switch.md §4.6): "+
		"lossy bytes count toward a port's ingress occupancy, but a pause lifts only when a lossless packet leaves with the port's headroom empty and occupancy ≤ Xon %s B (switch.md §5.5, DC-9). "+
		"A port whose lossy bytes push it past Xoff %s B after its lossless packets have left stays paused%s, even once the buffer is empty: "+
		"a sticky pause, not congestion (status and report count such ports as stuck_pause_ports). Map the lossy class to a pool of its own (TrafficClassPoolMapping)",
		name, ep.Pool, TCs(ep.LosslessClasses), TCs(lossy), c(se.Xon), c(se.Xoff), refresh)
}

// usedTCs returns the classes of tcs that the workload sends on (data_tc or control_tc of
// it or of a mix element): a lossy class nobody uses cannot hold a pause.
func usedTCs(w *config.Workload, tcs []int) []int {
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

// TCs prints classes as ranges: [0 2 3 4] → "TC0,TC2–4"; none → "-".
func TCs(tcs []int) string {
	if len(tcs) == 0 {
		return "-"
	}
	s := ""
	for i := 0; i < len(tcs); {
		j := i
		for j+1 < len(tcs) && tcs[j+1] == tcs[j]+1 {
			j++
		}
		if s != "" {
			s += ","
		}
		if j > i {
			s += fmt.Sprintf("TC%d–%d", tcs[i], tcs[j])
		} else {
			s += fmt.Sprintf("TC%d", tcs[i])
		}
		i = j + 1
	}
	return s
}

// phaseLockWarnings warns when a lossy data class receives an incast while every source
// of desynchronisation is off: NICs at exactly one rate phase-lock, simultaneous arrivals
// are served in a fixed order, and the same senders lose every packet (spec.md
// "Desynchronised senders"). Start jitter alone does not break it.
func phaseLockWarnings(ws *warnings, cfg *config.Config) {
	n := &cfg.NIC
	if n.ClockTolerancePpm != 0 || n.TxJitter != 0 {
		return
	}
	elems := []config.Workload{cfg.Workload}
	if cfg.Workload.Kind == "mix" {
		elems = cfg.Workload.Mix
	}
	rack := cfg.TierSwitch(config.TierRack)
	for i, w := range elems {
		if w.Kind != "incast" || w.DataTC < 0 || w.DataTC > 7 || rack.SharedBufferManager.EnablePFC[w.DataTC] == 1 {
			continue
		}
		name := "workload"
		if cfg.Workload.Kind == "mix" {
			name = fmt.Sprintf("workload.mix.%d", i)
		}
		ws.add(name, `docs/spec.md "Desynchronised senders"`, fmt.Sprintf("%s: an incast on lossy data_tc %d with every source of desynchronisation off (nic.ClockTolerancePpm and nic.TxJitter are 0): senders phase-lock, a fixed set of them loses every packet and waits for the retransmission timer; set e.g. nic.ClockTolerancePpm=100 and nic.TxJitter=5ns (docs/spec.md \"Desynchronised senders\")", name, w.DataTC))
	}
}

// settingWarnings lists the settings the spec accepts but calls risky ("warn only"):
// switch.md §11.1 and DC-5/DC-21, records.md §2, nic.md §15. p is the NIC's pools.
func settingWarnings(ws *warnings, c *config.Config, p *nic.Pools) {
	// records.md §2: a link takes the Delay of its lower end, so in a star (switch–NIC
	// links only) the switch's own Delay is never used.
	if c.Topology.Kind == "star" && c.Switch.NetworkInterface.TransmissionMedium.Delay != config.DefaultSwitch().NetworkInterface.TransmissionMedium.Delay {
		ws.add("switch.NetworkInterface.TransmissionMedium.Delay", "records.md §2", "switch.TransmissionMedium.Delay has no effect in a star: switch–NIC links use the NIC's Delay (nic.TransmissionMedium.Delay, records.md §2)")
	}
	present := config.SwitchTierNumbers(c.Topology)
	for _, t := range present {
		prefix, sw := "switch.", c.TierSwitch(t)
		if len(c.TierSettings(t)) > 0 {
			prefix = "tiers." + config.TierNames[t] + ".switch."
		}
		switchWarnings(ws, prefix, &sw)
	}
	for t := range c.Tiers {
		if len(c.TierSettings(t)) > 0 && !slices.Contains(present, t) {
			ws.add("tiers."+config.TierNames[t], "records.md §2", fmt.Sprintf("tiers.%s is set but a %s topology has no %s tier: it has no effect (records.md §2)", config.TierNames[t], c.Topology.Kind, config.TierNames[t]))
		}
	}
	if r, _, ok := c.TierUplink(config.TierSpine); r > 0 || ok {
		ws.add("tiers.spine.uplink", "records.md §2", "tiers.spine.uplink has no effect: no cable goes up from the spine tier (records.md §2)")
	}
	nicWarnings(ws, c, p)
}

// switchWarnings lists the warn-only settings of one switch configuration (switch.md
// §11.1, DC-5, DC-21); prefix starts the attribute paths ("switch." or
// "tiers.<tier>.switch.").
func switchWarnings(ws *warnings, prefix string, sw *config.Switch) {
	b := &sw.SharedBufferManager
	const sbm = "SharedBufferManager."
	if b.StaticPoolXonThreshold >= b.StaticPoolXoffThreshold {
		ws.add(prefix+sbm+"StaticPoolXonThreshold", "switch.md §4.5, §11.1", fmt.Sprintf(prefix+"StaticPoolXonThreshold %s B ≥ StaticPoolXoffThreshold %s B: no hysteresis, ports flap pause/resume per packet (switch.md §4.5, §11.1)",
			config.Commas(int64(b.StaticPoolXonThreshold)), config.Commas(int64(b.StaticPoolXoffThreshold))))
	}
	sum := 0.0
	for _, x := range b.PoolAllocationMap {
		sum += x
	}
	if !b.UETPolicyEnabled && math.Abs(sum-1) > 1e-9 {
		ws.add(prefix+sbm+"PoolAllocationMap", "switch.md §4.2, §11.1", fmt.Sprintf(prefix+"PoolAllocationMap %s sums to %s, not 1: the residue goes to the last non-zero pool (switch.md §4.2, §11.1)",
			config.FormatVec8(b.PoolAllocationMap), config.FormatDouble(math.Round(sum*1e9)/1e9)))
	}
	if !b.UETPolicyEnabled {
		for tc := 0; tc < 8; tc++ {
			if b.EnablePFC[tc] == 1 && int(b.TrafficClassPoolMapping[tc]) != tc {
				ws.add(prefix+sbm+"TrafficClassPoolMapping", "switch.md §4.3, DC-5", fmt.Sprintf(prefix+"TrafficClassPoolMapping maps lossless TC %d to pool %d, not pool %d: runs with the general rules (switch.md §4.3, DC-5)",
					tc, int(b.TrafficClassPoolMapping[tc]), tc))
			}
		}
	}
	if sw.PacketTrimmer.TrimmingStatsEnabled && !sw.PacketTrimmer.TrimmingEnabled {
		ws.add(prefix+"PacketTrimmer.TrimmingStatsEnabled", "switch.md §11.1, DC-21", prefix+"TrimmingStatsEnabled without TrimmingEnabled is ignored (switch.md §11.1, DC-21)")
	}
}

// sendingElements returns the workload elements that send (the workload, or each element
// of a mix) with their paths.
func sendingElements(c *config.Config) (paths []string, elems []*config.Workload) {
	if c.Workload.Kind != "mix" {
		return []string{"workload"}, []*config.Workload{&c.Workload}
	}
	for i := range c.Workload.Mix {
		paths = append(paths, fmt.Sprintf("workload.mix.%d", i))
		elems = append(elems, &c.Workload.Mix[i])
	}
	return paths, elems
}

// nicWarnings is the warn-only list of nic.md §15 (and §12.4, §16.5), for the classes of
// every element that sends; a data class with no pool at all is rule 8, an error
// (config.Validate). p gives the NIC's pools and thresholds as the model computes them.
func nicWarnings(ws *warnings, c *config.Config, p *nic.Pools) {
	const egr = "nic.NetworkInterface.EgressBufferManager."
	const ing = "nic.NetworkInterface.IngressBufferManager."
	n := &c.NIC
	ib, eb := &n.NetworkInterface.IngressBufferManager, &n.NetworkInterface.EgressBufferManager
	data := p.DataPacketBytes // MSS + 58 (nic.md §6)
	paths, elems := sendingElements(c)
	for i, e := range elems {
		if tc := e.DataTC; tc >= 0 && tc < 8 {
			if pool := p.Egress[tc]; pool > 0 && pool < data {
				ws.add(paths[i]+".data_tc", "nic.md §4, §15", fmt.Sprintf("%s.data_tc: nic egress pool of data TC %d is %s B, below MSS + 58 = %s B: generation blocks for every QP (nic.md §4, §15)",
					paths[i], tc, config.Commas(pool), config.Commas(data)))
			}
		}
		// An ACK or NAK is a 126 B frame (nic.md §6): a smaller pool never sends one.
		if tc := e.ControlTC; tc >= 0 && tc < 8 && p.Egress[tc] < 126 {
			what := fmt.Sprintf("nic has no egress pool for control TC %d", tc)
			if pool := p.Egress[tc]; pool > 0 {
				what = fmt.Sprintf("nic egress pool of control TC %d is %s B, below one 126 B ACK", tc, config.Commas(pool))
			}
			ws.add(paths[i]+".control_tc", "nic.md §6, §15", fmt.Sprintf("%s.control_tc: %s (%sPoolAllocationVector %s): its receivers send no ACK or NAK, so its messages never complete: the senders resend every RetransmitTimeout until the job ends at its duration, with its records (nic.md §6, §15)",
				paths[i], what, egr, config.FormatVec8(eb.PoolAllocationVector)))
		}
		if eb.QueueSchedulingType == "WeightedRoundRobin" {
			for _, tc := range []int{e.DataTC, e.ControlTC} {
				if tc >= 0 && tc < 8 && eb.WRRQueueWeights[tc] == 0 {
					ws.add(egr+"WRRQueueWeights", "nic.md §15", fmt.Sprintf("nic egress WRRQueueWeights gives used TC %d weight 0 (nic.md §15)", tc))
				}
			}
		}
	}
	// nic.md §16.5: net-buff-stats needs both settings; one alone writes nothing.
	if n.EnableBufferStats != c.Global.EnableNetworkBufferStatsReporting {
		on, off := "nic.EnableBufferStats", "global.EnableNetworkBufferStatsReporting"
		if !n.EnableBufferStats {
			on, off = off, on
		}
		ws.add(off, "nic.md §16.5", fmt.Sprintf("%s is true but %s is false: net-buff-stats is written only with both, so no row is (nic.md §16.5)", on, off))
	}
	guide := nicGuidance(c, p)
	for tc := 0; tc < 8; tc++ {
		if ib.PoolAllocationVector[tc] == 0 || ib.PFCEnableVector[tc] != 1 {
			continue
		}
		if ib.PfcXonResumeThreshold[tc] >= ib.PfcStaticXoffThreshold[tc] {
			ws.add(ing+"PfcXonResumeThreshold", "nic.md §12.2, §15", fmt.Sprintf("nic TC %d: PfcXonResumeThreshold %s ≥ PfcStaticXoffThreshold %s: pauses lift almost at once (nic.md §12.2, §15)",
				tc, config.FormatDouble(ib.PfcXonResumeThreshold[tc]), config.FormatDouble(ib.PfcStaticXoffThreshold[tc])))
		}
		// nic.md §12.4: the class's headroom (pool − Xoff) should cover the guidance.
		if p.Headroom[tc] < guide {
			ws.add(ing+"PfcStaticXoffThreshold", "nic.md §12.4, §15", fmt.Sprintf("nic TC %d: headroom %s B is under the guidance %s B (2 × L × Delay / 8 + 2 × Mtu): expect rx_drops when pauses go out (nic.md §12.4, §15)",
				tc, config.Commas(p.Headroom[tc]), config.Commas(guide)))
		}
		if ib.QuantaValue[tc] > 65535 {
			ws.add(ing+"QuantaValue", "nic.md §15", fmt.Sprintf("nic TC %d: QuantaValue %s > 65535 (nic.md §15)", tc, config.FormatDouble(ib.QuantaValue[tc])))
		}
	}
}
