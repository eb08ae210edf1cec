package specfile

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// Spec is a parsed sweep spec (design.md "Sweep spec"): the base job, the axes and the
// sweep's own settings. Parse builds it; sweep.Expand turns it into a Plan.
type Spec struct {
	File  string // as named in errors
	Text  []byte // the spec as given, recorded in manifest.json
	Sets  []string
	Grids []string // --grid overrides (Overrides), recorded in manifest.json as Sets are

	Base        config.Config // the job keys of the spec and --set applied
	Replicates  int           // each point runs this many times; default 1
	Axes        []*Axis       // in the order the spec names them
	Constraints []*Constraint
	Sample      *Sample
	// Warnings are problems the planner fixed and the user should hear of (equal values
	// on an axis merged); the commands print them before anything runs.
	Warnings []string
	// Notices tell what an override did to the spec's sweep (an axis it replaced); the
	// commands print them on stderr.
	Notices []string

	// Objective is the study's question (objective.go): as the spec states it, else the
	// workload's default; never nil after Parse. Select holds the spec's `select:`
	// settings (nil without the block): with them `run` is a sequential selection.
	Objective *question.Objective
	Select    *question.Config
	// Probe is the attribute a bisection's objective finds a value of (bisectspec.go), the
	// plan's last axis, whose values are chosen as the run goes; nil otherwise.
	Probe *Axis

	indifference, indifferencePos         string    // objective.indifference as given, and where
	thenIndifference, thenIndifferencePos string    // objective.then.indifference as given, and where
	thenPos                               string    // where objective.then is
	subjectPos                            []string  // where each objective.subject_to entry is
	conditions                            []posText // sweep.conditions as given (conditionsspec.go)
	CombinePos, WeightsPos                string    // where objective.combine and objective.weights are
}

// Axis is one swept attribute.
type Axis struct {
	Path   string      // as the user wrote it: switch.LossyAlpha
	Column string      // jobs column: resultsdir.ColumnOf(Path)
	Attr   config.Attr // canonical path and type
	Pos    string      // file:line:col of the key
	Zip    int         // -1 on the grid, else the index of its zip group
	Values []Value     // the listed or stepped values; empty for a sampled range
	Range  *Range      // non-nil when given as {from, to, steps, scale}
	// Condition marks an axis sweep.conditions names (or one zipped with it): what the
	// fabric or the traffic is, not a setting (conditionsspec.go).
	Condition bool
}

// Value is one value of an axis: its text (what a worker process gives Set), the typed
// value the jobs column and constraints see (typed.go), and the value parsed and checked
// once that Expand assigns.
type Value struct {
	Text   string
	Typed  any
	Parsed config.Value `json:"-"`
}

// Range is {from, to, steps, scale}; From and To are in base units (B, bps, seconds).
type Range struct {
	From, To float64
	Steps    int
	Log      bool
}

// Sample draws N points over the grid's ranges: uniformly at random ("random") or by
// Latin hypercube ("lhs"), from Seed (the spec's seed when absent).
type Sample struct {
	N      int
	Method string
	Seed   uint64
	Pos    string
}

// sweepKeys are the keys of the `sweep:` mapping.
var sweepKeys = []string{"grid", "zip", "constraint", "sample", "conditions"}

// The model knows no sweep: tell config the sweep's top-level keys, which it leaves to
// the sweep (Load ignores them, an unknown key's suggestion includes them), and the keys
// of `sweep:`, so that one of them written at the top level is reported as a key of
// `sweep:` ("indent it under `sweep:`"), not as unknown.
func init() {
	config.RegisterBlock("sweep", sweepKeys)
	config.RegisterTopKeys(topKeys...)
}

// topKeys are the sweep's own keys at a spec's top level (design.md "Sweep spec"); config
// applies the others, the job's.
var topKeys = []string{"replicates", "sweep", "objective", "select"}

// DefaultsFile is the file name of the spec of the built-in defaults (sim and explain
// given no SPEC): the one spec that may hold no YAML document.
const DefaultsFile = "(defaults)"

// Parse parses a sweep spec. Every problem is an error naming file:line:col; the
// job keys go to config.ApplyNode. sets are --set path=value overrides, applied after
// the file (an override of a swept path replaces that axis by the one value; `replicates`
// may be set too; overrides.go). A file with no document (empty, comments only,
// /dev/null) is refused: it would run the built-in defaults unnoticed; only DefaultsFile
// may be empty.
func Parse(file string, data []byte, sets []string) (*Spec, error) {
	return ParseOverrides(file, data, Overrides{Sets: sets})
}

