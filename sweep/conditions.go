package sweep

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/selection"
)

// Settings and conditions (studies.md "Settings and conditions", docs/design.md §3):
//
//	sweep:
//	  grid:
//	    switch.LossyAlpha: [0.25, 1, 4]
//	    workload.mix.0.senders: [4, 6]
//	  conditions: [workload.mix.0.senders]   # what the fabric or traffic is
//	objective:
//	  metric: fct_p99_usec_lossless
//	  combine: worst                         # each (the default), mean or worst
//	  weights: [1, 3]                        # mean only: one per condition, in plan order
//
// The axes named under sweep.conditions are conditions; the others are settings, what
// the engineer configures. A zip group is one axis: naming one of its axes makes the
// group a condition. The objective's combine says how the conditions make one answer
// (package selection, conditions.go).

// Grid lays plan p out as settings × conditions for its objective's combine (nil
// without conditions): settings and conditions numbered in plan order of first
// appearance, labelled by their values' short names as PointLabels does. With combine
// mean or worst every setting must have a point at every condition (a sweep.constraint
// may remove one): the error names the first one missing.
func (p *Plan) Grid() (*selection.Grid, error) {
	obj := p.Spec.Objective
	if obj == nil || len(obj.Conditions) == 0 {
		return nil, nil
	}
	short := p.shortNames()
	g := &selection.Grid{Combine: obj.Combine, Weights: obj.Weights}
	setting, condition := map[string]int{}, map[string]int{}
	type at struct{ s, c int }
	var cells []at
	for _, pp := range p.points {
		var sk, ck []string
		for k, a := range p.Axes {
			part := short[k] + "=" + pp.values[k].Text
			if a.Condition {
				ck = append(ck, part)
			} else {
				sk = append(sk, part)
			}
		}
		sl, cl := strings.Join(sk, ", "), strings.Join(ck, ", ")
		s, ok := setting[sl]
		if !ok {
			s = len(g.Settings)
			setting[sl] = s
			g.Settings = append(g.Settings, sl)
		}
		c, ok := condition[cl]
		if !ok {
			c = len(g.Conditions)
			condition[cl] = c
			g.Conditions = append(g.Conditions, cl)
		}
		cells = append(cells, at{s, c})
	}
	g.Cell = make([][]int, len(g.Settings))
	for s := range g.Cell {
		g.Cell[s] = slices.Repeat([]int{-1}, len(g.Conditions))
	}
	for i, x := range cells {
		g.Cell[x.s][x.c] = i
	}
	if g.Combine != question.CombineEach {
		for s, row := range g.Cell {
			for c, i := range row {
				if i < 0 {
					return nil, fmt.Errorf("%s: objective.combine: %s compares every setting at every condition, and the plan has no point %s at %s (a sweep.constraint removed it, or it equals another point); use combine: each, or let every setting run at every condition",
						cmp.Or(p.Spec.CombinePos, p.Spec.File), g.Combine, g.Settings[s], g.Conditions[c])
				}
			}
		}
	}
	if g.Weights != nil && len(g.Weights) != len(g.Conditions) {
		return nil, fmt.Errorf("%s: objective.weights: %d weights for the plan's %d conditions", cmp.Or(p.Spec.WeightsPos, p.Spec.File), len(g.Weights), len(g.Conditions))
	}
	return g, nil
}

// DecideProblem decides prob, a problem over p's points (Plan.Problem): by the plain
// procedure, or combined over p's conditions when the objective names some.
func (p *Plan) DecideProblem(prob selection.Problem) (selection.Decision, error) {
	g, err := p.Grid()
	if err != nil {
		return selection.Decision{}, err
	}
	if g == nil {
		return selection.Decide(prob), nil
	}
	return selection.DecideConditions(prob, *g), nil
}

// shortNames are the axes' names in labels: the last path component, or the whole path
// where two axes share it.
func (p *Plan) shortNames() []string {
	short := make([]string, len(p.Axes))
	count := map[string]int{}
	for i, a := range p.Axes {
		short[i] = a.Path[strings.LastIndex(a.Path, ".")+1:]
		if rest, ok := strings.CutPrefix(a.Path, "tiers."); ok {
			// A tier block's attribute keeps its tier: spine.StaticPoolXoffThreshold.
			if tier, _, ok := strings.Cut(rest, "."); ok {
				short[i] = tier + "." + short[i]
			}
		}
		count[short[i]]++
	}
	for i, a := range p.Axes {
		if count[short[i]] > 1 {
			short[i] = a.Path
		}
	}
	return short
}
