package specfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/model/workload"
	"github.com/rocesweep/rocesweep/question"
)

// The study's question (design.md "Sweep spec", studies.md "The study's question"):
//
//	objective:
//	  metric: fct_p99_usec_lossless    # a jobs metric
//	  goal: min                        # or max
//	  indifference: 5us                # in the metric's unit, or "5%" of the best mean
//	  subject_to: [drops_lossless == 0]
//	  also: [drops_lossy, pfc_paused_usec]
//	select: {confidence: 0.95, initial: 5, max_jobs: 2000}
//
// Without `objective:` the study asks the default question of its workload
// (DefaultObjective). `select:` makes `run` a sequential selection (sweep/study); without
// it, `run --select` uses the defaults of question.Config.

var (
	objectiveKeys = []string{"metric", "goal", "indifference", "subject_to", "also", "then", "pareto", "combine", "weights", "smallest", "largest", "range", "resolution", "deterministic", "checks"}
	thenKeys      = []string{"metric", "goal", "indifference"}
	selectKeys    = []string{"confidence", "initial", "max_jobs", "rare"}
)

// DefaultIndifferencePercent is the indifference of an objective that states none: 5% of
// the best point's mean.
const DefaultIndifferencePercent = 5

// objectiveMetrics are the jobs metrics an objective may name: every summary metric but
// the ones that measure the machine (their values differ between two runs of one job, so
// no decision could be replayed from them).
func objectiveMetrics() []string {
	var out []string
	for _, m := range stats.MetricNames {
		if !slices.Contains(machineMetrics, m) {
			out = append(out, m)
		}
	}
	return out
}

// machineMetrics measure the simulator's speed on this machine, not the fabric.
var machineMetrics = stats.MachineMetrics

// parseObjective reads the `objective:` mapping.
func (s *Spec) parseObjective(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: objective: want a mapping with %s", pos(s.File, v), strings.Join(objectiveKeys, ", "))
	}
	o := &question.Objective{Goal: question.Min}
	bisect := map[string]bisectNode{} // a bisection's keys (bisectspec.go)
	var goal *yaml.Node
	for i := 0; i < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		at := pos(s.File, val)
		switch k.Value {
		case "smallest", "largest", "range", "resolution", "deterministic", "checks":
			bisect[k.Value] = bisectNode{k, val}
		case "metric":
			if err := checkObjectiveMetric(val.Value); err != nil {
				return fmt.Errorf("%s: objective.metric: %w", at, err)
			}
			o.Metric = val.Value
		case "goal":
			switch val.Value {
			case "min", "max":
				o.Goal = question.Goal(val.Value)
			default:
				return fmt.Errorf("%s: objective.goal: want min or max (value %q)", at, val.Value)
			}
			goal = k
		case "indifference":
			s.indifference, s.indifferencePos = val.Value, at
		case "subject_to":
			list, err := stringList(s.File, val, "objective.subject_to")
			if err != nil {
				return err
			}
			for _, e := range list {
				if _, err := constraint.ParseRequirement(e.text); err != nil {
					return fmt.Errorf("%s: objective.subject_to: %w", e.pos, err)
				}
				o.SubjectTo = append(o.SubjectTo, e.text)
				s.subjectPos = append(s.subjectPos, e.pos)
			}
		case "then":
			if err := s.parseThen(o, val); err != nil {
				return err
			}
		case "pareto":
			if err := s.parsePareto(o, val); err != nil {
				return err
			}
		case "also":
			list, err := stringList(s.File, val, "objective.also")
			if err != nil {
				return err
			}
			for _, e := range list {
				if err := checkObjectiveMetric(e.text); err != nil {
					return fmt.Errorf("%s: objective.also: %w", e.pos, err)
				}
				o.Also = append(o.Also, e.text)
			}
		case "combine", "weights":
			if err := s.parseCombine(o, k, val); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: objective.%s: unknown key (want %s)%s", pos(s.File, k), k.Value, strings.Join(objectiveKeys, ", "), config.Suggest(k.Value, objectiveKeys))
		}
	}
	if err := s.parseBisect(o, bisect, v); err != nil {
		return err
	}
	if o.Bisect != nil {
		// A bisection finds a value to a resolution: it has no goal or indifference, and
		// weighs no second metric.
		if goal != nil {
			return fmt.Errorf("%s: objective.goal: a bisection has no goal: %s says which end it looks for", pos(s.File, goal), "objective."+string(o.Bisect.Direction))
		}
		if s.indifference != "" {
			return fmt.Errorf("%s: objective.indifference: a bisection has no indifference: objective.resolution says how finely it finds its value", s.indifferencePos)
		}
		if o.Pareto != nil || o.Then != nil {
			return fmt.Errorf("%s: objective: a bisection finds a value of one attribute for subject_to; pareto and then weigh metrics of a selection: use one or the other", pos(s.File, v))
		}
		s.Objective = o
		return nil
	}
	if o.Pareto != nil && o.Metric == "" {
		o.Metric, o.Goal = o.Pareto[0].Metric, o.Pareto[0].Goal
	}
	if o.Metric == "" {
		return fmt.Errorf("%s: objective: metric is required (a jobs metric such as fct_p99_usec_lossless, drops_lossless, cct_p50_usec), or smallest:/largest: for a bisection", pos(s.File, v))
	}
	if o.Pareto != nil && o.Then != nil {
		return fmt.Errorf("%s: objective: pareto and then are two ways to weigh metrics; use one", pos(s.File, v))
	}
	s.Objective = o
	return nil
}