// ParseOverrides is Parse with --grid overrides too (Overrides).
func ParseOverrides(file string, data []byte, ov Overrides) (*Spec, error) {
	s := &Spec{File: file, Text: data, Sets: ov.Sets, Grids: ov.Grids, Base: config.Default(), Replicates: 1}
	doc, err := config.DecodeOne(file, data)
	if err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 && file != DefaultsFile {
		return nil, fmt.Errorf("%s: the spec is empty (no YAML document); write its keys (name, duration, topology, workload, sweep, ...), or give sim or explain no SPEC to run the built-in defaults", file)
	}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		if root.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s: the spec is a mapping of keys (name, seed, duration, ..., sweep)", pos(file, root))
		}
		if err := s.Base.ApplyNode(file, root, topKeys...); err != nil {
			return nil, err
		}
		for i := 0; i < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			switch k.Value {
			case "replicates":
				n, err := strconv.Atoi(v.Value)
				if err != nil || n < 1 || n > MaxJobs || v.Kind != yaml.ScalarNode {
					return nil, fmt.Errorf("%s: replicates: want a whole number from 1 to %s (value %q)", pos(file, v), config.Commas(MaxJobs), v.Value)
				}
				s.Replicates = n
			case "sweep":
				if err := s.parseSweep(v); err != nil {
					return nil, err
				}
			case "objective":
				if err := s.parseObjective(v); err != nil {
					return nil, err
				}
			case "select":
				if err := s.parseSelect(v); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := s.applyOverrides(); err != nil {
		return nil, err
	}
	if err := s.resolveConditions(); err != nil {
		return nil, err
	}
	if err := s.resolveObjective(); err != nil {
		return nil, err
	}
	if err := CheckName(s.Base.Name); err != nil {
		return nil, fmt.Errorf("%s: %w", s.namePos(doc), err)
	}
	if _, _, err := s.PlanSize(); err != nil {
		return nil, err
	}
	return s, nil
}

func pos(file string, n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column) }

// namePos is where the spec's name comes from, for a message about it: the last --set
// name=..., else the name key's value in doc, else the file.
func (s *Spec) namePos(doc *yaml.Node) string {
	for i := len(s.Sets) - 1; i >= 0; i-- {
		if strings.HasPrefix(s.Sets[i], "name=") {
			return "--set name"
		}
	}
	if len(doc.Content) > 0 {
		root := doc.Content[0]
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "name" {
				return pos(s.File, root.Content[i+1])
			}
		}
	}
	return s.File
}

func (s *Spec) parseSweep(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: sweep: want a mapping with %s", pos(s.File, v), strings.Join(sweepKeys, ", "))
	}
	zips := 0
	for i := 0; i < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "grid":
			if err := s.parseAxes(val, -1); err != nil {
				return err
			}
		case "zip":
			// One zip group as a mapping, or several as a list of mappings.
			groups := []*yaml.Node{val}
			if val.Kind == yaml.SequenceNode {
				groups = val.Content
			}
			for _, g := range groups {
				if err := s.parseAxes(g, zips); err != nil {
					return err
				}
				zips++
			}
		case "constraint":
			exprs := []*yaml.Node{val}
			if val.Kind == yaml.SequenceNode {
				exprs = val.Content
			}
			for _, e := range exprs {
				if e.Kind != yaml.ScalarNode {
					return fmt.Errorf("%s: sweep.constraint: want an expression string", pos(s.File, e))
				}
				c, err := ParseConstraint(e.Value)
				if err != nil {
					return fmt.Errorf("%s: sweep.constraint: %w", pos(s.File, e), err)
				}
				c.Pos = pos(s.File, e)
				s.Constraints = append(s.Constraints, c)
			}
		case "sample":
			if err := s.parseSample(val); err != nil {
				return err
			}
		case "conditions":
			if err := s.parseConditions(val); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: sweep.%s: unknown key (want %s)%s", pos(s.File, k), k.Value, strings.Join(sweepKeys, ", "), sweepKeyHint(k.Value))
		}
	}
	// Zip groups move in lock-step: equal lengths.
	for z := 0; z < zips; z++ {
		var first *Axis
		for _, a := range s.Axes {
			if a.Zip != z {
				continue
			}
			if a.Range != nil && len(a.Values) == 0 {
				return fmt.Errorf("%s: %s: a zipped range needs steps", a.Pos, a.Path)
			}
			if first == nil {
				first = a
			} else if len(a.Values) != len(first.Values) {
				return fmt.Errorf("%s: sweep.zip: %s has %d values but %s (%s) has %d; zipped axes move together and need equal lengths",
					a.Pos, a.Path, len(a.Values), first.Path, first.Pos, len(first.Values))
			}
		}
	}
	for _, c := range s.Constraints {
		for _, ref := range c.Refs() {
			if _, err := config.Canonical(ref); err != nil {
				return fmt.Errorf("%s: sweep.constraint: %w", c.Pos, err)
			}
		}
	}
	if s.Sample == nil {
		for _, a := range s.Axes {
			if a.Range != nil && len(a.Values) == 0 {
				return fmt.Errorf("%s: %s: a range needs steps (or add sweep.sample to draw points)", a.Pos, a.Path)
			}
		}
	} else if !slicesContainsFunc(s.Axes, func(a *Axis) bool { return a.Range != nil && a.Zip < 0 }) {
		return fmt.Errorf("%s: sweep.sample draws over ranges ({from, to}) of the grid, and the grid has none", s.Sample.Pos)
	}
	return nil
}

