package specfile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/question"
)

// Overrides are a command line's changes to a spec, applied after the file (design.md
// "Sweep spec"): Sets are --set path=value (one value: it pins the attribute, and an axis
// of that attribute goes), Grids are --grid path=v1,v2,... (an axis: added to the grid, or
// in place of the spec's axis of that attribute). The manifest records both, so that
// --resume, --extend, workers and report re-plan the very sweep that ran.
type Overrides struct {
	Sets  []string
	Grids []string
}

// overrideRE is the form of a --set or --grid value, compiled at its first use.
var overrideRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([^=\s]+)=(.*)$`) })

// applyOverrides applies the --set overrides in order, then the --grid ones (whose values
// are checked against the base the --set values made). A path may not be in both.
func (s *Spec) applyOverrides() error {
	setPaths := map[string]string{} // canonical path → the --set that named it
	for _, set := range s.Sets {
		canon, err := s.applySet(set)
		if err != nil {
			return err
		}
		if canon != "" {
			setPaths[canon] = set
		}
	}
	for _, g := range s.Grids {
		if err := s.applyGrid(g, setPaths); err != nil {
			return err
		}
	}
	return s.checkOverriddenAxes()
}

// applySet applies one --set and returns the canonical path it set ("" for replicates,
// objective.* and select.*).
func (s *Spec) applySet(set string) (string, error) {
	m := overrideRE().FindStringSubmatch(set)
	if m == nil {
		return "", fmt.Errorf("--set %q: want path=value", set)
	}
	path, value := m[1], strings.TrimSpace(m[2])
	if key, ok := strings.CutPrefix(path, "objective."); ok {
		if err := s.setObjective(key, value); err != nil {
			return "", fmt.Errorf("--set %s: %w", set, err)
		}
		return "", nil
	}
	if key, ok := strings.CutPrefix(path, "select."); ok {
		if s.Select == nil {
			s.Select = &question.Config{}
		}
		if err := setSelect(s.Select, key, value); err != nil {
			return "", fmt.Errorf("--set %s: %w", set, err)
		}
		return "", nil
	}
	if path == "replicates" {
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > MaxJobs {
			return "", fmt.Errorf("--set %s: want a whole number from 1 to %s", set, config.Commas(MaxJobs))
		}
		s.Replicates = n
		return "", nil
	}
	if key, ok := strings.CutPrefix(path, "sweep."); ok {
		if key == "replicates" {
			return "", fmt.Errorf("--set %s: replicates is a key of the spec's top level, not of sweep: --set replicates=%s", set, value)
		}
		return "", fmt.Errorf("--set %s: the sweep's axes are not --set keys: --grid PATH=V1,V2,... adds or replaces an axis, --set PATH=V pins one to a value", set)
	}
	if err := s.Base.Set(path, value); err != nil {
		return "", fmt.Errorf("--set %s: %w", set, err)
	}
	// An override of a swept attribute pins it: the axis goes, and the user hears of it
	// (the plan shrinks by that axis's factor).
	canon, _ := config.Canonical(path)
	for i, a := range s.Axes {
		if a.Attr.Path != canon {
			continue
		}
		if a.Zip >= 0 {
			return "", fmt.Errorf("--set %s: %s is zipped with other axes at %s; edit the spec instead", set, a.Path, a.Pos)
		}
		s.Notices = append(s.Notices, fmt.Sprintf("--set %s replaces the axis %s (%s, %s) by this one value", set, a.Path, a.Pos, axisSize(a)))
		s.Axes = append(s.Axes[:i], s.Axes[i+1:]...)
		break
	}
	return canon, nil
}

// applyGrid applies one --grid path=v1,v2,...: its values are parsed and checked as the
// spec's list values are (Spec.value); the axis replaces the spec's axis of that attribute
// (keeping its place, and its zip group) or is added to the grid.
func (s *Spec) applyGrid(g string, setPaths map[string]string) error {
	m := overrideRE().FindStringSubmatch(g)
	if m == nil {
		return fmt.Errorf("--grid %q: want path=value,value,...", g)
	}
	path, list := m[1], m[2]
	if path == "replicates" || path == "sweep.replicates" || strings.HasPrefix(path, "objective.") || strings.HasPrefix(path, "select.") {
		return fmt.Errorf("--grid %s: %s is a setting of the sweep, not an attribute to sweep; give it with --set", g, path)
	}
	at := "--grid " + g
	canon, err := config.Canonical(path)
	if err != nil {
		return fmt.Errorf("%s: %w", at, err)
	}
	if set, ok := setPaths[canon]; ok {
		return fmt.Errorf("%s: --set %s gives the same attribute one value; give one of the two", at, set)
	}
	old := -1
	for i, a := range s.Axes {
		if a.Attr.Path == canon {
			old = i
		}
	}
	zip := -1
	if old >= 0 {
		if prev := s.Axes[old].Pos; strings.HasPrefix(prev, "--grid ") {
			return fmt.Errorf("%s: %s is already swept by %s; give one --grid per attribute", at, path, prev)
		}
		zip = s.Axes[old].Zip
	}
	// newAxis refuses an attribute already swept: look it up without the axis it replaces.
	axes := s.Axes
	if old >= 0 {
		s.Axes = append(append([]*Axis{}, axes[:old]...), axes[old+1:]...)
	}
	a, err := s.newAxis(path, at, zip)
	s.Axes = axes
	if err != nil {
		return err
	}
	first := map[string]string{} // typed value → the text that gave it first
	for _, text := range splitValues(list) {
		if text == "" {
			return fmt.Errorf("%s: %s: an empty value (want path=value,value,...)", at, path)
		}
		v, err := s.value(a, text)
		if err != nil {
			return fmt.Errorf("--grid %s: value %q: %w", g, text, err)
		}
		key := fmt.Sprintf("%T %v", v.Typed, v.Typed)
		if was, dup := first[key]; dup && zip < 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %s: %s equals %s; merged into one value", at, path, text, was))
			continue
		}
		first[key] = text
		a.Values = append(a.Values, v)
	}
	if old < 0 {
		s.Axes = append(s.Axes, a)
		return nil
	}
	s.Notices = append(s.Notices, fmt.Sprintf("--grid %s replaces the axis %s (%s, %s) by %s", g, s.Axes[old].Path, s.Axes[old].Pos, axisSize(s.Axes[old]), axisSize(a)))
	s.Axes[old] = a
	return nil
}

// splitValues splits a --grid list at its top-level commas (a bracketed vector keeps its
// own) and trims each value.
func splitValues(list string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range list {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(list[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(list[start:]))
}

// axisSize says how many values an axis has: "3 values", or "a sampled range".
func axisSize(a *Axis) string {
	if len(a.Values) == 0 {
		return "a sampled range"
	}
	if len(a.Values) == 1 {
		return "1 value"
	}
	return strconv.Itoa(len(a.Values)) + " values"
}

// checkOverriddenAxes re-checks what the overrides can break of parseSweep's checks: a
// zip group's equal lengths, and sweep.sample's range on the grid.
func (s *Spec) checkOverriddenAxes() error {
	if len(s.Grids) == 0 && len(s.Sets) == 0 {
		return nil
	}
	first := map[int]*Axis{}
	for _, a := range s.Axes {
		if a.Zip < 0 {
			continue
		}
		f := first[a.Zip]
		if f == nil {
			first[a.Zip] = a
			continue
		}
		if len(a.Values) != len(f.Values) {
			return fmt.Errorf("%s: %s has %d values but %s (%s), zipped with it, has %d; zipped axes move together: give each axis of the group a --grid of equal length",
				a.Pos, a.Path, len(a.Values), f.Path, f.Pos, len(f.Values))
		}
	}
	if s.Sample != nil && !slicesContainsFunc(s.Axes, func(a *Axis) bool { return a.Range != nil && a.Zip < 0 }) {
		return fmt.Errorf("%s: sweep.sample draws over ranges ({from, to}) of the grid, and %s left none", s.Sample.Pos, strings.Join(append(prefixed("--set ", s.Sets), prefixed("--grid ", s.Grids)...), " "))
	}
	return nil
}

func prefixed(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}