// parseThen reads objective.then: a secondary objective (studies.md "Selecting the best point": trade-offs).
func (s *Spec) parseThen(o *question.Objective, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: objective.then: want a mapping with %s", pos(s.File, v), strings.Join(thenKeys, ", "))
	}
	t := &question.Then{Goal: question.Min}
	for i := 0; i < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		at := pos(s.File, val)
		switch k.Value {
		case "metric":
			if err := checkObjectiveMetric(val.Value); err != nil {
				return fmt.Errorf("%s: objective.then.metric: %w", at, err)
			}
			t.Metric = val.Value
		case "goal":
			if val.Value != "min" && val.Value != "max" {
				return fmt.Errorf("%s: objective.then.goal: want min or max (value %q)", at, val.Value)
			}
			t.Goal = question.Goal(val.Value)
		case "indifference":
			s.thenIndifference, s.thenIndifferencePos = val.Value, at
		default:
			return fmt.Errorf("%s: objective.then.%s: unknown key (want %s)%s", pos(s.File, k), k.Value, strings.Join(thenKeys, ", "), config.Suggest(k.Value, thenKeys))
		}
	}
	if t.Metric == "" {
		return fmt.Errorf("%s: objective.then: metric is required (the second metric, e.g. completed_frac_lossy)", pos(s.File, v))
	}
	s.thenPos = pos(s.File, v)
	o.Then = t
	return nil
}

// parsePareto reads objective.pareto: 2 or 3 metrics, each {metric, goal, indifference}
// with an absolute indifference (studies.md "Selecting the best point": trade-offs).
func (s *Spec) parsePareto(o *question.Objective, v *yaml.Node) error {
	if v.Kind != yaml.SequenceNode || len(v.Content) < 2 || len(v.Content) > 3 {
		return fmt.Errorf("%s: objective.pareto: want a list of 2 or 3 metrics, each {metric: M, goal: min|max, indifference: D}", pos(s.File, v))
	}
	for n, item := range v.Content {
		where := fmt.Sprintf("objective.pareto[%d]", n)
		if item.Kind != yaml.MappingNode {
			return fmt.Errorf("%s: %s: want {metric: M, goal: min|max, indifference: D}", pos(s.File, item), where)
		}
		t := question.Then{Goal: question.Min}
		ind, indPos := "", ""
		for i := 0; i < len(item.Content); i += 2 {
			k, val := item.Content[i], item.Content[i+1]
			at := pos(s.File, val)
			switch k.Value {
			case "metric":
				if err := checkObjectiveMetric(val.Value); err != nil {
					return fmt.Errorf("%s: %s.metric: %w", at, where, err)
				}
				t.Metric = val.Value
			case "goal":
				if val.Value != "min" && val.Value != "max" {
					return fmt.Errorf("%s: %s.goal: want min or max (value %q)", at, where, val.Value)
				}
				t.Goal = question.Goal(val.Value)
			case "indifference":
				ind, indPos = val.Value, at
			default:
				return fmt.Errorf("%s: %s.%s: unknown key (want %s)%s", pos(s.File, k), where, k.Value, strings.Join(thenKeys, ", "), config.Suggest(k.Value, thenKeys))
			}
		}
		if t.Metric == "" || ind == "" {
			return fmt.Errorf("%s: %s: metric and indifference are required", pos(s.File, item), where)
		}
		abs, pct, err := ParseIndifference(t.Metric, ind)
		if err != nil {
			return fmt.Errorf("%s: %s.indifference: %w", indPos, where, err)
		}
		if pct > 0 {
			return fmt.Errorf("%s: %s.indifference: a Pareto metric's indifference is a value in its unit, not a percent (value %q)", indPos, where, ind)
		}
		t.Indifference = abs
		o.Pareto = append(o.Pareto, t)
	}
	return nil
}

