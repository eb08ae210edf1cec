package sweep

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// SelectionConfig is the selection procedure's settings for plan p (the spec's select:
// block, defaults applied for p's points).
func (p *Plan) SelectionConfig() question.Config {
	var c question.Config
	if p.Spec.Select != nil {
		c = *p.Spec.Select
	}
	if c.Initial == 0 {
		c.Initial = p.Spec.Replicates
	}
	return c.WithDefaults(p.Points)
}

// Problem builds the selection problem of plan p from a jobs table: point i's replicate
// r is the row whose job_id is JobFor(i, r)'s, so rows of other plans in the directory
// (an extended sweep, another spec) are ignored. cfg must have its defaults applied.
func (p *Plan) Problem(jobs *resultsdir.Table, cfg question.Config) (selection.Problem, error) {
	obj := p.Spec.Objective
	prob := selection.Problem{Goal: obj.Goal, Delta: obj.Indifference, DeltaPercent: obj.IndifferencePercent, Config: cfg, Metric: obj.Metric}
	var near *resultsdir.Column
	if t := obj.Then; t != nil {
		// A secondary objective: select on then's metric among the points near the best
		// on the primary (selection.Near).
		prob.Near = &selection.Near{Metric: obj.Metric, Goal: obj.Goal, Delta: obj.Indifference}
		prob.Goal, prob.Delta, prob.DeltaPercent, prob.Metric = t.Goal, t.Indifference, t.IndifferencePercent, t.Metric
		near = jobs.Col(obj.Metric)
	}
	var reqs []*constraint.Requirement
	for _, text := range obj.SubjectTo {
		c, err := constraint.ParseRequirement(text)
		if err != nil {
			return prob, fmt.Errorf("objective.subject_to: %w", err)
		}
		reqs = append(reqs, c)
		prob.Constraints = append(prob.Constraints, selection.Constraint{Text: text, Kind: c.Kind, Sense: c.Sense, Bound: c.Bound, Tolerance: c.Tolerance})
	}
	row := map[string]int{}
	maxRep := 0
	if ids := jobs.Col("job_id"); ids != nil && ids.IsString() {
		for r, id := range ids.Str {
			row[id] = r
		}
		if rc := jobs.Col("replicate"); rc != nil && !rc.IsString() {
			for r := range rc.Num {
				if !rc.Null[r] {
					maxRep = max(maxRep, int(rc.Num[r])+1)
				}
			}
		}
	}
	var vec []*resultsdir.Column
	for _, o := range obj.Pareto {
		prob.Pareto = append(prob.Pareto, selection.Objective2{Metric: o.Metric, Goal: o.Goal, Delta: o.Indifference})
		vec = append(vec, jobs.Col(o.Metric))
	}
	status, errCol, metric := jobs.Col("status"), jobs.Col("error"), jobs.Col(prob.Metric)
	labels := p.PointLabels()
	for i := 0; i < p.Points; i++ {
		pt := selection.Point{Label: labels[i]}
		for r := 0; r < maxRep; r++ {
			k, ok := row[p.JobFor(i, r).ID]
			if !ok {
				pt.Reps = append(pt.Reps, selection.Obs{State: selection.Missing}) // another shard's, or not run yet
				continue
			}
			o := observe(jobs, k, status, errCol, metric, reqs)
			for _, c := range vec {
				x := math.NaN()
				if c != nil && !c.IsString() && !c.Null[k] {
					x = c.Num[k]
				}
				o.Vec = append(o.Vec, x)
			}
			if prob.Near != nil {
				o.Near = math.NaN()
				if near != nil && !near.IsString() && !near.Null[k] {
					o.Near = near.Num[k]
				}
			}
			pt.Reps = append(pt.Reps, o)
		}
		prob.Points = append(prob.Points, pt)
	}
	return prob, nil
}

// observe reads row k of jobs as one observation.
func observe(jobs *resultsdir.Table, k int, status, errCol, metric *resultsdir.Column, reqs []*constraint.Requirement) selection.Obs {
	if status != nil && status.Text(k) != string(journal.StatusOK) {
		o := selection.Obs{State: selection.Failed, Err: status.Text(k)}
		if errCol != nil && errCol.Text(k) != "" {
			o.Err += ": " + firstLine(errCol.Text(k))
		}
		return o
	}
	o := selection.Obs{State: selection.OK, X: math.NaN()}
	if metric != nil && !metric.IsString() && !metric.Null[k] {
		o.X = metric.Num[k]
	}
	if metric != nil && metric.Null[k] {
		o.Err = notReached(jobs, k, metric.Name)
	}
	env := func(name string) (any, error) {
		c := jobs.Col(name)
		if c == nil {
			return nil, fmt.Errorf("%s: no such jobs column", name)
		}
		if c.Null[k] {
			return math.NaN(), nil
		}
		if c.IsString() {
			return c.Str[k], nil
		}
		return c.Num[k], nil
	}
	for _, c := range reqs {
		o.Values = append(o.Values, c.Observe(env))
	}
	return o
}

// notReached says why a percentile metric is null in row k of jobs (records.md RC-24:
// it falls among messages not completed by the job's end): "not reached: 6 of 120
// lossless messages completed". "" for other metrics.
func notReached(jobs *resultsdir.Table, k int, metric string) string {
	if !strings.Contains(metric, "fct_") && !strings.Contains(metric, "slowdown_") {
		return ""
	}
	class := ""
	for _, c := range []string{"_lossless", "_lossy"} {
		if strings.HasSuffix(metric, c) {
			class = c
		}
	}
	started, done := jobs.Col("msgs_started"+class), jobs.Col("msgs_completed"+class)
	if strings.HasPrefix(metric, "host_") {
		done = jobs.Col("msgs_host_completed" + class)
	}
	if started == nil || done == nil || started.IsString() || done.IsString() || started.Null[k] || done.Null[k] {
		return "not reached"
	}
	what := "messages"
	if class != "" {
		what = class[1:] + " messages"
	}
	return fmt.Sprintf("not reached: %d of %d %s completed", int64(done.Num[k]), int64(started.Num[k]), what)
}

// PointLabels names every grid point of p for people, in plan order: its swept values
// by their short names, "LossyAlpha=0.5, StaticPoolXoffThreshold=150KB" ("the one
// configuration" with nothing swept).
func (p *Plan) PointLabels() []string {
	short := p.shortNames()
	out := make([]string, p.Points)
	for i, pp := range p.points {
		if len(p.Axes) == 0 {
			out[i] = "the one configuration"
			continue
		}
		parts := make([]string, len(p.Axes))
		for k := range p.Axes {
			parts[k] = short[k] + "=" + pp.values[k].Text
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out
}

// PointValues are grid point i's swept values, in the order of p.Axes.
func (p *Plan) PointValues(i int) []specfile.Value { return p.points[i].values }

// MarkInvalid makes every job of grid point `point` invalid with err, for a rule the
// planner cannot check itself (run refuses a point estimated above its memory or disk
// budget): launch.Run then refuses the plan, or records the point's jobs as invalid with
// --skip-invalid.
func (p *Plan) MarkInvalid(point int, err error) {
	pp := &p.points[point]
	pp.invalid = err
	for r := 0; r < p.Spec.Replicates; r++ {
		p.Jobs[pp.first+r].Invalid = err
	}
	for key, j := range p.extra {
		if key[0] == point {
			j.Invalid = err
		}
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
