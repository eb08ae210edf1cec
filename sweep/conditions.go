package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/results"
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

// parseConditions reads sweep.conditions: one axis path or a list of them. They are
// matched to the axes once the overrides are applied (resolveConditions).
func (s *Spec) parseConditions(v *yaml.Node) error {
	list, err := stringList(s.File, v, "sweep.conditions")
	if err != nil {
		return err
	}
	s.conditions = append(s.conditions, list...)
	return nil
}

// resolveConditions marks the axes sweep.conditions names (Axis.Condition). A name that
// is not an axis is refused with the axes there are; an axis a --set pinned is no longer
// a condition, and a notice says so. It refuses a sampled range (its points are not a
// grid of conditions) and a sweep whose every axis is a condition (nothing to choose).
func (s *Spec) resolveConditions() error {
	for _, a := range s.Axes {
		a.Condition = false
	}
	var named []string
	for _, e := range s.conditions {
		canon, err := config.Canonical(e.text)
		if err != nil {
			return fmt.Errorf("%s: sweep.conditions: %v", e.pos, err)
		}
		i := slices.IndexFunc(s.Axes, func(a *Axis) bool { return a.Attr.Path == canon })
		if i < 0 {
			if set := s.pinnedBy(canon); set != "" {
				s.Notices = append(s.Notices, fmt.Sprintf("--set %s pins the condition %s (%s) to one value: it is no longer a condition", set, e.text, e.pos))
				continue
			}
			var axes []string
			for _, a := range s.Axes {
				axes = append(axes, a.Path)
			}
			return fmt.Errorf("%s: sweep.conditions: %s is not an axis of the sweep (axes: %s); a condition is an axis of grid or zip that the engineer does not choose",
				e.pos, e.text, strings.Join(axes, ", "))
		}
		a := s.Axes[i]
		if slices.Contains(named, canon) {
			return fmt.Errorf("%s: sweep.conditions: %s is named twice", e.pos, e.text)
		}
		named = append(named, canon)
		if len(a.Values) == 0 || s.Sample != nil && a.Range != nil && a.Zip < 0 {
			return fmt.Errorf("%s: sweep.conditions: %s is a sampled range; a condition needs its values listed (or stepped: {from, to, steps})", e.pos, e.text)
		}
		for _, b := range s.Axes {
			if b == a || a.Zip >= 0 && b.Zip == a.Zip {
				b.Condition = true
			}
		}
	}
	bisect := s.Objective != nil && s.Objective.Bisect != nil // its bisected attribute is the setting
	if len(named) > 0 && !bisect && !slices.ContainsFunc(s.Axes, func(a *Axis) bool { return !a.Condition }) {
		return fmt.Errorf("%s: sweep.conditions: every swept axis is a condition: nothing is left to choose (a study's settings are the axes not named here)", s.conditions[0].pos)
	}
	return nil
}

// pinnedBy returns the --set that gives the attribute at canon one value, or "".
func (s *Spec) pinnedBy(canon string) string {
	for _, set := range s.Sets {
		m := overrideRE().FindStringSubmatch(set)
		if m == nil {
			continue
		}
		if c, err := config.Canonical(m[1]); err == nil && c == canon {
			return set
		}
	}
	return ""
}

// conditionCount is the number of conditions: the product of the condition axes'
// lengths, a zip group counted once.
func (s *Spec) conditionCount() int {
	n := 1
	seen := map[int]bool{}
	for _, a := range s.Axes {
		if !a.Condition || a.Zip >= 0 && seen[a.Zip] {
			continue
		}
		seen[a.Zip] = a.Zip >= 0
		n *= len(a.Values)
	}
	return n
}

// parseCombine reads objective.combine and objective.weights.
func (s *Spec) parseCombine(o *selection.Objective, k, v *yaml.Node) error {
	at := pos(s.File, v)
	switch k.Value {
	case "combine":
		c, err := parseCombineValue(v.Value)
		if err != nil {
			return fmt.Errorf("%s: objective.combine: %v", at, err)
		}
		o.Combine, s.combinePos = c, at
	case "weights":
		items := []*yaml.Node{v}
		if v.Kind == yaml.SequenceNode {
			items = v.Content
		}
		o.Weights = nil
		for _, it := range items {
			w, err := strconv.ParseFloat(it.Value, 64)
			if it.Kind != yaml.ScalarNode || err != nil || !(w > 0) || math.IsInf(w, 0) {
				return fmt.Errorf("%s: objective.weights: want positive numbers, one per condition (value %q)", pos(s.File, it), it.Value)
			}
			o.Weights = append(o.Weights, w)
		}
		s.weightsPos = at
	}
	return nil
}

func parseCombineValue(v string) (selection.Combine, error) {
	c := selection.Combine(v)
	if !slices.Contains(selection.Combines, c) {
		return "", fmt.Errorf("want each, mean or worst (value %q)", v)
	}
	return c, nil
}

