package specfile

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// bisectKeys are the objective keys of a bisection.
var bisectKeys = []string{"smallest", "largest", "range", "resolution", "deterministic", "checks"}

// bisectNode is one bisection key of the objective as the spec gives it.
type bisectNode struct{ key, val *yaml.Node }

// parseBisect reads the bisection keys of an objective (nodes, by key) into o.Bisect
// and s.Probe, the bisected attribute as the plan's last axis. obj is the objective's
// mapping, for errors that name no key.
func (s *Spec) parseBisect(o *question.Objective, nodes map[string]bisectNode, obj *yaml.Node) error {
	at := func(n *yaml.Node) string { return pos(s.File, n) }
	small, okS := nodes["smallest"]
	large, okL := nodes["largest"]
	switch {
	case okS && okL:
		return fmt.Errorf("%s: objective.largest: a bisection asks for the smallest or the largest safe value, not both (smallest is at %s)", at(large.key), at(small.key))
	case !okS && !okL:
		for _, k := range bisectKeys[2:] {
			if n, ok := nodes[k]; ok {
				return fmt.Errorf("%s: objective.%s: belongs to a bisection: add smallest: ATTRIBUTE (or largest:) to the objective", at(n.key), k)
			}
		}
		return nil
	}
	b := &question.Bisect{Direction: question.Smallest, Element: -1, Checks: question.DefaultChecks}
	attr := small
	if okL {
		b.Direction, attr = question.Largest, large
	}
	field := "objective." + string(b.Direction)
	if attr.val.Kind != yaml.ScalarNode || attr.val.Value == "" {
		return fmt.Errorf("%s: %s: want an attribute path, e.g. switch.HeadRoomPerPortLimit or nic.PfcStaticXoffThreshold[0]", at(attr.val), field)
	}
	axis, elem, err := probeAxis(attr.val.Value, at(attr.val))
	if err != nil {
		return fmt.Errorf("%s: %s: %w", at(attr.val), field, err)
	}
	b.Attr, b.Column, b.Element = attr.val.Value, axis.Column, elem
	r, ok := nodes["range"]
	if !ok {
		return fmt.Errorf("%s: objective: a bisection needs range: [FROM, TO], in %s's units", at(obj), b.Attr)
	}
	if r.val.Kind != yaml.SequenceNode || len(r.val.Content) != 2 {
		return fmt.Errorf("%s: objective.range: want [FROM, TO], two values of %s (value %s)", at(r.val), b.Attr, nodeString(r.val))
	}
	ends := [2]*float64{&b.From, &b.To}
	texts := [2]*string{&b.FromText, &b.ToText}
	for i, n := range r.val.Content {
		x, err := probeNumber(axis, elem, n)
		if err != nil {
			return fmt.Errorf("%s: objective.range: %w", at(n), err)
		}
		*ends[i], *texts[i] = x, n.Value
	}
	if !(b.To > b.From) {
		return fmt.Errorf("%s: objective.range: [%s, %s] is empty: TO must be above FROM", at(r.val), b.FromText, b.ToText)
	}
	res, ok := nodes["resolution"]
	if !ok {
		return fmt.Errorf("%s: objective: a bisection needs resolution: the step it is found to (e.g. 1KB), in %s's units", at(obj), b.Attr)
	}
	if b.Resolution, err = probeNumber(axis, elem, res.val); err != nil {
		return fmt.Errorf("%s: objective.resolution: %w", at(res.val), err)
	}
	b.ResolutionText = res.val.Value
	if !(b.Resolution > 0) || b.Resolution > b.To-b.From {
		return fmt.Errorf("%s: objective.resolution: %s: want a step above 0 and at most the range's width %s", at(res.val), b.ResolutionText, ProbeLabelOf(axis, elem, b.To-b.From))
	}
	if steps := b.Steps(); steps > MaxJobs {
		return fmt.Errorf("%s: objective.resolution: %s cuts the range into %s steps; the most is %s", at(res.val), b.ResolutionText, config.Commas(int64(steps)), config.Commas(MaxJobs))
	}
	if n, ok := nodes["deterministic"]; ok {
		v, err := strconv.ParseBool(n.val.Value)
		if err != nil || n.val.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s: objective.deterministic: want true or false (value %q)", at(n.val), n.val.Value)
		}
		b.Deterministic = v
	}
	if n, ok := nodes["checks"]; ok {
		v, err := strconv.Atoi(n.val.Value)
		if err != nil || v < 0 || v > 100 || n.val.Kind != yaml.ScalarNode {
			return fmt.Errorf("%s: objective.checks: want a whole number of monotonicity checks per condition from 0 to 100 (value %q)", at(n.val), n.val.Value)
		}
		b.Checks = v
	}
	o.Bisect = b
	s.Probe = axis
	return nil
}