// parseSelect reads the `select:` mapping.
func (s *Spec) parseSelect(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: select: want a mapping with %s", pos(s.File, v), strings.Join(selectKeys, ", "))
	}
	c := &question.Config{}
	for i := 0; i < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if err := setSelect(c, k.Value, val.Value); err != nil {
			if strings.HasPrefix(err.Error(), "unknown key") {
				return fmt.Errorf("%s: select.%s: %w", pos(s.File, k), k.Value, err)
			}
			return fmt.Errorf("%s: select.%s: %w", pos(s.File, val), k.Value, err)
		}
	}
	s.Select = c
	return nil
}

// setSelect sets one key of a select block (the spec's, or --set select.KEY=VALUE).
func setSelect(c *question.Config, key, value string) error {
	switch key {
	case "confidence":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || !(f >= 0.5 && f < 1) {
			return fmt.Errorf("want a probability from 0.5 to below 1, e.g. 0.95 (value %q)", value)
		}
		c.Confidence = f
	case "initial":
		n, err := strconv.Atoi(value)
		if err != nil || n < 2 || n > MaxJobs {
			return fmt.Errorf("want a whole number of first-stage replicates from 2 to %s (value %q)", config.Commas(MaxJobs), value)
		}
		c.Initial = n
	case "max_jobs":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > MaxJobs {
			return fmt.Errorf("want a whole number of jobs from 1 to %s (value %q)", config.Commas(MaxJobs), value)
		}
		c.MaxJobs = n
	case "rare":
		// A share of runs: 0.01 or 1% (statistics.md §5).
		f, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
		if strings.HasSuffix(value, "%") {
			f /= 100
		}
		if err != nil || !(f > 0 && f <= 0.5) {
			return fmt.Errorf("want a share of runs above 0 and at most 50%%, e.g. 1%% or 0.01 (value %q)", value)
		}
		c.Rare = f
	default:
		return fmt.Errorf("unknown key (want %s)%s", strings.Join(selectKeys, ", "), config.Suggest(key, selectKeys))
	}
	return nil
}

// setObjective sets one key of the objective from --set objective.KEY=VALUE.
func (s *Spec) setObjective(key, value string) error {
	if s.Objective == nil {
		s.Objective = &question.Objective{Goal: question.Min}
		if d := DefaultObjective(&s.Base); key != "metric" {
			*s.Objective = d
			s.Objective.Default = ""
		}
	}
	o := s.Objective
	switch key {
	case "metric":
		if err := checkObjectiveMetric(value); err != nil {
			return err
		}
		o.Metric = value
	case "goal":
		if value != "min" && value != "max" {
			return fmt.Errorf("want min or max (value %q)", value)
		}
		o.Goal = question.Goal(value)
	case "indifference":
		s.indifference, s.indifferencePos = value, "--set objective.indifference"
	case "subject_to":
		if _, err := constraint.ParseRequirement(value); err != nil {
			return err
		}
		o.SubjectTo = []string{value}
		s.subjectPos = []string{"--set objective.subject_to"}
	case "combine":
		c, err := parseCombineValue(value)
		if err != nil {
			return err
		}
		o.Combine, s.CombinePos = c, "--set objective.combine="+value
	default:
		return fmt.Errorf("unknown key (want metric, goal, indifference, subject_to, combine)%s", config.Suggest(key, objectiveKeys))
	}
	return nil
}

type posText struct{ text, pos string }

// stringList reads one string or a list of strings.
func stringList(file string, v *yaml.Node, where string) ([]posText, error) {
	items := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		items = v.Content
	}
	var out []posText
	for _, it := range items {
		if it.Kind != yaml.ScalarNode || it.Value == "" {
			return nil, fmt.Errorf("%s: %s: want a string or a list of strings", pos(file, it), where)
		}
		out = append(out, posText{it.Value, pos(file, it)})
	}
	return out, nil
}

func checkObjectiveMetric(m string) error {
	if slices.Contains(machineMetrics, m) {
		return fmt.Errorf("%s measures this machine's speed, not the fabric: a decision must not depend on it", m)
	}
	if !slices.Contains(stats.MetricNames, m) {
		return fmt.Errorf("%q is not a jobs metric%s (metrics: %s)", m, config.Suggest(m, objectiveMetrics()), strings.Join(objectiveMetrics(), ", "))
	}
	return nil
}

