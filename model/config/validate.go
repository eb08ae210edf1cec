package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/rocesweep/rocesweep/model/sim"
)

// Rule is a violated rule that stops a run: the attribute path, its value as the user
// would write it, the problem and the spec rule. Error() reads
// `path: problem (value "x") (rule)`.
type Rule struct {
	Path  string
	Value string
	Msg   string
	Ref   string // "switch.md §11 rule 5"
}

func (r *Rule) Error() string {
	var b strings.Builder
	b.WriteString(r.Path)
	b.WriteString(": ")
	b.WriteString(r.Msg)
	if r.Value != "" {
		fmt.Fprintf(&b, " (value %s)", r.Value)
	}
	if r.Ref != "" {
		fmt.Fprintf(&b, " (%s)", r.Ref)
	}
	return b.String()
}

// rules collects violations.
type rules []error

func (rs *rules) add(path, value, ref, format string, args ...any) {
	*rs = append(*rs, &Rule{Path: path, Value: value, Msg: fmt.Sprintf(format, args...), Ref: ref})
}

const (
	sw  = "switch."
	sbm = "switch.SharedBufferManager."
	nic = "nic."
	ing = "nic.NetworkInterface.IngressBufferManager."
	egr = "nic.NetworkInterface.EgressBufferManager."
)

