package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/rocesweep/rocesweep/model/sim"
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
	eachDimension(reflect.ValueOf(s).Elem(), "switch", func(path string, k Kind, v int64, f float64) {
		switch {
		case k.IsBytes() && v > int64(MaxSwitchBytes):
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

// eachDimension calls fn for every dimensional field (bytes, queuesize, timeval,
// datarate) under v (a device struct), with its canonical path and kind: an integer
// field's value in n, a float field's in f.
func eachDimension(v reflect.Value, device string, fn func(path string, k Kind, n int64, f float64)) {
	for _, a := range attrs {
		if a.Device != device || !a.Type.Dimensional() {
			continue
		}
		fv := v.FieldByIndex(a.index[1:])
		if fv.CanFloat() {
			fn(a.Path, a.Type, 0, fv.Float())
		} else {
			fn(a.Path, a.Type, fv.Int(), 0)
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
	eachDimension(reflect.ValueOf(n).Elem(), "nic", func(path string, _ Kind, v int64, f float64) {
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
