package sweep

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// BisectionStatus states decision d of p's bisection with its values in the
// attribute's units and the seed's sizing guidance beside each answer (guidance).
func (p *Plan) BisectionStatus(d *selection.BisectDecision) *resultsdir.BisectionStatus {
	obj := p.Spec.Objective
	b := obj.Bisect
	st := &resultsdir.BisectionStatus{State: string(d.State), Why: d.Why, Direction: string(b.Direction), Attr: b.Attr,
		Range: [2]string{b.FromText, b.ToText}, Resolution: b.ResolutionText, SubjectTo: obj.SubjectTo,
		Deterministic: b.Deterministic, Checks: b.Checks, Round: d.Round, Jobs: d.Jobs, NeedJobs: len(d.Need), MaxJobs: d.MaxJobs,
		Steps: d.Steps, ProbesPerCondition: d.Probes, Confidence: d.Confidence, PerProbe: d.PerProbe, PerTest: d.PerTest,
		Tests: d.Tests, Rare: d.Rare, RareRuns: d.RareRunsOK, Conditions: []resultsdir.ConditionStatus{}, ConditionAxes: []string{}}
	for _, a := range p.Spec.Axes {
		st.ConditionAxes = append(st.ConditionAxes, a.Path)
	}
	if b.Element < 0 {
		st.Unit = p.Spec.Probe.Attr.Type.Unit()
		if st.Unit == "ps" {
			st.Unit = "s" // a time's column is in seconds
		}
	}
	for c, dc := range d.Conditions {
		cs := resultsdir.ConditionStatus{Label: dc.Label, Values: map[string]string{}, State: string(dc.State), Why: dc.Why,
			Jobs: dc.Jobs, Contradiction: dc.Contradiction, Probes: []resultsdir.ProbeStatus{}}
		for k, v := range p.points[c].values[:len(p.Spec.Axes)] {
			cs.Values[p.Axes[k].Column] = v.Text
		}
		if dc.Answer >= 0 {
			v := b.Value(dc.Answer)
			cs.Answer, cs.AnswerText = &v, p.ProbeLabel(dc.Answer)
		}
		if dc.Fails >= 0 {
			v := b.Value(dc.Fails)
			cs.Fails, cs.FailsText = &v, p.ProbeLabel(dc.Fails)
		}
		for _, pr := range dc.Probes {
			verdict := map[int]string{1: "holds", -1: "fails", 0: "open"}[pr.Verdict]
			cs.Probes = append(cs.Probes, resultsdir.ProbeStatus{Value: p.ProbeLabel(pr.Step), Verdict: verdict, Runs: pr.Runs, Jobs: pr.Jobs, Check: pr.Check, Reason: pr.Reason})
		}
		at := b.SafeStep()
		if dc.Answer >= 0 {
			at = dc.Answer
		}
		cs.Formula = p.guidance(c, at, cs.Answer)
		st.Conditions = append(st.Conditions, cs)
	}
	return st
}

// headroomAttr is the switch's per-port headroom cap (switch.md §4.1), the attribute
// whose sizing condition 1 (§4.6) `explain` states per link; nicXoffAttr the NIC's Xoff
// fraction (nic.md §12), whose headroom guidance is nic.md §12.4.
const (
	headroomAttr = "switch.SharedBufferManager.HeadRoomPerPortLimit"
	nicXoffAttr  = "nic.NetworkInterface.IngressBufferManager.PfcStaticXoffThreshold"
)