// ValidateSwitch checks the rules of switch.md §11 that stop a run (1-8, 10, 11 and the
// DC-21 extensions) for a switch with connectedPorts connected ports. Rule 9 (UET policy
// with this NIC) needs the NIC and is checked by ValidateNIC. All violations are joined.
func ValidateSwitch(s *Switch, connectedPorts int) error {
	var rs rules
	b := &s.SharedBufferManager
	// Rule 1: whole entries (8 entries are guaranteed by Vec8), DC-21 ranges.
	for tc, x := range b.EnablePFC {
		if x != math.Trunc(x) || math.IsNaN(x) {
			rs.add(sbm+"EnablePFC", FormatVec8(b.EnablePFC), "switch.md §11 rule 1", "entry %d %s is not a whole number", tc, FormatDouble(x))
		} else if x != 0 && x != 1 {
			rs.add(sbm+"EnablePFC", FormatVec8(b.EnablePFC), "switch.md §11, DC-21", "entry %d is %s; EnablePFC entries are 0 or 1", tc, FormatDouble(x))
		}
	}
	for tc, x := range b.TrafficClassPoolMapping {
		if x != math.Trunc(x) || math.IsNaN(x) {
			rs.add(sbm+"TrafficClassPoolMapping", FormatVec8(b.TrafficClassPoolMapping), "switch.md §11 rule 1", "entry %d %s is not a whole number", tc, FormatDouble(x))
		} else if x < 0 || x > 7 {
			rs.add(sbm+"TrafficClassPoolMapping", FormatVec8(b.TrafficClassPoolMapping), "switch.md §11, DC-21", "entry %d maps TC %d to pool %s, outside 0..7", tc, tc, FormatDouble(x))
		}
	}
	// Rules 2-4 and DC-21: PoolAllocationMap.
	m := b.PoolAllocationMap
	sum, last := 0.0, -1
	for p, x := range m {
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
			rs.add(sbm+"PoolAllocationMap", FormatVec8(m), "switch.md §11 rule 2", "entry %d is not a number", p)
		case x < 0 || x > 1:
			rs.add(sbm+"PoolAllocationMap", FormatVec8(m), "switch.md §11, DC-21", "entry %d is %s; fractions are 0..1", p, FormatDouble(x))
		}
		sum += x
		if x != 0 {
			last = p
		}
	}
	if last < 0 {
		rs.add(sbm+"PoolAllocationMap", FormatVec8(m), "switch.md §11 rule 3", "no non-zero entry: no pool")
	} else if sum-1 > m[last]+1e-9 {
		rs.add(sbm+"PoolAllocationMap", FormatVec8(m), "switch.md §11 rule 4, DC-20",
			"entries sum to %s; the excess %s is larger than the last non-zero entry %s (pool %d)",
			FormatDouble(round9(sum)), FormatDouble(round9(sum-1)), FormatDouble(m[last]), last)
	}
	// Rule 5: headroom.
	if hr := int64(b.HeadRoomPerPortLimit) * int64(connectedPorts); connectedPorts > 0 && hr > int64(b.TotalSharedBufferSize) {
		rs.add(sbm+"HeadRoomPerPortLimit", FormatBytes(b.HeadRoomPerPortLimit), "switch.md §11 rule 5",
			"headroom %s B × %d ports = %s B exceeds TotalSharedBufferSize %s B",
			Commas(int64(b.HeadRoomPerPortLimit)), connectedPorts, Commas(hr), Commas(int64(b.TotalSharedBufferSize)))
	}
	// DC-21: enums.
	if !contains(enumOf(sw+"EcmpHashMethod"), s.EcmpHashMethod) {
		rs.add(sw+"EcmpHashMethod", s.EcmpHashMethod, "switch.md §11, DC-21", "not one of %s", strings.Join(enumOf(sw+"EcmpHashMethod"), ", "))
	}
	if !contains(enumOf(sw+"LoadBalancingMethod"), s.LoadBalancingMethod) {
		rs.add(sw+"LoadBalancingMethod", s.LoadBalancingMethod, "switch.md §11, DC-21", "not one of %s", strings.Join(enumOf(sw+"LoadBalancingMethod"), ", "))
	}
	// Rule 6: flowlet with dpr.
	if s.LoadBalancingMethod == "flowlet" && (s.EcmpHashMethod == "dpr" || s.EcmpHashMethod == "dprWithFallback") {
		rs.add(sw+"LoadBalancingMethod", "flowlet", "switch.md §11 rule 6",
			"flowlet load balancing cannot run with switch.EcmpHashMethod %s (use hash, hashWithSalt, crc32 or crc32WithSalt)", s.EcmpHashMethod)
	}
	// Rule 7: Gap in [0s, 2s] (the component is always present here).
	if g := s.LoadBalancingFlowlet.Gap; g < 0 || g > 2*sim.Second {
		rs.add(sw+"LoadBalancingFlowlet.Gap", FormatTime(g), "switch.md §11 rule 7", "Gap outside 0s..2s")
	}
	// Rule 8.
	if iv := s.LoadBalancingStatsReportInterval; iv < 10*sim.Microsecond {
		rs.add(sw+"LoadBalancingStatsReportInterval", FormatTime(iv), "switch.md §11 rule 8", "below 10us")
	}
	// Rules 10, 11: trimming.
	if s.PacketTrimmer.TrimmingEnabled && !b.UETPolicyEnabled {
		rs.add(sw+"PacketTrimmer.TrimmingEnabled", "true", "switch.md §11 rule 10", "trimming needs switch.UETPolicyEnabled true")
	}
	if s.PacketTrimmer.TrimmingEnabled {
		for tc, x := range b.EnablePFC {
			if x == 1 {
				rs.add(sw+"PacketTrimmer.TrimmingEnabled", "true", "switch.md §11 rule 11",
					"trimming cannot run with a lossless class: switch.EnablePFC %s has TC %d at 1", FormatVec8(b.EnablePFC), tc)
				break
			}
		}
	}
	// The doubles' domains (switch.md §3.5, §3.6): outside them the formulas of §4.4 and §9
	// mean nothing (a negative LossyAlpha used to run silently as the even split).
	e := &s.EcnHandler
	for _, d := range []domain{
		{sbm + "LossyAlpha", b.LossyAlpha, 0, math.Inf(1), "switch.md §3.5, §4.4", "0 (a fixed limit) or more"},
		{sw + "EcnHandler.EwmaWeight", e.EwmaWeight, 0, 1, "switch.md §3.6", "a weight in [0, 1]"},
		{sw + "EcnHandler.MinThreshold", e.MinThreshold, 0, math.Inf(1), "switch.md §3.6, §4.4", "a fraction of the static limit, 0 or more"},
		{sw + "EcnHandler.MaxThreshold", e.MaxThreshold, 0, math.Inf(1), "switch.md §3.6, §4.4", "a fraction of the static limit, 0 or more"},
		{sw + "EcnHandler.MaxMarkProbability", e.MaxMarkProbability, 0, 1, "switch.md §3.6", "a probability in [0, 1]"},
	} {
		d.check(&rs)
	}
	// switch.md DC-21 and §1: every switch bytes value ≤ 4,294,967,295; nic.md §15 rule 5 style:
	// no negative dimensional value.
	eachDimension(reflect.ValueOf(s).Elem(), "switch", func(path string, typ string, v int64, f float64) {
		switch {
		case typ == "bytes" && v > int64(MaxSwitchBytes):
			rs.add(path, FormatBytes(Bytes(v)), "switch.md §1, DC-21", "%s B exceeds the largest switch size 4,294,967,295 B", Commas(v))
		case v < 0 || f < 0:
			rs.add(path, "", "switch.md §1, DC-21", "negative value")
		}
	})
	return errors.Join(rs...)
}