// resolveObjective fills in the default objective, resolves the indifference in the
// metric's unit and checks subject_to's names against the jobs columns (metrics and the
// swept columns). It runs after the --set overrides.
func (s *Spec) resolveObjective() error {
	if s.Objective == nil {
		d := DefaultObjective(&s.Base)
		s.Objective = &d
	}
	o := s.Objective
	o.Indifference, o.IndifferencePercent = 0, 0
	if err := s.checkBisect(); err != nil {
		return err
	}
	if o.Bisect != nil {
		// no indifference: the resolution says how fine (parseObjective refused one)
	} else if s.indifference == "" {
		o.IndifferencePercent = DefaultIndifferencePercent
	} else {
		abs, pct, err := ParseIndifference(o.Metric, s.indifference)
		if err != nil {
			return fmt.Errorf("%s: objective.indifference: %w", s.indifferencePos, err)
		}
		o.Indifference, o.IndifferencePercent = abs, pct
	}
	if t := o.Then; t != nil {
		if o.Indifference == 0 {
			return fmt.Errorf("%s: objective.indifference: with then:, the primary's indifference must be a value in %s's unit (not a percent): the points within it of the best are the ones then: chooses among", s.thenPos, o.Metric)
		}
		t.Indifference, t.IndifferencePercent = 0, DefaultIndifferencePercent
		if s.thenIndifference != "" {
			abs, pct, err := ParseIndifference(t.Metric, s.thenIndifference)
			if err != nil {
				return fmt.Errorf("%s: objective.then.indifference: %w", s.thenIndifferencePos, err)
			}
			t.Indifference, t.IndifferencePercent = abs, pct
		}
	}
	columns := objectiveMetrics()
	for _, a := range s.Axes {
		columns = append(columns, a.Column)
	}
	for i, text := range o.SubjectTo {
		c, _ := constraint.ParseRequirement(text)
		for _, ref := range c.Refs() {
			if !slices.Contains(columns, ref) {
				return fmt.Errorf("%s: objective.subject_to: %q is not a jobs column%s (a subject_to names metrics such as drops_lossless, or swept columns such as switch_LossyAlpha)",
					s.subjectPos[i], ref, config.Suggest(ref, columns))
			}
		}
	}
	return s.resolveCombine()
}

// ParseIndifference reads an indifference for metric: "5%" (a percent of the best
// point's mean), a plain number in the metric's unit, or a value with a unit that
// converts to it: a time for an _usec metric (5us, 500ns), a rate for a _gbps metric
// (10Gbps), a size for a _bytes metric (64KB). It must be above 0.
func ParseIndifference(metric, text string) (abs, percent float64, err error) {
	t := strings.TrimSpace(text)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(f > 0 && f < 1000) {
			return 0, 0, fmt.Errorf("%q: want a percent above 0, e.g. 5%%", text)
		}
		return 0, f, nil
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		if !(f > 0) || math.IsInf(f, 0) {
			return 0, 0, fmt.Errorf("%q: want a difference above 0", text)
		}
		return f, 0, nil
	}
	unit := MetricUnit(metric)
	var f float64
	switch unit {
	case "µs":
		tv, perr := config.ParseTime(t, false)
		err, f = perr, float64(tv)/1e6 // ps → µs
	case "s":
		tv, perr := config.ParseTime(t, false)
		err, f = perr, float64(tv)/1e12
	case "Gbps":
		r, perr := config.ParseRate(t)
		err, f = perr, float64(r)/1e9
	case "B":
		b, perr := config.ParseBytes(t)
		err, f = perr, float64(b)
	default:
		return 0, 0, fmt.Errorf("%q: %s is a count: give a plain number (e.g. 1) or a percent (5%%)", text, metric)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("%q: want a %s value (%s is in %s), a plain number in %s, or a percent: %w", text, unit, metric, unit, unit, err)
	}
	if !(f > 0) {
		return 0, 0, fmt.Errorf("%q: want a difference above 0", text)
	}
	return f, 0, nil
}

// MetricUnit is the unit of a jobs metric (stats.Unit).
func MetricUnit(metric string) string { return stats.Unit(metric) }

// DefaultObjective is the question of a study whose spec states none, from its
// workload: a collective's median completion time; else the p99 FCT of the lossless
// traffic (the class a lossless fabric is tuned for) when the workload has some; else
// the lossy traffic's; else the drops. Its Default says which.
func DefaultObjective(c *config.Config) question.Objective {
	var lossless, lossy, collective bool
	rack := c.TierSwitch(config.TierRack)
	elems := []config.Workload{c.Workload}
	if c.Workload.Kind == "mix" {
		elems = c.Workload.Mix
	}
	for _, e := range elems {
		switch {
		case e.Kind == "none":
		case workload.IsCollective(e.Kind):
			collective = true
		case e.DataTC >= 0 && e.DataTC < 8 && rack.SharedBufferManager.EnablePFC[e.DataTC] == 1:
			lossless = true
		default:
			lossy = true
		}
	}
	o := question.Objective{Goal: question.Min}
	switch {
	case collective:
		o.Metric, o.Default = "cct_p50_usec", "the workload's collective: its median completion time"
	case lossless:
		o.Metric, o.Default = "fct_p99_usec_lossless", "the workload's lossless traffic: its p99 FCT"
	case lossy:
		o.Metric, o.Default = "fct_p99_usec_lossy", "the workload's lossy traffic: its p99 FCT"
	default:
		o.Metric, o.Default = "drops_total", "no traffic to time: the drops"
	}
	return o
}