// resolveCombine records the condition axes in the objective (their jobs columns) and
// checks combine and weights against them: combine needs conditions (and is each
// without one given), weights need combine mean and one positive number per condition.
func (s *Spec) resolveCombine() error {
	o := s.Objective
	o.Conditions = nil
	if o.Bisect != nil {
		// A bisection answers at each grid point: every swept axis is already one of its
		// conditions (studies.md "The smallest safe value: bisection"), so nothing combines.
		if o.Combine != "" {
			return fmt.Errorf("%s: objective.combine: a bisection (objective.%s) answers at each condition, every swept axis being one; combine is for a selection over settings", cmp.Or(s.combinePos, s.File), o.Bisect.Direction)
		}
		if o.Weights != nil {
			return fmt.Errorf("%s: objective.weights: a bisection (objective.%s) answers at each condition and weighs none", s.weightsPos, o.Bisect.Direction)
		}
		return nil
	}
	for _, a := range s.Axes {
		if a.Condition {
			o.Conditions = append(o.Conditions, a.Column)
		}
	}
	if len(o.Conditions) == 0 && len(s.conditions) > 0 {
		// Every condition is pinned by a --set (resolveConditions said so): one
		// condition is left, nothing to combine.
		o.Combine, o.Weights = "", nil
		return nil
	}
	if len(o.Conditions) == 0 {
		if o.Combine != "" {
			return fmt.Errorf("%s: objective.combine: %s combines conditions, and the sweep names none (sweep: {conditions: [AXIS, ...]}: the axes that are what the fabric or traffic is, not settings)", s.combinePos, o.Combine)
		}
		if o.Weights != nil {
			return fmt.Errorf("%s: objective.weights: the sweep names no conditions to weigh (sweep.conditions)", s.weightsPos)
		}
		return nil
	}
	if o.Combine == "" {
		o.Combine = selection.CombineEach
	}
	if o.Combine != selection.CombineEach && (o.Then != nil || len(o.Pareto) > 0) {
		what := "then (a secondary objective)"
		if len(o.Pareto) > 0 {
			what = "pareto"
		}
		return fmt.Errorf("%s: objective.combine: %s takes one metric, and the objective has %s: use combine: each (the question asked at each condition)", cmp.Or(s.combinePos, s.File), o.Combine, what)
	}
	if o.Weights != nil {
		if o.Combine != selection.CombineMean {
			return fmt.Errorf("%s: objective.weights: weights are for combine: mean (combine is %s)", s.weightsPos, o.Combine)
		}
		if m := s.conditionCount(); len(o.Weights) != m {
			var axes []string
			for _, a := range s.Axes {
				if a.Condition {
					axes = append(axes, a.Path)
				}
			}
			return fmt.Errorf("%s: objective.weights: %d weights for %d conditions (one per condition, in plan order: the values of %s)",
				s.weightsPos, len(o.Weights), m, strings.Join(axes, " × "))
		}
	}
	return nil
}

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
	if g.Combine != selection.CombineEach {
		for s, row := range g.Cell {
			for c, i := range row {
				if i < 0 {
					return nil, fmt.Errorf("%s: objective.combine: %s compares every setting at every condition, and the plan has no point %s at %s (a sweep.constraint removed it, or it equals another point); use combine: each, or let every setting run at every condition",
						cmp.Or(p.Spec.combinePos, p.Spec.File), g.Combine, g.Settings[s], g.Conditions[c])
				}
			}
		}
	}
	if g.Weights != nil && len(g.Weights) != len(g.Conditions) {
		return nil, fmt.Errorf("%s: objective.weights: %d weights for the plan's %d conditions", cmp.Or(p.Spec.weightsPos, p.Spec.File), len(g.Weights), len(g.Conditions))
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

// conditionsStatus is a decision's combined answer for status --json; point names a
// plan point as the selection status does.
func conditionsStatus(d *selection.Decision, p *Plan, point func(int) results.PointStatus) *results.ConditionsStatus {
	cd := d.Conditions
	cs := &results.ConditionsStatus{Combine: string(cd.Combine), Axes: p.Spec.Objective.Conditions, Weights: cd.Weights,
		ConfidenceEach: cd.ConfidenceEach, Pairs: cd.Pairs}
	// values returns the condition's (cond true) or the setting's values of plan point i.
	values := func(i int, cond bool) map[string]string {
		out := map[string]string{}
		for k, v := range p.PointValues(i) {
			if p.Axes[k].Condition == cond {
				out[p.Axes[k].Column] = v.Text
			}
		}
		return out
	}
	firstCell := func(row []int) int {
		for _, i := range row {
			if i >= 0 {
				return i
			}
		}
		return -1
	}
	for c, label := range cd.Conditions {
		st := results.CombinedCondition{Label: label}
		for s := range cd.Settings {
			if i := cd.Cell[s][c]; i >= 0 {
				st.Values = values(i, true)
				break
			}
		}
		if cd.Combine == selection.CombineEach {
			sub := cd.PerCondition[c]
			st.State, st.Why, st.Indifference, st.Jobs = string(sub.State), sub.Why, sub.Delta, sub.Jobs
			if sub.Best >= 0 {
				b := point(cd.Cell[cd.SettingsAt[c][sub.Best]][c])
				st.Best = &b
			}
		}
		cs.Conditions = append(cs.Conditions, st)
	}
	if cd.Over == nil {
		return cs
	}
	o := cd.Over
	finite := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	left := map[int]selection.Elimination{}
	for _, e := range o.Eliminated {
		left[e.Point] = e
	}
	for _, s := range cd.Order(p.Spec.Objective.Goal) {
		st := results.SettingStatus{Label: cd.Settings[s], Values: values(firstCell(cd.Cell[s]), false), Combined: finite(o.Means[s]),
			Replicates: o.Used[s], State: "in contention"}
		for c := range cd.Conditions {
			st.Means = append(st.Means, finite(cd.CellMeans[s][c]))
		}
		if cd.WorstAt != nil && cd.WorstAt[s] >= 0 {
			st.WorstAt = cd.Conditions[cd.WorstAt[s]]
		}
		if e, ok := left[s]; ok {
			st.State, st.Reason, st.Round = "eliminated", e.Reason, e.Round
		}
		if s == o.Best {
			st.State = "selected"
			if o.State != selection.Decided {
				st.State = "best so far"
			}
			sel := st
			cs.Selected = &sel
		}
		cs.Settings = append(cs.Settings, st)
	}
	return cs
}