// domain is the allowed interval [lo, hi] of a double attribute, said in words.
type domain struct {
	path   string
	v      float64
	lo, hi float64
	ref    string
	want   string
}

func (d domain) check(rs *rules) {
	if math.IsNaN(d.v) || d.v < d.lo || d.v > d.hi {
		rs.add(d.path, FormatDouble(d.v), d.ref, "outside its domain: want %s", d.want)
	}
}

// round9 rounds to 9 decimals so float sums print as the user wrote them (1.1, not
// 1.1000000000000001).
func round9(x float64) float64 { return math.Round(x*1e9) / 1e9 }

// enumOf returns the allowed strings of the attribute at canonical path.
func enumOf(path string) []string { return attrByPath[path].Enum }

// eachDimension calls fn for every bytes, timeval and datarate field under v (a device
// struct), with its canonical path.
func eachDimension(v reflect.Value, device string, fn func(path, typ string, n int64, f float64)) {
	for _, a := range attrs {
		if a.Device != device {
			continue
		}
		fv := v.FieldByIndex(a.index[1:])
		switch a.Type {
		case "bytes", "queuesize":
			fn(a.Path, "bytes", fv.Int(), 0)
		case "timeval":
			fn(a.Path, "timeval", fv.Int(), 0)
		case "datarate":
			fn(a.Path, "datarate", 0, fv.Float())
		}
	}
}

// RefUETWithRoCE is the Ref of the Rule that a UET-policy switch cannot run with this RoCE
// NIC: a run stops, but the switch's set-up can still be derived (model/explain).
const RefUETWithRoCE = "nic.md §15 rule 7, switch.md §11 rule 9"

