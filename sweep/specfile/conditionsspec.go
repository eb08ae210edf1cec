package specfile

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/question"
)

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
			return fmt.Errorf("%s: sweep.conditions: %w", e.pos, err)
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
func (s *Spec) parseCombine(o *question.Objective, k, v *yaml.Node) error {
	at := pos(s.File, v)
	switch k.Value {
	case "combine":
		c, err := parseCombineValue(v.Value)
		if err != nil {
			return fmt.Errorf("%s: objective.combine: %w", at, err)
		}
		o.Combine, s.CombinePos = c, at
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
		s.WeightsPos = at
	}
	return nil
}

func parseCombineValue(v string) (question.Combine, error) {
	c := question.Combine(v)
	if !slices.Contains(question.Combines, c) {
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
			return fmt.Errorf("%s: objective.combine: a bisection (objective.%s) answers at each condition, every swept axis being one; combine is for a selection over settings", cmp.Or(s.CombinePos, s.File), o.Bisect.Direction)
		}
		if o.Weights != nil {
			return fmt.Errorf("%s: objective.weights: a bisection (objective.%s) answers at each condition and weighs none", s.WeightsPos, o.Bisect.Direction)
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
			return fmt.Errorf("%s: objective.combine: %s combines conditions, and the sweep names none (sweep: {conditions: [AXIS, ...]}: the axes that are what the fabric or traffic is, not settings)", s.CombinePos, o.Combine)
		}
		if o.Weights != nil {
			return fmt.Errorf("%s: objective.weights: the sweep names no conditions to weigh (sweep.conditions)", s.WeightsPos)
		}
		return nil
	}
	if o.Combine == "" {
		o.Combine = question.CombineEach
	}
	if o.Combine != question.CombineEach && (o.Then != nil || len(o.Pareto) > 0) {
		what := "then (a secondary objective)"
		if len(o.Pareto) > 0 {
			what = "pareto"
		}
		return fmt.Errorf("%s: objective.combine: %s takes one metric, and the objective has %s: use combine: each (the question asked at each condition)", cmp.Or(s.CombinePos, s.File), o.Combine, what)
	}
	if o.Weights != nil {
		if o.Combine != question.CombineMean {
			return fmt.Errorf("%s: objective.weights: weights are for combine: mean (combine is %s)", s.WeightsPos, o.Combine)
		}
		if m := s.conditionCount(); len(o.Weights) != m {
			var axes []string
			for _, a := range s.Axes {
				if a.Condition {
					axes = append(axes, a.Path)
				}
			}
			return fmt.Errorf("%s: objective.weights: %d weights for %d conditions (one per condition, in plan order: the values of %s)",
				s.WeightsPos, len(o.Weights), m, strings.Join(axes, " × "))
		}
	}
	return nil
}
