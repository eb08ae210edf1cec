package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/sweep"
)

// cmdExplain prints the derived numbers and warnings of one configuration (design.md
// "Commands users type"), as model/explain computes them: the switch buffer set-up of
// switch.md §4 for each switch tier, the pause times of each link kind, the NIC pools,
// thresholds and rates of nic.md §11, §12, §17. Bad input exits 2 before anything is
// printed.
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
	e, ws, err := explain.Explain(&cfg)
	if err != nil {
		return usageError{err}
	}
	ex := &explanation{Explanation: e, Warnings: explain.Messages(ws), Job: job}
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
			j, err := p.Pick(sel)
			if err != nil {
				return config.Config{}, nil, usagef("explain: %v", err)
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

// explainLoad builds the configuration of a single-job command (sweep.SingleConfig)
// from the SPEC file, if any. Errors are usage errors (exit 2).
func explainLoad(cmd string, files, sets []string) (config.Config, error) {
	file, data := "", []byte(nil)
	if len(files) == 1 {
		b, err := os.ReadFile(files[0])
		if err != nil {
			return config.Default(), usagef("%s: %v", cmd, err)
		}
		file, data = files[0], b
	}
	cfg, err := sweep.SingleConfig(file, data, sets)
	if err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

// explanation is the JSON of `explain --json`: explain.Explanation's keys, then the
// warnings' messages and the job (keys fixed; tests and scripts rely on them).
type explanation struct {
	explain.Explanation
	Warnings []string    `json:"warnings"`
	Job      *explainJob `json:"job,omitempty"` // the job of a sweep SPEC explained
}

// writeSheet prints the explanation as a readable sheet.
func (ex *explanation) writeSheet(w io.Writer) {
	c := config.Commas
	fmt.Fprintf(w, "topology: %s, %s, %s\n", ex.Topology.Kind, plural(ex.Topology.Hosts, "host"), plural(ex.Topology.Switches, "switch"))
	for _, s := range explainSections(ex.Tiers()) {
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
				fmt.Sprintf("%s – %s", explainBytesF(p.EcnMin), explainBytesF(p.EcnMax)), explain.TCs(p.LosslessClasses), explain.TCs(p.LossyClasses), fits)
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
func explainSections(tiers []explain.Switch) []explain.Switch {
	var out []explain.Switch
	for _, group := range explain.Sections(tiers) {
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
		s.Tier = fmt.Sprintf("%s %s (%s of them)", explain.And(names), noun, explain.And(counts))
		out = append(out, s)
	}
	return out
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