// ValidateNIC checks the rules of nic.md §15 that stop a run (1-5, 7; rule 6 holds by
// construction: every rocesweep workload is an RDMA application; rule 8 needs the
// workload and is Config.Validate's) against the globals g.
// hasUETSwitch reports whether any switch of the job has UETPolicyEnabled (rule 7 =
// switch.md §11 rule 9). All violations are joined.
func ValidateNIC(n *NIC, g *Global, hasUETSwitch bool) error {
	var rs rules
	ib, eb := &n.NetworkInterface.IngressBufferManager, &n.NetworkInterface.EgressBufferManager
	if n.NumDownLinks != 1 {
		rs.add(nic+"NumDownLinks", fmt.Sprint(n.NumDownLinks), "nic.md §1, §14", "read-only: one host per NIC (1)")
	}
	if t := n.ClockTolerancePpm; !(t >= 0 && t <= 10_000) {
		rs.add(nic+"ClockTolerancePpm", fmt.Sprint(t), "nic.md §7", "want 0-10,000 ppm (IEEE 802.3 allows ±100)")
	}
	if n.TxJitter < 0 || n.TxJitter > sim.Millisecond {
		rs.add(nic+"TxJitter", n.TxJitter.String(), "nic.md §6", "want 0s-1ms")
	}
	// Rule 1 and nic.md §18 DC-12: pool vectors.
	for _, pv := range []struct {
		path string
		v    Vec8
	}{{ing + "PoolAllocationVector", ib.PoolAllocationVector}, {egr + "PoolAllocationVector", eb.PoolAllocationVector}} {
		last, firstZero := -1, -1
		for c, x := range pv.v {
			switch {
			case math.IsNaN(x) || math.IsInf(x, 0):
				rs.add(pv.path, FormatVec8(pv.v), "nic.md §15 rule 1", "entry %d is not a number", c)
			case x < 0:
				rs.add(pv.path, FormatVec8(pv.v), "nic.md §15 rule 1", "entry %d is negative", c)
			case x == 0 && firstZero < 0:
				firstZero = c
			case x != 0:
				last = c
			}
		}
		if last < 0 {
			rs.add(pv.path, FormatVec8(pv.v), "nic.md §15 rule 1", "no non-zero entry: no pool")
		} else if firstZero >= 0 && firstZero < last {
			rs.add(pv.path, FormatVec8(pv.v), "nic.md §15 rule 1 [DC], §11",
				"non-zero entries must be contiguous from TC 0 (TC %d is 0 but TC %d is not)", firstZero, last)
		}
	}
	// Rule 2.
	for _, wv := range []struct {
		path string
		v    Vec8
	}{{ing + "WRRQueueWeights", ib.WRRQueueWeights}, {egr + "WRRQueueWeights", eb.WRRQueueWeights}, {ing + "QuantaValue", ib.QuantaValue}} {
		for c, x := range wv.v {
			if x != math.Trunc(x) || math.IsNaN(x) || x < 0 {
				rs.add(wv.path, FormatVec8(wv.v), "nic.md §15 rule 2", "entry %d %s is not a whole number ≥ 0", c, FormatDouble(x))
			}
		}
	}
	for _, fv := range []struct {
		path string
		v    Vec8
	}{{ing + "PFCEnableVector", ib.PFCEnableVector}, {ing + "PfcStaticXoffThreshold", ib.PfcStaticXoffThreshold}, {ing + "PfcXonResumeThreshold", ib.PfcXonResumeThreshold}} {
		for c, x := range fv.v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				rs.add(fv.path, FormatVec8(fv.v), "nic.md §15 rule 2", "entry %d is not a number", c)
			}
		}
	}
	// Rule 3: MSS.
	mss := int64(n.RoceQpManager.MSS)
	if mss < 1 || mss > 9216 {
		rs.add(nic+"RoceQpManager.MSS", FormatBytes(n.RoceQpManager.MSS), "nic.md §15 rule 3", "MSS %s B outside 1-9,216 B", Commas(mss))
	}
	if mss+58 >= int64(g.Mtu) {
		rs.add(nic+"RoceQpManager.MSS", FormatBytes(n.RoceQpManager.MSS), "nic.md §15 rule 3, §6",
			"MSS %s B + 58 = %s B is not below global.Mtu %s B (largest MSS %s B)", Commas(mss), Commas(mss+58), Commas(int64(g.Mtu)), Commas(int64(g.Mtu)-59))
	}
	// Rule 4.
	for _, side := range []struct {
		path  string
		count uint64
	}{{nic + "HostInterface.NICSide.PhysicalLayer.LaneCount", n.HostInterface.NICSide.PhysicalLayer.LaneCount},
		{nic + "HostInterface.HostSide.PhysicalLayer.LaneCount", n.HostInterface.HostSide.PhysicalLayer.LaneCount}} {
		if side.count < 1 || side.count > 16 {
			rs.add(side.path, fmt.Sprint(side.count), "nic.md §15 rule 4", "LaneCount outside 1-16")
		}
	}
	// Rule 5: no negative dimensional value; rates that divide (extension) must be > 0.
	eachDimension(reflect.ValueOf(n).Elem(), "nic", func(path, typ string, v int64, f float64) {
		if v < 0 || f < 0 {
			rs.add(path, "", "nic.md §15 rule 5", "negative value")
		}
	})
	for _, r := range []struct {
		path string
		v    Rate
	}{{nic + "NetworkInterface.UplinkNetworkInterface.DataRate", n.NetworkInterface.UplinkNetworkInterface.DataRate},
		{nic + "HostInterface.NICSide.PhysicalLayer.LaneBps", n.HostInterface.NICSide.PhysicalLayer.LaneBps},
		{nic + "HostInterface.HostSide.PhysicalLayer.LaneBps", n.HostInterface.HostSide.PhysicalLayer.LaneBps}} {
		if r.v <= 0 {
			rs.add(r.path, FormatRate(r.v), "nic.md §15 rule 5 (extension)", "a rate must be above 0")
		}
	}
	// Enums (parse-time rule of nic.md §15, repeated for configs built in Go).
	for _, e := range []struct{ path, v string }{{ing + "QueueSchedulingType", ib.QueueSchedulingType}, {egr + "QueueSchedulingType", eb.QueueSchedulingType}} {
		if !contains(enumOf(e.path), e.v) {
			rs.add(e.path, e.v, "nic.md §15", "not one of %s", strings.Join(enumOf(e.path), ", "))
		}
	}
	// The DCQCN doubles' domains (nic.md §14): fractions and a weight.
	ec := &n.ECNHandler
	for _, d := range []domain{
		{nic + "ECNHandler.MinimumRatePercentage", ec.MinimumRatePercentage, 0, 1, "nic.md §14", "a fraction of the line rate in [0, 1]"},
		{nic + "ECNHandler.InitialTargetRatePercentage", ec.InitialTargetRatePercentage, 0, 1, "nic.md §14", "a fraction in [0, 1]"},
		{nic + "ECNHandler.CongestionProbabilityWeight", ec.CongestionProbabilityWeight, 0, 1, "nic.md §14", "a weight in [0, 1]"},
	} {
		d.check(&rs)
	}
	// Rule 7 = switch.md §11 rule 9.
	if hasUETSwitch {
		rs.add(sbm+"UETPolicyEnabled", "true", RefUETWithRoCE,
			"a switch with the UET policy cannot run with this RoCE NIC: its class mapping relies on DSCP codepoints the NIC never sends")
	}
	if g.Mtu <= 0 {
		rs.add("global.Mtu", FormatBytes(g.Mtu), "nic.md §6", "Mtu must be above 0")
	}
	return errors.Join(rs...)
}

