package study

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"time"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// ReadStatus is resultsdir.ReadStatus with what the sweep adds: this model version, the
// decision the study replays (DecideStatus), and with verify the plan's job ids
// (PlanMember). slurmScript is the file name under DIR/slurm/ of an array's script.
func ReadStatus(dir string, now time.Time, verify bool, slurmScript string) (*resultsdir.Status, error) {
	o := resultsdir.StatusOptions{ModelVersion: model.Version, Decide: DecideStatus, Verify: verify, SlurmScript: slurmScript, Rows: true}
	if verify {
		member, err := PlanMember(dir)
		o.Member = member
		if err != nil {
			o.MemberNote = err.Error()
		}
	}
	return resultsdir.ReadStatus(dir, now, o)
}

// DecideStatus replays the decision of the study in dir (DecideDir) as the status shows it.
func DecideStatus(dir string) (*resultsdir.Decided, error) {
	d, p, err := DecideDir(dir)
	if err == nil && p != nil && p.Bisecting() {
		return bisectDecided(p, dir)
	}
	if err != nil || d == nil {
		return nil, err
	}
	m, _ := resultsdir.ReadManifest(dir)
	sequential := m != nil && m.Select != nil
	out := &resultsdir.Decided{Selection: selectionStatus(d, p, sequential), Going: d.State == selection.Running}
	for _, nd := range d.Need {
		out.Need = append(out.Need, p.JobFor(nd.Point, nd.Replicate).Index)
	}
	return out, nil
}

func selectionStatus(d *selection.Decision, p *sweep.Plan, sequential bool) *resultsdir.SelectionStatus {
	point := func(i int) resultsdir.PointStatus {
		ps := resultsdir.PointStatus{Label: d.Labels[i], Values: map[string]string{}, Replicates: d.Used[i]}
		for k, v := range p.PointValues(i) {
			ps.Values[p.Axes[k].Column] = v.Text
		}
		if m := d.Means[i]; !math.IsNaN(m) && !math.IsInf(m, 0) && d.Used[i] > 0 {
			ps.Mean = &m
		}
		return ps
	}
	ss := &resultsdir.SelectionStatus{Sequential: sequential, State: string(d.State), Why: d.Why, Round: d.Round, Jobs: d.Jobs,
		NeedJobs: len(d.Need), FixedJobs: d.FixedJobs, Confidence: d.Confidence, Indifference: d.Delta,
		Unit: specfile.MetricUnit(p.Spec.Objective.Metric), Survivors: []resultsdir.PointStatus{}, Eliminated: []resultsdir.EliminatedPt{},
		FirstStage: d.FirstStage, Rare: d.Rare, RareRuns: d.RareRunsPair}
	if sp := d.Split; sp.Screening > 0 || sp.Feasibility > 0 {
		ss.Split = &resultsdir.SplitStatus{Feasibility: sp.Feasibility, PerTest: sp.PerTest, Tests: sp.Tests,
			Screening: sp.Screening, Rare: sp.Rare, PerPair: sp.PerPair}
	}
	if d.Best >= 0 {
		b := point(d.Best)
		ss.Best = &b
	}
	for _, i := range d.Survivors {
		ss.Survivors = append(ss.Survivors, point(i))
	}
	for _, e := range d.Eliminated {
		ss.Eliminated = append(ss.Eliminated, resultsdir.EliminatedPt{PointStatus: point(e.Point), Round: e.Round, Reason: e.Reason})
	}
	if d.Conditions != nil {
		ss.Conditions = conditionsStatus(d, p, point)
	}
	return ss
}

// PlanMember returns whether a job id is one of the plan that DIR/manifest.json records.
// The plan is made again from the manifest's spec and --set values (Replan), as
// run --extend does, and must hash to the manifest's plan_hash: else it is not the plan
// that ran (another model version, or a spec that no longer expands the same) and ids
// are not checked. A sequential selection's later rounds add replicates beyond its
// first-stage plan (Plan.JobFor): their ids are those of every point's replicates up to
// the largest replicate the jobs table holds. An error says why the plan could not be
// made.
func PlanMember(dir string) (func(id string) bool, error) {
	p, m, err := Replan(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no manifest.json")
	case err != nil:
		return nil, err
	case m.Spec == "":
		return nil, errors.New("manifest.json records no spec")
	case m.ModelVersion != model.Version:
		return nil, fmt.Errorf("the results are of model %s, this binary plans %s", m.ModelVersion, model.Version)
	case m.PlanHash != "" && p.Hash() != m.PlanHash:
		return nil, fmt.Errorf("the plan made again from manifest.json has hash %s, the manifest records %s", p.Hash(), m.PlanHash)
	}
	ids := make(map[string]bool, len(p.Jobs))
	for _, j := range p.Jobs {
		ids[j.ID] = true
	}
	if m.Select != nil {
		reps := 0
		if jobs, err := resultsdir.ReadTable(dir, "jobs", nil); err == nil {
			if rc := jobs.Col("replicate"); rc != nil && !rc.IsString() {
				for r := range rc.Num {
					reps = max(reps, int(rc.Num[r])+1)
				}
			}
		}
		for i := 0; i < p.Points; i++ {
			for r := p.Spec.Replicates; r < reps; r++ {
				ids[p.JobFor(i, r).ID] = true
			}
		}
	}
	return func(id string) bool { return ids[id] }, nil
}

// conditionsStatus is a decision's combined answer for status --json; point names a
// plan point as the selection status does.
func conditionsStatus(d *selection.Decision, p *sweep.Plan, point func(int) resultsdir.PointStatus) *resultsdir.ConditionsStatus {
	cd := d.Conditions
	cs := &resultsdir.ConditionsStatus{Combine: string(cd.Combine), Axes: p.Spec.Objective.Conditions, Weights: cd.Weights,
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
		st := resultsdir.CombinedCondition{Label: label}
		for s := range cd.Settings {
			if i := cd.Cell[s][c]; i >= 0 {
				st.Values = values(i, true)
				break
			}
		}
		if cd.Combine == question.CombineEach {
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
		st := resultsdir.SettingStatus{Label: cd.Settings[s], Values: values(firstCell(cd.Cell[s]), false), Combined: finite(o.Means[s]),
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