// sweepKeyHint explains an unknown key of `sweep:`: a top-level key indented under it,
// an attribute written without its `grid:`, else the closest sweep key.
func sweepKeyHint(key string) string {
	for _, top := range config.TopKeys() {
		if top == key {
			return fmt.Sprintf("; `%s` is a top-level key: unindent it to column 1", key)
		}
	}
	if _, err := config.Canonical(key); err == nil {
		return fmt.Sprintf("; `%s` is an attribute: an axis goes under `grid:` or `zip:` (sweep: {grid: {%s: [...]}})", key, key)
	}
	return config.Suggest(key, sweepKeys)
}

func slicesContainsFunc[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if f(x) {
			return true
		}
	}
	return false
}

// parseAxes reads a mapping path → values (a list) or range ({from, to, steps, scale}).
func (s *Spec) parseAxes(m *yaml.Node, zip int) error {
	where := "sweep.grid"
	if zip >= 0 {
		where = "sweep.zip"
	}
	if m.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: %s: want a mapping of attribute paths to value lists", pos(s.File, m), where)
	}
	for i := 0; i < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		a, err := s.newAxis(k.Value, pos(s.File, k), zip)
		if err != nil {
			return err
		}
		switch v.Kind {
		case yaml.SequenceNode:
			if len(v.Content) == 0 {
				return fmt.Errorf("%s: %s: no values", pos(s.File, v), a.Path)
			}
			first := map[string]string{} // typed value → the text that gave it first
			for _, item := range v.Content {
				text, err := nodeText(item)
				if err != nil {
					return fmt.Errorf("%s: %s: %w", pos(s.File, item), a.Path, err)
				}
				val, err := s.value(a, text)
				if err != nil {
					return fmt.Errorf("%s: %w", pos(s.File, item), err)
				}
				// One point, one id: equal values after unit parsing (1, 1.0, 1e0;
				// 700KB, 0.7MB) would plan the same job twice. In a zip group a
				// repeated value is legitimate (the tuple differs); Expand merges
				// equal tuples.
				key := fmt.Sprintf("%T %v", val.Typed, val.Typed)
				if was, dup := first[key]; dup && zip < 0 {
					s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s: %s equals %s; merged into one value", pos(s.File, item), a.Path, text, was))
					continue
				}
				first[key] = text
				a.Values = append(a.Values, val)
			}
		case yaml.MappingNode:
			if err := s.parseRange(a, v); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: %s: want a list of values or a range {from, to, steps, scale} (value %q)", pos(s.File, v), a.Path, v.Value)
		}
		s.Axes = append(s.Axes, a)
	}
	return nil
}

func (s *Spec) newAxis(path, at string, zip int) (*Axis, error) {
	canon, err := config.Canonical(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", at, err)
	}
	attr, ok := config.Lookup(canon)
	if !ok || attr.Type == config.KindList {
		return nil, fmt.Errorf("%s: %s cannot be swept", at, path)
	}
	if _, ok := attr.MixEntry(); ok && len(s.Base.Workload.Mix) == 0 {
		return nil, fmt.Errorf("%s: %s: the workload is not a mix (workload: {kind: mix, mix: [...]})", at, path)
	}
	if n, ok := attr.MixEntry(); ok && n >= len(s.Base.Workload.Mix) {
		return nil, fmt.Errorf("%s: %s: the workload's mix has %d entries (workload.mix.0 to workload.mix.%d); an axis sweeps a key of one of them", at, path, len(s.Base.Workload.Mix), len(s.Base.Workload.Mix)-1)
	}
	for _, b := range s.Axes {
		if b.Attr.Path == canon {
			return nil, fmt.Errorf("%s: %s is already swept as %s at %s", at, path, b.Path, b.Pos)
		}
	}
	return &Axis{Path: path, Column: resultsdir.ColumnOf(path), Attr: attr, Pos: at, Zip: zip}, nil
}

// nodeText is the text Set parses: a scalar, or a flow list of scalars for vectors.
func nodeText(n *yaml.Node) (string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return n.Value, nil
	case yaml.SequenceNode:
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return "", fmt.Errorf("a value list entry must be a scalar or a list of scalars")
			}
			parts[i] = c.Value
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("a value must be a scalar or a list of scalars")
}