// Hosts returns the number of servers (one NIC each) of topology t.
func Hosts(t Topology) int {
	switch t.Kind {
	case "star":
		return t.Hosts
	case "leaf-spine":
		return t.Leaves * t.HostsPerLeaf
	case "fat-tree":
		return t.K * t.K * t.K / 4
	}
	return 0
}

// SwitchTiers names the switch tiers of t, rack tier first, in the order ConnectedPorts
// returns them: star → [rack]; leaf-spine → [leaf, spine]; fat-tree → [edge, aggregation,
// core] (records.md §2: rack 2, fabric 1, spine 0).
func SwitchTiers(t Topology) []string {
	switch t.Kind {
	case "star":
		return []string{"rack"}
	case "leaf-spine":
		return []string{"leaf", "spine"}
	case "fat-tree":
		return []string{"edge", "aggregation", "core"}
	}
	return nil
}

// SwitchTierNumbers returns the records' tier number (records.md §2: spine 0, fabric 1,
// rack 2) of each switch tier of t, in SwitchTiers order.
func SwitchTierNumbers(t Topology) []int {
	switch t.Kind {
	case "star":
		return []int{TierRack}
	case "leaf-spine":
		return []int{TierRack, TierSpine}
	case "fat-tree":
		return []int{TierRack, TierFabric, TierSpine}
	}
	return nil
}

// validateTierUplinks refuses a set uplink rate that is not above 0 (issue 17).
func (c *Config) validateTierUplinks() rules {
	var rs rules
	for t := range c.Tiers {
		for i := range tierAttrs {
			a := &tierAttrs[i]
			if a.tier != t || a.base != "" || !c.Tiers[t].isSet(a.bit) {
				continue
			}
			if a.Type == "datarate" && c.Tiers[t].Uplink.Rate <= 0 {
				rs.add(a.Path, FormatRate(c.Tiers[t].Uplink.Rate), "records.md §2", "a rate must be above 0")
			}
			if a.Type == "timeval" && c.Tiers[t].Uplink.Delay < 0 {
				rs.add(a.Path, FormatTime(c.Tiers[t].Uplink.Delay), "records.md §2", "a delay cannot be negative")
			}
		}
	}
	return rs
}

// ConnectedPorts returns the connected-port count N (switch.md §1) of each switch tier of
// t, in SwitchTiers order: star → hosts; leaf-spine → leaf = hosts_per_leaf + spines ×
// uplinks, spine = leaves × uplinks, where uplinks = uplinks_per_spine or
// sw.NumUpLinksPerSwitch when 0 (records.md RC-7); fat-tree k → k for every switch.
func ConnectedPorts(t Topology, sw *Switch) []int {
	switch t.Kind {
	case "star":
		return []int{t.Hosts}
	case "leaf-spine":
		up := t.UplinksPerSpine
		if up == 0 {
			up = int(sw.NumUpLinksPerSwitch)
		}
		return []int{t.HostsPerLeaf + t.Spines*up, t.Leaves * up}
	case "fat-tree":
		return []int{t.K, t.K, t.K}
	}
	return nil
}

