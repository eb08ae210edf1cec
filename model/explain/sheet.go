package explain

import (
	"fmt"
	"io"

	"github.com/rocesweep/rocesweep/model/config"
)

// WriteSheet prints the explanation as the readable sheet of `rocesweep explain`: the
// topology, one section per switch set-up (switch.md §4, §7.1), the NIC (nic.md §11,
// §12, §17), then the warnings' messages, if any.
func (ex *Explanation) WriteSheet(w io.Writer, warnings []string) {
	c := config.Commas
	fmt.Fprintf(w, "topology: %s, %s, %s\n", ex.Topology.Kind, count(ex.Topology.Hosts, "host", "hosts"), count(ex.Topology.Switches, "switch", "switches"))
	for _, s := range sheetSections(ex.Tiers()) {
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
				fmt.Sprintf("%s – %s", bytesF(p.EcnMin), bytesF(p.EcnMax)), TCs(p.LosslessClasses), TCs(p.LossyClasses), fits)
		}
		fmt.Fprintf(w, "  pause time (65535 quanta), per link kind   [switch.md §7.1, records.md §2]\n")
		for _, l := range s.Links {
			fmt.Fprintf(w, "    %-18s %3d ports  %g Gbps, Delay %g ns (%s): pause %s, refresh %s, headroom needed %s B\n", l.Link, l.Ports, l.RateGbps, l.DelayNs, l.DelayOf,
				usec(l.PauseTimeNs), usec(l.RefreshNs), c(l.HeadroomNeeded))
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
			pt = usec(n.PauseTimeNsPerTC[tc])
		}
		fmt.Fprintf(w, "  %-4d %12s %12s %12s %12s %12s %12s\n", tc, c(n.EgressPools[tc]), c(n.IngressPools[tc]), c(n.Xoff[tc]), c(n.Xon[tc]), c(n.Headroom[tc]), pt)
	}
	fmt.Fprintf(w, "  refresh             %s\n", usec(n.RefreshNs))
	fmt.Fprintf(w, "  headroom guidance   %s B (2 × L × Delay / 8 + 2 × Mtu, nic.md §12.4)\n", c(n.HeadroomGuidance))
	fmt.Fprintf(w, "  data packet         %s B on the wire (MSS + 58)\n", c(n.DataPacketBytes))
	fmt.Fprintf(w, "  payload rates       PCIe %.1f Gbps, network %.1f Gbps, PCIe receive while sending %.1f Gbps\n", n.PCIePayloadGbps, n.NetworkPayloadGbps, n.PCIeRxPayloadGbps)
	if len(warnings) > 0 {
		fmt.Fprintf(w, "\nwarnings:\n")
		for _, s := range warnings {
			fmt.Fprintf(w, "  ! %s\n", s)
		}
	}
}

// sheetSections merges tiers that run the same switch configuration on the same port
// count (so the same buffer set-up: Sections) into one section of the sheet, named by its
// tiers and switch counts: "edge, aggregation and core switches (8, 8 and 4 of them)".
// Their links are listed together. The JSON keeps one entry per tier.
func sheetSections(tiers []Switch) []Switch {
	var out []Switch
	for _, group := range Sections(tiers) {
		s := tiers[group[0]]
		s.Links = nil
		var names, counts []string
		for _, i := range group {
			s.Links = append(s.Links, tiers[i].Links...)
			names, counts = append(names, tiers[i].Tier), append(counts, fmt.Sprint(tiers[i].Count))
		}
		noun := "switch"
		if len(group) > 1 || counts[0] != "1" {
			noun = "switches"
		}
		s.Tier = fmt.Sprintf("%s %s (%s of them)", And(names), noun, And(counts))
		out = append(out, s)
	}
	return out
}

// count writes n with the noun for n: "1 host", "16 hosts", "2 switches".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// bytesF prints a float byte count with separators, keeping a fraction if any.
func bytesF(f float64) string {
	if f == float64(int64(f)) {
		return config.Commas(int64(f))
	}
	return fmt.Sprintf("%.1f", f)
}

// usec prints nanoseconds as microseconds: 83984.8 → "83.9848 us".
func usec(ns float64) string { return fmt.Sprintf("%g us", ns/1000) }