// value parses and checks text as a value of the axis's attribute, once, and returns it
// with its typed value.
func (s *Spec) value(a *Axis, text string) (Value, error) {
	v, err := a.Attr.Parse(text)
	if err != nil {
		return Value{}, fmt.Errorf("%s: %v", a.Path, strings.TrimPrefix(err.Error(), a.Attr.Path+": "))
	}
	typed, err := v.Column()
	if err != nil {
		return Value{}, err
	}
	return Value{Text: text, Typed: typed, Parsed: v}, nil
}

var rangeKeys = []string{"from", "to", "steps", "scale"}

func (s *Spec) parseRange(a *Axis, m *yaml.Node) error {
	if !a.Attr.Type.Numeric() {
		return fmt.Errorf("%s: %s: a range needs a numeric attribute (this one is %s)", pos(s.File, m), a.Path, a.Attr.Type)
	}
	r := &Range{}
	var from, to *yaml.Node
	for i := 0; i < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "from":
			from = v
		case "to":
			to = v
		case "steps":
			n, err := strconv.Atoi(v.Value)
			if err != nil || n < 1 || n > MaxJobs {
				return fmt.Errorf("%s: %s: steps: want a whole number from 1 to %s (value %q)", pos(s.File, v), a.Path, config.Commas(MaxJobs), v.Value)
			}
			r.Steps = n
		case "scale":
			switch v.Value {
			case "linear":
			case "log":
				r.Log = true
			default:
				return fmt.Errorf("%s: %s: scale: want linear or log (value %q)", pos(s.File, v), a.Path, v.Value)
			}
		default:
			return fmt.Errorf("%s: %s: unknown range key %q (want %s)%s", pos(s.File, k), a.Path, k.Value, strings.Join(rangeKeys, ", "), config.Suggest(k.Value, rangeKeys))
		}
	}
	for _, e := range []struct {
		name string
		n    *yaml.Node
		dst  *float64
	}{{"from", from, &r.From}, {"to", to, &r.To}} {
		if e.n == nil {
			return fmt.Errorf("%s: %s: a range needs from and to", pos(s.File, m), a.Path)
		}
		v, err := s.value(a, e.n.Value)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", pos(s.File, e.n), e.name, err)
		}
		*e.dst = toFloat(v.Typed)
	}
	if r.Log && (r.From <= 0 || r.To <= 0) {
		return fmt.Errorf("%s: %s: a log range needs from and to above 0", pos(s.File, m), a.Path)
	}
	a.Range = r
	for i := 0; i < r.Steps; i++ {
		u := 0.0
		if r.Steps > 1 {
			u = float64(i) / float64(r.Steps-1)
		}
		v, err := s.RangeValue(a, u)
		if err != nil {
			return fmt.Errorf("%s: %w", pos(s.File, m), err)
		}
		if n := len(a.Values); n > 0 && a.Values[n-1].Text == v.Text {
			continue // rounding to whole units made two steps equal
		}
		a.Values = append(a.Values, v)
	}
	return nil
}

// RangeValue returns the value at fraction u in [0, 1] of a's range, on its scale,
// rounded to the attribute's resolution (whole bytes, ps, integers).
func (s *Spec) RangeValue(a *Axis, u float64) (Value, error) {
	r := a.Range
	x := r.From + u*(r.To-r.From)
	if r.Log {
		x = math.Exp(math.Log(r.From) + u*(math.Log(r.To)-math.Log(r.From)))
	}
	text := a.Attr.Type.RangeText(x)
	return s.value(a, text)
}

func (s *Spec) parseSample(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: sweep.sample: want {n, method, seed}", pos(s.File, v))
	}
	smp := &Sample{Method: "random", Seed: s.Base.Seed, Pos: pos(s.File, v)}
	for i := 0; i < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		switch k.Value {
		case "n":
			n, err := strconv.Atoi(val.Value)
			if err != nil || n < 1 || n > MaxJobs {
				return fmt.Errorf("%s: sweep.sample.n: want a whole number from 1 to %s (value %q)", pos(s.File, val), config.Commas(MaxJobs), val.Value)
			}
			smp.N = n
		case "method":
			if val.Value != "random" && val.Value != "lhs" {
				return fmt.Errorf("%s: sweep.sample.method: want random or lhs (value %q)", pos(s.File, val), val.Value)
			}
			smp.Method = val.Value
		case "seed":
			n, err := strconv.ParseUint(val.Value, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: sweep.sample.seed: want a whole number (value %q)", pos(s.File, val), val.Value)
			}
			smp.Seed = n
		default:
			return fmt.Errorf("%s: sweep.sample.%s: unknown key (want n, method, seed)%s", pos(s.File, k), k.Value, config.Suggest(k.Value, []string{"n", "method", "seed"}))
		}
	}
	if smp.N == 0 {
		return fmt.Errorf("%s: sweep.sample: n is required", smp.Pos)
	}
	s.Sample = smp
	return nil
}