// nodeString is a node as the spec wrote it, for errors.
func nodeString(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	out, _ := yaml.Marshal(n)
	return strings.TrimSpace(string(out))
}

// probeAxis is the axis of a bisected attribute path, "ATTR" or "ATTR[i]" for element i
// of a vector attribute, with the element (-1 for none). The attribute must be a number
// (bytes, a rate, a time, an integer, a double) or an element of a vector.
func probeAxis(path, at string) (*Axis, int, error) {
	name, elem := path, -1
	if i := strings.IndexByte(path, '['); i >= 0 && strings.HasSuffix(path, "]") {
		e, err := strconv.Atoi(path[i+1 : len(path)-1])
		if err != nil || e < 0 || e > 7 {
			return nil, 0, fmt.Errorf("%s: the element in [] is a traffic class, 0 to 7", path)
		}
		name, elem = path[:i], e
	}
	canon, err := config.Canonical(name)
	if err != nil {
		return nil, 0, err
	}
	attr, ok := config.Lookup(canon)
	if !ok {
		return nil, 0, fmt.Errorf("%s cannot be bisected", name)
	}
	switch {
	case attr.Type == config.KindVector && elem < 0:
		return nil, 0, fmt.Errorf("%s is a vector of 8 traffic classes: bisect one element, e.g. %s[0]", name, name)
	case attr.Type != config.KindVector && elem >= 0:
		return nil, 0, fmt.Errorf("%s is a %s, not a vector: drop the [%d]", name, attr.Type, elem)
	case attr.Type != config.KindVector && !attr.Type.Numeric():
		return nil, 0, fmt.Errorf("%s is a %s: a bisection needs a number (bytes, a rate, a time, an integer or a double)", name, attr.Type)
	}
	return &Axis{Path: name, Column: resultsdir.ColumnOf(name), Attr: attr, Pos: at, Zip: -1}, elem, nil
}

// probeNumber parses a range end or a resolution of the bisected attribute: a value of
// the attribute in its units (1MB, 10us), or, for a vector element, a number; it returns
// it in the jobs column's unit (B, s, bit/s, a number).
func probeNumber(a *Axis, elem int, n *yaml.Node) (float64, error) {
	if n.Kind != yaml.ScalarNode {
		return 0, fmt.Errorf("want one value of %s (value %s)", a.Path, nodeString(n))
	}
	if elem >= 0 {
		x, err := config.ParseDouble(n.Value)
		if err != nil {
			return 0, fmt.Errorf("%s[%d]: want a number (value %q)", a.Path, elem, n.Value)
		}
		return x, nil
	}
	v, err := a.Attr.Parse(n.Value)
	if err != nil {
		return 0, err
	}
	typed, err := v.Column()
	if err != nil {
		return 0, err
	}
	return toFloat(typed), nil
}

// ProbeLabelOf writes x, a value of the bisected attribute in its column's unit, as the
// spec would (700KB, 1us, 0.987).
func ProbeLabelOf(a *Axis, elem int, x float64) string {
	if elem >= 0 {
		return strconv.FormatFloat(x, 'g', 12, 64)
	}
	return a.Attr.Type.RangeText(x)
}