// Validate checks every rule that stops a run: the job keys, the topology and workload,
// each switch tier (ValidateSwitch with that tier's connected ports) and the NIC. All
// violations are joined.
func (c *Config) Validate() error {
	var rs rules
	if c.Duration <= 0 {
		rs.add("duration", FormatTime(c.Duration), "design.md", "duration must be above 0")
	}
	if !contains(enumOf("stop"), c.Stop) {
		rs.add("stop", c.Stop, "design.md", "not one of %s", strings.Join(enumOf("stop"), ", "))
	}
	rs = append(rs, validateTopology(&c.Topology)...)
	hosts := Hosts(c.Topology)
	rs = append(rs, validateWorkload("workload", &c.Workload, hosts, true)...)
	if c.Global.NDStatsReportInterval <= 0 {
		rs.add("global.NDStatsReportInterval", FormatTime(c.Global.NDStatsReportInterval), "records.md §1", "the report interval must be above 0")
	}
	if c.Global.NetworkBufferStatsReportingInterval <= 0 {
		rs.add("global.NetworkBufferStatsReportingInterval", FormatTime(c.Global.NetworkBufferStatsReportingInterval), "nic.md §16.5", "the report interval must be above 0")
	}
	if c.Switch.NetworkInterface.DownlinkNetworkInterface.DataRate <= 0 {
		rs.add("switch.NetworkInterface.DownlinkNetworkInterface.DataRate", FormatRate(c.Switch.NetworkInterface.DownlinkNetworkInterface.DataRate), "switch.md §3.2 (extension)", "a rate must be above 0")
	}
	if c.Switch.NetworkInterface.UplinkNetworkInterface.DataRate <= 0 {
		rs.add("switch.NetworkInterface.UplinkNetworkInterface.DataRate", FormatRate(c.Switch.NetworkInterface.UplinkNetworkInterface.DataRate), "switch.md §3.2 (extension)", "a rate must be above 0")
	}
	rs = append(rs, c.validateTierUplinks()...)
	var errs []error
	errs = append(errs, rs...)
	seen := map[string]bool{}
	tiers := SwitchTiers(c.Topology)
	nums := SwitchTierNumbers(c.Topology)
	rack := c.TierSwitch(TierRack)
	for i, n := range ConnectedPorts(c.Topology, &rack) {
		sw := c.TierSwitch(nums[i])
		err := ValidateSwitch(&sw, n)
		if err == nil {
			continue
		}
		for _, e := range unjoin(err) {
			if r, ok := e.(*Rule); ok && len(c.TierSettings(nums[i])) > 0 {
				// A tier's own settings: name the tier block (issue 17).
				r.Path = "tiers." + TierNames[nums[i]] + "." + r.Path
			}
			msg := e.Error()
			if seen[msg] {
				continue
			}
			seen[msg] = true
			if r, ok := e.(*Rule); ok && r.Ref == "switch.md §11 rule 5" && len(tiers) > 1 {
				r.Msg += " on a " + tiers[i] + " switch"
			}
			errs = append(errs, e)
		}
	}
	if err := ValidateNIC(&c.NIC, &c.Global, c.Switch.SharedBufferManager.UETPolicyEnabled); err != nil {
		errs = append(errs, unjoin(err)...)
	}
	errs = append(errs, c.validateDataPools()...)
	return errors.Join(errs...)
}

// sendingElements returns the workload elements that send, with their paths: the workload
// itself ("workload"), or each entry of a mix ("workload.mix.1"). Kind none sends nothing.
func (c *Config) sendingElements() (paths []string, elems []*Workload) {
	if c.Workload.Kind != "mix" {
		if c.Workload.Kind == "none" {
			return nil, nil
		}
		return []string{"workload"}, []*Workload{&c.Workload}
	}
	for i := range c.Workload.Mix {
		if c.Workload.Mix[i].Kind != "none" {
			paths = append(paths, fmt.Sprintf("workload.mix.%d", i))
			elems = append(elems, &c.Workload.Mix[i])
		}
	}
	return paths, elems
}

