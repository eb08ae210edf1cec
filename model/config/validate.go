package config

import (
	"errors"
	"fmt"
	"math"
	"strings"
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

// validateTierUplinks refuses a set uplink rate that is not above 0 and a negative
// uplink delay (records.md §2 link rule, as a tier block extends it).
func (c *Config) validateTierUplinks() rules {
	var rs rules
	for t := range c.Tiers {
		for i := range tierAttrs {
			a := &tierAttrs[i]
			if a.tier != t || a.base != "" || !c.Tiers[t].isSet(a.bit) {
				continue
			}
			if a.Type == KindDataRate && c.Tiers[t].Uplink.Rate <= 0 {
				rs.add(a.Path, FormatRate(c.Tiers[t].Uplink.Rate), "records.md §2", "a rate must be above 0")
			}
			if a.Type == KindTimeVal && c.Tiers[t].Uplink.Delay < 0 {
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
				// A tier's own settings: name the tier block.
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
		// Collectives: every group needs two ranks at least.
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