// checkBisect checks a bisection against the rest of the spec, after the overrides: the
// bisected attribute is no axis of the grid (nor --grid's), no sweep.constraint reads it,
// and subject_to says what makes a value safe (Expand refuses a --set of it: sim may pin
// it). An objective without `metric:` shows the
// first metric subject_to reads.
func (s *Spec) checkBisect() error {
	o := s.Objective
	b := o.Bisect
	if b == nil {
		return nil
	}
	field := "objective." + string(b.Direction)
	for _, a := range s.Axes {
		if a.Attr.Path == s.Probe.Attr.Path {
			return fmt.Errorf("%s: %s: %s is also swept at %s; a bisection chooses its values itself: drop the axis (the other axes are its conditions)", s.Probe.Pos, field, b.Attr, a.Pos)
		}
	}
	for _, c := range s.Constraints {
		for _, ref := range c.Refs() {
			if canon, err := config.Canonical(ref); err == nil && canon == s.Probe.Attr.Path {
				return fmt.Errorf("%s: sweep.constraint: reads %s, which is bisected (%s): a condition cannot depend on the value being found", c.Pos, ref, s.Probe.Pos)
			}
		}
	}
	if len(o.SubjectTo) == 0 {
		return fmt.Errorf("%s: %s: a bisection needs subject_to, the constraint that makes a value safe (e.g. subject_to: [drops_lossless == 0])", s.Probe.Pos, field)
	}
	if o.Metric == "" {
		for _, text := range o.SubjectTo {
			c, _ := constraint.ParseRequirement(text)
			for _, ref := range c.Refs() {
				if o.Metric == "" && slices.Contains(objectiveMetrics(), ref) {
					o.Metric = ref
				}
			}
		}
		if o.Metric == "" {
			return fmt.Errorf("%s: %s: subject_to reads no jobs metric; add metric: NAME to say which metric the report charts", s.Probe.Pos, field)
		}
	}
	return nil
}

// CheckProbeSets refuses a --set that pins the bisected attribute, whose values are the
// bisection's (an element of a vector may be set with the others: the bisection changes
// its own element only).
func (s *Spec) CheckProbeSets() error {
	b := s.Objective.Bisect
	for _, set := range s.Sets {
		m := overrideRE().FindStringSubmatch(set)
		if canon, err := config.Canonical(m[1]); err == nil && canon == s.Probe.Attr.Path && b.Element < 0 {
			return fmt.Errorf("--set %s: %s is bisected (%s): its values are the bisection's; change objective.range instead", set, b.Attr, s.Probe.Pos)
		}
	}
	return nil
}

// DropBisection makes s a spec of fixed values: its bisection objective goes, and with it
// the bisected attribute's axis, so that the attribute keeps the value the spec or a
// --set gives it (`sim` of one probe: `rocesweep sim configs/headroom.yaml --set
// nic.Delay=1us --set switch.HeadRoomPerPortLimit=100KB`).
func (s *Spec) DropBisection() {
	if s.Probe == nil {
		return
	}
	o := *s.Objective
	o.Bisect = nil
	s.Objective, s.Probe = &o, nil
}

// useBisection makes s a bisection's spec: its plan is the first probe of every
// condition, one job each for deterministic jobs, else select.initial replicates (the
// first batch of a stochastic probe). It returns a warning when that drops a `replicates` the
// spec set.
func (s *Spec) useBisection() string {
	if s.Select == nil {
		s.Select = &question.Config{}
	}
	n := 1
	if !s.Objective.Bisect.Deterministic {
		n = s.Select.Initial
		if n == 0 {
			n = question.DefaultInitial
		}
		s.Select.Initial = n
	}
	warn := ""
	if s.Replicates > 1 && s.Replicates != n {
		warn = fmt.Sprintf("replicates: %d is not used by a bisection: it runs %s per probe (%s)", s.Replicates,
			map[bool]string{true: "one job", false: "as many replicates as its sequential test needs"}[n == 1],
			map[bool]string{true: "objective.deterministic", false: "docs/statistics.md §12"}[n == 1])
	}
	s.Replicates = n
	return warn
}

// ProbeValue is the value of the bisected attribute at x (a column value), as an axis
// value: its text as Set takes it (a vector element: the whole vector with that element
// set, the others as the spec's base has them).
func (s *Spec) ProbeValue(x float64) (Value, error) {
	b := s.Objective.Bisect
	// Lattice values are From + k × Resolution: round away the last bits of a sum of
	// decimals (0.5 + 487 × 0.001), which would otherwise print as 0.9870000000000001.
	x, _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	a := s.Probe
	if b.Element < 0 {
		return s.value(a, a.Attr.Type.RangeText(x))
	}
	base, err := s.Base.Get(a.Attr.Path)
	if err != nil {
		return Value{}, err
	}
	entries, err := config.SplitList(base)
	if err != nil {
		return Value{}, err
	}
	vec, err := config.ParseVec8(entries, false)
	if err != nil {
		return Value{}, err
	}
	vec[b.Element] = x
	return s.value(a, config.FormatVec8(vec))
}