// egressPool is the NIC's egress pool of class tc in bytes (nic.md §11: the vector's share
// of TotalBufferSize, nearest byte; 0 = no pool).
func (c *Config) egressPool(tc int) int64 {
	eb := &c.NIC.NetworkInterface.EgressBufferManager
	return int64(math.Round(eb.PoolAllocationVector[tc] * float64(eb.TotalBufferSize)))
}

// validateDataPools is nic.md §15 rule 8: every data class a workload element sends on
// has a NIC egress pool. Without one no packet fits (a 0-byte message is a 58 B frame),
// so generation blocks for good and the job fails with nothing sent. A control class
// without a pool is a warning (model/explain), as the rule's list has it.
func (c *Config) validateDataPools() rules {
	var rs rules
	eb := &c.NIC.NetworkInterface.EgressBufferManager
	paths, elems := c.sendingElements()
	for i, w := range elems {
		tc := w.DataTC
		if tc < 0 || tc > 7 || c.egressPool(tc) > 0 {
			continue // a TC outside 0..7 is validateWorkload's
		}
		var have []string
		for t := 0; t < 8; t++ {
			if c.egressPool(t) > 0 {
				have = append(have, fmt.Sprint(t))
			}
		}
		with := "no class has one"
		if len(have) > 0 {
			with = "those with one: " + strings.Join(have, ", ")
		}
		rs.add(paths[i]+".data_tc", fmt.Sprint(tc), "nic.md §15 rule 8",
			"data TC %d has no NIC egress pool (%sPoolAllocationVector %s × TotalBufferSize %s B gives it 0 B), so no packet of it can be generated; give TC %d a share of that vector (non-zero entries contiguous from TC 0, nic.md §15 rule 1) or send on a class with a pool (%s)",
			tc, egr, FormatVec8(eb.PoolAllocationVector), Commas(int64(eb.TotalBufferSize)), tc, with)
	}
	return rs
}

// unjoin splits an errors.Join result into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func validateTopology(t *Topology) rules {
	var rs rules
	pos := func(key string, v int) {
		if v < 1 {
			rs.add("topology."+key, fmt.Sprint(v), "design.md", "must be at least 1 for a %s topology", t.Kind)
		}
	}
	switch t.Kind {
	case "star":
		pos("hosts", t.Hosts)
	case "leaf-spine":
		pos("leaves", t.Leaves)
		pos("spines", t.Spines)
		pos("hosts_per_leaf", t.HostsPerLeaf)
		if t.UplinksPerSpine < 0 {
			rs.add("topology.uplinks_per_spine", fmt.Sprint(t.UplinksPerSpine), "design.md", "must be 0 (switch.NumUpLinksPerSwitch) or more")
		}
	case "fat-tree":
		if t.K < 2 || t.K%2 != 0 {
			rs.add("topology.k", fmt.Sprint(t.K), "design.md", "a fat-tree needs an even k ≥ 2")
		}
	default:
		rs.add("topology.kind", t.Kind, "design.md", "not one of %s", strings.Join(enumOf("topology.kind"), ", "))
	}
	return rs
}