// guidance is the seed's sizing guidance for the bisected attribute at condition c,
// from `rocesweep explain`'s figures for the condition's configuration at step k, beside
// the answer (nil: none yet); nil for an attribute the seed gives no rule for:
//
//   - a switch's HeadRoomPerPortLimit (switch.md §4.6 condition 1): the largest headroom
//     needed on a link of the switch tiers it applies to (every tier for switch.*, the
//     tier for tiers.T.switch.*), 2 × rate × Delay / 8 + 2 × Mtu; the pause points are
//     that tier's Xoff and Xon;
//   - element tc of the NIC's PfcStaticXoffThreshold (nic.md §12.4): the class's headroom,
//     its ingress pool less Xoff, must cover 2 × L × Delay / 8 + 2 × Mtu, so the Xoff
//     fraction may be at most 1 − guidance / pool; the pause points are the Xoff and the
//     headroom in bytes at the answer.
func (p *Plan) guidance(c, k int, answer *float64) *resultsdir.Formula {
	b := p.Spec.Objective.Bisect
	cfg := p.probeJob(c, k, 0).Config
	ex, _, err := explain.Explain(&cfg)
	if err != nil {
		return nil
	}
	path := p.Spec.Probe.Attr.Path
	var f resultsdir.Formula
	var poolBytes int64 // a NIC Xoff's pool: its margin in bytes
	switch {
	case path == headroomAttr || strings.HasPrefix(path, "tiers.") && strings.HasSuffix(path, ".switch."+headroomAttr[len("switch."):]):
		tier := ""
		if strings.HasPrefix(path, "tiers.") {
			tier = strings.Split(path, ".")[1]
		}
		var best *explain.Link
		var of explain.Switch
		for _, sw := range ex.Tiers() {
			if tier != "" && !tierIs(cfg.Topology.Kind, sw.Tier, tier) {
				continue
			}
			for i := range sw.Links {
				if l := &sw.Links[i]; best == nil || l.HeadroomNeeded > best.HeadroomNeeded {
					best, of = l, sw
				}
			}
		}
		if best == nil {
			return nil
		}
		f = resultsdir.Formula{Value: float64(best.HeadroomNeeded), Text: config.Commas(best.HeadroomNeeded) + " B",
			What:  fmt.Sprintf("explain's headroom needed on the %s link, 2 × rate × Delay / 8 + 2 × Mtu (switch.md §4.6 condition 1), at the condition's rate and Delay", best.Link),
			Pause: fmt.Sprintf("%s Xoff %s B, Xon %s B", of.Tier, config.Commas(of.Xoff), config.Commas(of.Xon))}
	case path == nicXoffAttr && b.Element >= 0:
		tc := b.Element
		pool, guide := ex.NIC.IngressPools[tc], ex.NIC.HeadroomGuidance
		if pool <= 0 {
			return nil
		}
		frac := 1 - float64(guide)/float64(pool)
		poolBytes = pool
		f = resultsdir.Formula{Value: frac, Text: fmt.Sprintf("%.4f", frac),
			What: fmt.Sprintf("1 − explain's NIC headroom guidance %s B (2 × L × Delay / 8 + 2 × Mtu, nic.md §12.4) / the TC %d ingress pool %s B",
				config.Commas(guide), tc, config.Commas(pool)),
			Pause: fmt.Sprintf("NIC TC %d Xoff %s B, headroom %s B", tc, config.Commas(ex.NIC.Xoff[tc]), config.Commas(ex.NIC.Headroom[tc]))}
	default:
		return nil
	}
	if answer != nil {
		// Positive: the formula asks for a safer value than the measured answer.
		m := f.Value - *answer
		if b.Direction == question.Largest {
			m = -m
		}
		f.Margin = &m
		f.MarginText = marginText(p, m, *answer, poolBytes)
	}
	return &f
}

// tierIs reports whether explain's tier name (leaf, spine, edge, ...) is the tiers:
// block's tier (rack, fabric, spine) in a topology of this kind.
func tierIs(kind, explained, tier string) bool {
	for t, name := range config.TierNames {
		if name == tier {
			return explain.TierName(kind, t) == explained
		}
	}
	return false
}

// marginText says how conservative the formula is against the answer: "+5,368 B (+41%):
// conservative" when it asks for a safer value than needed, "−2,000 B (−2%): unsafe
// here" when it would allow a value that fails, "exact". A NIC Xoff's margin, a fraction
// of its pool, is given in bytes of the pool too: "+0.0011 (3,960 B): conservative".
func marginText(p *Plan, m, answer float64, pool int64) string {
	b := p.Spec.Objective.Bisect
	sign := "+"
	if m < 0 {
		sign = "−"
	}
	var amount string
	switch {
	case b.Element >= 0:
		amount = fmt.Sprintf("%.4f", math.Abs(m))
	case p.Spec.Probe.Attr.Type.IsBytes():
		amount = config.Commas(int64(math.Abs(m))) + " B"
	default:
		amount = specfile.ProbeLabelOf(p.Spec.Probe, b.Element, math.Abs(m))
	}
	switch {
	case pool > 0:
		amount += fmt.Sprintf(" (%s B of the pool)", config.Commas(int64(math.Round(math.Abs(m)*float64(pool)))))
	case answer != 0:
		amount += fmt.Sprintf(" (%s%s%%)", sign, trimFloat(100*math.Abs(m)/math.Abs(answer)))
	}
	switch {
	case m > 0:
		return sign + amount + ": conservative"
	case m < 0:
		return sign + amount + ": unsafe here"
	}
	return "exact"
}

// trimFloat writes x with at most three significant digits.
func trimFloat(x float64) string { return fmt.Sprintf("%.3g", x) }
