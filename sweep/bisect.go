package sweep

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// A bisection's spec (studies.md "The smallest safe value: bisection", docs/statistics.md
// §12):
//
//	objective:
//	  smallest: switch.HeadRoomPerPortLimit   # or largest: (a NIC Xoff: smaller is safer)
//	  range: [0, 1MB]                         # in the attribute's units
//	  resolution: 1KB
//	  subject_to: [drops_lossless == 0]       # what makes a value safe
//	  deterministic: true                     # one run per probe (no random draw depends on the replicate)
//	  checks: 1                               # monotonicity checks per condition
//
// Every grid point of the spec is a condition (a cable delay, a lane count), bisected
// on its own; the bisected attribute is no axis of the grid. A vector attribute is
// bisected one element at a time: nic.PfcStaticXoffThreshold[0]. The plan is the first
// probe of every condition (the range's safe end): one job each for deterministic jobs,
// select.initial replicates otherwise; later probes are jobs at values chosen as the run
// goes (Plan.ProbeJob), whose ids hash their configurations as every job's does.

// Bisecting reports whether p's objective is a bisection.
func (p *Plan) Bisecting() bool {
	return p.Spec.Objective != nil && p.Spec.Objective.Bisect != nil
}

// ProbeLabel writes lattice step k's value of the bisection for people (13KB, 0.987).
func (p *Plan) ProbeLabel(k int) string {
	b := p.Spec.Objective.Bisect
	return specfile.ProbeLabelOf(p.Spec.Probe, b.Element, b.Value(k))
}

// probeJob returns the job of condition `point` at lattice step k, replicate r, made as
// Expand makes every job (same seed and id rules; the same (point, k, r) gives the same
// *Job). Its Index is set by ProbeJob, from the job's place in the condition's sequence.
func (p *Plan) probeJob(point, k, r int) *Job {
	b := p.Spec.Objective.Bisect
	if k == b.SafeStep() {
		return p.JobFor(point, r) // the plan's probe, and its later replicates
	}
	key := [3]int{point, k, r}
	if j := p.probes[key]; j != nil {
		return j
	}
	pp := &p.points[point]
	v, err := p.Spec.ProbeValue(b.Value(k))
	values := slices.Clone(pp.values)
	values[len(values)-1] = v
	cfg := copyConfig(&pp.cfg)
	invalid := pp.invalid
	if err != nil {
		invalid = err
	} else {
		cfg.SetValue(v.Parsed)
		if invalid == nil {
			invalid = cfg.Validate()
		}
		if invalid == nil && p.validate != nil {
			invalid = p.validate(&cfg)
		}
	}
	j := &Job{Index: -1, Point: point, Replicate: r, Values: values, Config: cfg, Invalid: invalid}
	j.Seed = deriveSeed(&cfg, r)
	j.Config.Seed = j.Seed
	j.ID = jobID(&j.Config, r)
	if p.probes == nil {
		p.probes = map[[3]int]*Job{}
	}
	p.probes[key] = j
	return j
}

// ProbeJob returns the job a bisection needs (selection.ProbeNeed): its Index follows its
// place in its condition's sequence of jobs, len(Jobs) + (Seq − replicates) × Points +
// point beyond the plan, as JobFor numbers a selection's later rounds, so that shards
// (index mod N) split every round evenly and a probe's index never depends on which
// shard asks.
func (p *Plan) ProbeJob(n selection.ProbeNeed) *Job {
	j := p.probeJob(n.Cond, n.Step, n.Replicate)
	if j.Index < 0 {
		j.Index = len(p.Jobs) + (n.Seq-p.Spec.Replicates)*p.Points + n.Cond
	}
	return j
}

// ConditionLabels name the conditions of a bisection (its grid points without the
// bisected attribute) by their swept values: "Delay=1us", each axis by the shortest tail
// of its path no other condition axis shares ("NICSide.PhysicalLayer.LaneCount=4,
// HostSide.PhysicalLayer.LaneCount=4"); "the one condition" when nothing else is swept.
func (p *Plan) ConditionLabels() []string {
	axes := p.Spec.Axes
	names := make([]string, len(axes))
	for i, a := range axes {
		parts := strings.Split(a.Path, ".")
		for n := 1; n <= len(parts); n++ {
			names[i] = strings.Join(parts[len(parts)-n:], ".")
			unique := true
			for j, b := range axes {
				if j != i && (b.Path == names[i] || strings.HasSuffix(b.Path, "."+names[i])) {
					unique = false
				}
			}
			if unique {
				break
			}
		}
	}
	out := make([]string, p.Points)
	for i, pp := range p.points {
		if len(axes) == 0 {
			out[i] = "the one condition"
			continue
		}
		parts := make([]string, len(axes))
		for k := range axes {
			parts[k] = names[k] + "=" + pp.values[k].Text
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out
}

// BisectProblem builds the bisection of plan p from a jobs table: condition c's run at
// step k, replicate r is the row whose job_id is probeJob(c, k, r)'s, so rows of other
// plans in the directory are ignored.
func (p *Plan) BisectProblem(jobs *resultsdir.Table) (selection.BisectProblem, error) {
	obj := p.Spec.Objective
	cs, reqs, err := selection.ConstraintsOf(obj.SubjectTo)
	if err != nil {
		return selection.BisectProblem{}, fmt.Errorf("objective.subject_to: %w", err)
	}
	row := map[string]int{}
	if ids := jobs.Col("job_id"); ids != nil && ids.IsString() {
		for r, id := range ids.Str {
			row[id] = r
		}
	}
	status, errCol, metric := jobs.Col("status"), jobs.Col("error"), jobs.Col(obj.Metric)
	prob := selection.BisectProblem{Bisect: *obj.Bisect, Constraints: cs, Config: p.BisectConfig(), Conditions: p.ConditionLabels(),
		Format: func(v float64) string { return specfile.ProbeLabelOf(p.Spec.Probe, obj.Bisect.Element, v) }}
	prob.Obs = func(c, k, r int) selection.Obs {
		i, ok := row[p.probeJob(c, k, r).ID]
		if !ok {
			return selection.Obs{State: selection.Missing}
		}
		return observe(jobs, i, status, errCol, metric, reqs)
	}
	return prob, nil
}

// BisectConfig is the bisection's settings for plan p (the spec's select: block, its
// defaults applied; max_jobs selection.BisectMaxJobs's when unset), as the manifest
// records them.
func (p *Plan) BisectConfig() question.Config {
	var c question.Config
	if p.Spec.Select != nil {
		c = *p.Spec.Select
	}
	maxJobs := c.MaxJobs
	c = c.WithDefaults(p.Points) // a selection's MaxJobs default ...
	c.MaxJobs = maxJobs          // ... is not a bisection's: set below
	if c.MaxJobs == 0 {
		cs, _, _ := selection.ConstraintsOf(p.Spec.Objective.SubjectTo)
		c.MaxJobs = selection.BisectMaxJobs(p.Spec.Objective.Bisect, c, p.Points, selection.TestsPerProbe(cs))
	}
	return c
}