// validateWorkload checks the workload keys at prefix against hosts servers; mixOK allows
// kind mix (not inside a mix).
func validateWorkload(prefix string, w *Workload, hosts int, mixOK bool) rules {
	var rs rules
	if !contains(enumOf("workload.kind"), w.Kind) || (!mixOK && w.Kind == "mix") {
		rs.add(prefix+".kind", w.Kind, "design.md", "not one of %s", strings.Join(enumOf("workload.kind"), ", "))
		return rs
	}
	if !contains(enumOf("workload.verb"), w.Verb) {
		rs.add(prefix+".verb", w.Verb, "design.md", "not one of %s", strings.Join(enumOf("workload.verb"), ", "))
	}
	for _, tc := range []struct {
		key string
		v   int
	}{{"data_tc", w.DataTC}, {"control_tc", w.ControlTC}} {
		if tc.v < 0 || tc.v > 7 {
			rs.add(prefix+"."+tc.key, fmt.Sprint(tc.v), "nic.md §3", "a traffic class is 0..7")
		}
	}
	if w.MessageSize < 0 {
		rs.add(prefix+".message_size", "", "nic.md §15 rule 5", "negative size")
	}
	if w.Jitter < 0 || w.Start < 0 {
		rs.add(prefix+".jitter", "", "nic.md §15 rule 5", "negative time")
	}
	if w.Rounds < 0 {
		rs.add(prefix+".rounds", fmt.Sprint(w.Rounds), "design.md", "rounds cannot be negative (0 or 1: one round)")
	}
	if w.Period < 0 {
		rs.add(prefix+".period", FormatTime(w.Period), "design.md", "negative time")
	}
	if w.Rounds > 1 {
		switch {
		case w.Kind == "mix":
			rs.add(prefix+".rounds", fmt.Sprint(w.Rounds), "design.md", "a mix does not repeat; set rounds on its incast entries (%s.mix.N.rounds)", prefix)
		case w.Kind == "allreduce" || w.Kind == "allgather" || w.Kind == "reducescatter" || w.Kind == "alltoall":
			rs.add(prefix+".rounds", fmt.Sprint(w.Rounds), "design.md", "only an incast repeats in rounds; a collective repeats with iterations and gap")
		case w.Kind != "incast" && w.Kind != "none":
			rs.add(prefix+".rounds", fmt.Sprint(w.Rounds), "design.md", "only an incast repeats in rounds")
		case w.Kind == "incast" && w.Period <= 0:
			rs.add(prefix+".period", FormatTime(w.Period), "design.md", "%d rounds need a period > 0 between their starts", w.Rounds)
		}
	}
	switch w.Kind {
	case "incast":
		if hosts > 0 && (w.Senders < 1 || w.Senders > hosts-1) {
			rs.add(prefix+".senders", fmt.Sprint(w.Senders), "design.md", "an incast into one of %d hosts has 1..%d senders", hosts, hosts-1)
		}
		if hosts > 0 && (w.Receiver < -1 || w.Receiver >= hosts) {
			rs.add(prefix+".receiver", fmt.Sprint(w.Receiver), "design.md", "the receiver is a host index 0..%d (-1 = the last host)", hosts-1)
		}
	case "load":
		if !(w.Load > 0 && w.Load <= 1) {
			rs.add(prefix+".load", FormatDouble(w.Load), "design.md", "offered load is a fraction in (0, 1]")
		}
		if w.Distribution == "" {
			rs.add(prefix+".distribution", "", "design.md", "a load workload needs a size distribution")
		}
	case "allreduce", "allgather", "reducescatter", "alltoall":
		// Collectives (issue 17): every group needs two ranks at least.
		if w.Groups < 0 || w.Iterations < 0 || w.Phases < 0 || w.Gap < 0 {
			rs.add(prefix+".groups", fmt.Sprintf("groups %d, iterations %d, phases %d, gap %s", w.Groups, w.Iterations, w.Phases, FormatTime(w.Gap)), "design.md", "groups, iterations, phases and gap cannot be negative")
		}
		if g := max(w.Groups, 1); w.GroupBy != "rail" && hosts > 0 && (hosts%g != 0 || hosts/g < 2) {
			rs.add(prefix+".groups", fmt.Sprint(w.Groups), "design.md", "%d hosts do not split into %d groups of 2 or more consecutive hosts", hosts, g)
		}
	case "mix":
		if len(w.Mix) == 0 {
			rs.add(prefix+".mix", "[]", "design.md", "kind mix needs a list of workloads in workload.mix")
		}
		for i := range w.Mix {
			rs = append(rs, validateWorkload(fmt.Sprintf("%s.mix.%d", prefix, i), &w.Mix[i], hosts, false)...)
		}
	}
	if w.Kind != "none" && w.Kind != "mix" && w.Kind != "load" {
		if w.Messages < 1 {
			rs.add(prefix+".messages", fmt.Sprint(w.Messages), "design.md", "at least 1 message per sender")
		}
	}
	if w.Kind != "none" && w.Kind != "mix" && w.QPsPerPair < 1 {
		rs.add(prefix+".qps_per_pair", fmt.Sprint(w.QPsPerPair), "design.md", "at least 1 queue pair per host pair")
	}
	if (w.Kind == "permutation" || w.Kind == "all-to-all") && hosts < 2 {
		rs.add(prefix+".kind", w.Kind, "design.md", "needs at least 2 hosts (topology has %d)", hosts)
	}
	return rs
}
