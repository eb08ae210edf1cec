package selection

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
)

// Settings and conditions (studies.md "Settings and conditions"; docs/statistics.md §13).
// A study's swept axes are either settings (what the engineer configures: LossyAlpha,
// Xoff) or conditions (what the fabric or the traffic is: an incast degree, a load, a
// cable delay). Every grid point is one (setting, condition) cell, and replicate r of
// every cell draws the same random numbers. The objective's `combine:` says how the
// conditions make one answer:
//
//   - CombineEach: one decision per condition, over the settings at it: m selections of
//     the plain procedure (kn.go), each at confidence 1 − α/m (Bonferroni), so that all
//     m answers are right together with probability at least 1 − α.
//   - CombineMean: the setting best on the (weighted) average over the conditions: the
//     plain procedure over the settings, replicate r of setting s being the weighted
//     average of replicate r of its m cells (they share their random numbers, so these
//     averages keep the common random numbers between settings). One replicate of a
//     setting costs m jobs.
//   - CombineWorst: the setting whose worst condition is best (a robust choice): the
//     procedure of worst.go, which compares cells of different settings.
//
// Constraints (subject_to) must hold at every condition: for mean and worst each
// constraint is judged at each condition separately (a setting is acceptable when it
// is acceptable at all its conditions), and the feasibility share of α is spread over
// the settings and these per-condition tests.

// Grid lays a problem's points out as settings × conditions.
type Grid struct {
	Combine question.Combine
	// Weights are CombineMean's, one per condition, each > 0, relative (they are
	// normalised to sum 1); nil weighs the conditions equally.
	Weights    []float64
	Settings   []string // labels, in plan order of first appearance
	Conditions []string // labels, in plan order of first appearance
	// Cell[s][c] is the index in Problem.Points of setting s at condition c; -1 where
	// the plan has no such point (allowed with CombineEach only).
	Cell [][]int
}

// Validate reports what makes g unusable with a problem of n points: no settings or no
// conditions, an unknown Combine, a Cell out of range or used twice, a missing cell
// with mean or worst, weights of the wrong count or not positive.
func (g Grid) Validate(n int) error {
	k, m := len(g.Settings), len(g.Conditions)
	if k == 0 || m == 0 {
		return fmt.Errorf("conditions: %d settings and %d conditions: want at least one of each", k, m)
	}
	if !slices.Contains(question.Combines, g.Combine) {
		return fmt.Errorf("conditions: combine %q is none of each, mean, worst", g.Combine)
	}
	if len(g.Cell) != k {
		return fmt.Errorf("conditions: %d rows of cells for %d settings", len(g.Cell), k)
	}
	seen := map[int]bool{}
	for s, row := range g.Cell {
		if len(row) != m {
			return fmt.Errorf("conditions: setting %d has %d cells for %d conditions", s, len(row), m)
		}
		for c, i := range row {
			switch {
			case i < 0 && g.Combine != question.CombineEach:
				return fmt.Errorf("conditions: combine %s needs every setting at every condition, and %s has no point at %s", g.Combine, g.Settings[s], g.Conditions[c])
			case i < 0:
			case i >= n || seen[i]:
				return fmt.Errorf("conditions: cell (%d, %d) is point %d: out of range or used twice", s, c, i)
			default:
				seen[i] = true
			}
		}
	}
	if len(seen) != n {
		return fmt.Errorf("conditions: the cells name %d of the %d points", len(seen), n)
	}
	if g.Weights != nil {
		if g.Combine != question.CombineMean {
			return fmt.Errorf("conditions: weights are for combine mean, not %s", g.Combine)
		}
		if len(g.Weights) != m {
			return fmt.Errorf("conditions: %d weights for %d conditions", len(g.Weights), m)
		}
		for c, w := range g.Weights {
			if !(w > 0) || math.IsInf(w, 0) {
				return fmt.Errorf("conditions: weight %g of %s is not a positive number", w, g.Conditions[c])
			}
		}
	}
	return nil
}

// weights returns the normalised weights of the conditions (equal when none are given).
func (g Grid) weights() []float64 {
	m := len(g.Conditions)
	w := make([]float64, m)
	total := 0.0
	for c := range w {
		w[c] = 1
		if g.Weights != nil {
			w[c] = g.Weights[c]
		}
		total += w[c]
	}
	for c := range w {
		w[c] /= total
	}
	return w
}

// ConditionsDecision is what a study with conditions decided, beside the top-level
// Decision that carries it (Decision.Conditions).
type ConditionsDecision struct {
	Combine    question.Combine
	Settings   []string
	Conditions []string
	Weights    []float64 // normalised (mean); nil otherwise
	Cell       [][]int   // Grid.Cell

	// Each: PerCondition[c] is condition c's decision; its point i is setting
	// SettingsAt[c][i] (its Labels are the settings' labels). ConfidenceEach is each
	// one's confidence, 1 − α/m.
	PerCondition   []Decision
	SettingsAt     [][]int
	ConfidenceEach float64

	// Mean and worst: Over is the decision over the settings (its point s is setting
	// s): Over.Means are the settings' combined means (weighted mean, or worst cell),
	// Over.Best the selected setting.
	Over *Decision
	// CellMeans[s][c] is the mean of the metric at setting s, condition c over the
	// replicates the procedure used (NaN where none, or no cell); WorstAt[s] is the
	// condition of setting s's worst cell (worst; -1 otherwise or when unknown).
	CellMeans [][]float64
	WorstAt   []int
	// Pairs is the number of comparisons the screening's and the rare-event rule's
	// shares are spread over: k − 1 for mean, (k − 1)·m cell pairs for worst.
	Pairs int
}

// DecideConditions decides a study whose points are laid out as g (settings ×
// conditions) by g.Combine (see above). With CombineEach, p's question is asked at each
// condition as it stands (a secondary objective, Problem.Near, or a Pareto front,
// Problem.Pareto, included); mean and worst take a plain objective only. p is the plain problem over the plan's points,
// in plan order (as for Decide), with the whole study's confidence and budget; the
// budget is shared between the conditions (each: in proportion to their settings) or
// counted in jobs (mean: a setting's replicate is m jobs). The returned Decision is in
// terms of p's points (State, Why, Need, Jobs, Survivors: the points in contention,
// Means and Used per point, Labels) with Best −1; Conditions holds the combined answer.
// Like Decide it is a pure function of its arguments, and it panics on a p or g that
// does not validate.
func DecideConditions(p Problem, g Grid) Decision {
	if err := p.Validate(); err != nil {
		panic("selection.DecideConditions: " + err.Error())
	}
	if err := g.Validate(len(p.Points)); err != nil {
		panic("selection.DecideConditions: " + err.Error())
	}
	if g.Combine != question.CombineEach && (p.Near != nil || len(p.Pareto) > 0) {
		panic("selection.DecideConditions: combine " + string(g.Combine) + " with a secondary or Pareto objective: only each combines them")
	}
	p.Config = p.Config.WithDefaults(len(p.Points))
	switch g.Combine {
	case question.CombineEach:
		return decideEach(p, g)
	case question.CombineMean:
		return decideMean(p, g)
	}
	return decideWorst(p, g)
}

// newTop is the top-level decision of a conditions study before its parts are known.
func newTop(p Problem, g Grid) Decision {
	n := len(p.Points)
	d := Decision{Best: -1, Survivors: []int{}, Eliminated: []Elimination{}, Need: []Need{}, Confidence: p.Config.Confidence,
		Rare: p.Config.Rare, Means: make([]float64, n), Used: make([]int, n), Feasible: make([]int, n),
		PointMass: make([]bool, n), Labels: make([]string, n), Delta: p.Delta}
	for i, pt := range p.Points {
		d.Labels[i] = pt.Label
		d.Means[i] = math.NaN()
	}
	cd := &ConditionsDecision{Combine: g.Combine, Settings: g.Settings, Conditions: g.Conditions, Cell: g.Cell}
	d.Conditions = cd
	return d
}

// decideEach runs one selection per condition at confidence 1 − α/m.
func decideEach(p Problem, g Grid) Decision {
	top := newTop(p, g)
	cd := top.Conditions
	m, n := len(g.Conditions), len(p.Points)
	alpha := 1 - p.Config.Confidence
	cd.ConfidenceEach = 1 - alpha/float64(m)
	running, budget, infeasible := 0, 0, 0
	for c := range g.Conditions {
		var at []int
		sub := p // the same question (a secondary objective, a Pareto front) at condition c
		sub.Points = nil
		for s := range g.Settings {
			if i := g.Cell[s][c]; i >= 0 {
				at = append(at, s)
				sub.Points = append(sub.Points, Point{Label: g.Settings[s], Reps: p.Points[i].Reps})
			}
		}
		cfg := p.Config
		cfg.Confidence = cd.ConfidenceEach
		// In proportion to the condition's settings: at least its first stage, since
		// the whole budget is at least every point's first stage.
		cfg.MaxJobs = p.Config.MaxJobs * len(at) / n
		sub.Config = cfg
		d := Decide(sub)
		d.Why = settingWords(d.Why)
		cd.PerCondition = append(cd.PerCondition, d)
		cd.SettingsAt = append(cd.SettingsAt, at)
		point := func(i int) int { return g.Cell[at[i]][c] }
		for _, nd := range d.Need {
			top.Need = append(top.Need, Need{Point: point(nd.Point), Replicate: nd.Replicate})
		}
		for _, i := range d.Survivors {
			top.Survivors = append(top.Survivors, point(i))
		}
		for i := range at {
			pi := point(i)
			top.Means[pi], top.Used[pi], top.Feasible[pi], top.PointMass[pi] = d.Means[i], d.Used[i], d.Feasible[i], d.PointMass[i]
		}
		top.Jobs += d.Jobs
		top.FixedJobs += d.FixedJobs
		top.Stage, top.Round, top.FirstStage = max(top.Stage, d.Stage), max(top.Round, d.Round), max(top.FirstStage, d.FirstStage)
		top.HeavyTails = top.HeavyTails || d.HeavyTails
		top.RareRunsPair, top.RareRunsOK = max(top.RareRunsPair, d.RareRunsPair), max(top.RareRunsOK, d.RareRunsOK)
		switch d.State {
		case Running:
			running++
		case Budget:
			budget++
		case Infeasible:
			infeasible++
		}
	}
	sortNeeds(top.Need)
	slices.Sort(top.Survivors)
	decided := m - running - budget - infeasible
	switch {
	case running > 0:
		top.State = Running
		top.Why = fmt.Sprintf("waiting for %s (%d of %d conditions decided)", plural(len(top.Need), "job"), decided, m)
	case budget > 0:
		top.State = Budget
		top.Why = fmt.Sprintf("the budget of %d conditions would be exceeded (%d of %d decided)", budget, decided, m)
	case infeasible == m:
		top.State = Infeasible
		top.Why = "no setting is acceptable at any condition"
	default:
		top.State = Decided
		top.Why = fmt.Sprintf("every condition is decided (%d of %d", decided, m)
		if infeasible > 0 {
			top.Why += fmt.Sprintf("; no acceptable setting at %d", infeasible)
		}
		top.Why += ")"
	}
	return top
}

// settingObs is replicate j of setting s for mean and worst: Missing while a cell's job
// is; Failed (naming the condition) when one failed; else OK, with X the weighted mean
// of the cells' X (w nil: NaN) and Values every cell's constraint values, condition by
// condition (expandConstraints' order).
func settingObs(p Problem, g Grid, w []float64, s, j int) Obs {
	nc := len(p.Constraints)
	o := Obs{State: OK, Values: make([]float64, 0, nc*len(g.Conditions))}
	x := 0.0
	for c, i := range g.Cell[s] {
		var cell Obs
		if reps := p.Points[i].Reps; j < len(reps) {
			cell = reps[j]
		}
		switch cell.State {
		case OK:
		case Failed:
			if o.State != Missing {
				o.State, o.Err = Failed, "at "+g.Conditions[c]+": "+cell.Err
			}
			continue
		default:
			o.State = Missing
			continue
		}
		if w != nil {
			x += w[c] * cell.X
		}
		if !finite(cell.X) && o.Err == "" {
			o.Err = "at " + g.Conditions[c]
			if cell.Err != "" {
				o.Err += ": " + cell.Err
			}
		}
		for k := range nc {
			v := math.NaN()
			if k < len(cell.Values) {
				v = cell.Values[k]
			}
			o.Values = append(o.Values, v)
		}
	}
	if o.State != OK {
		o.Values = nil
		return o
	}
	o.X = math.NaN()
	if w != nil {
		o.X = x
	}
	return o
}

// expandConstraints is each constraint once per condition, condition by condition:
// "drops_lossless == 0 at senders=6". The plain conditions stay one test per setting
// (feasibility.go): a run of a setting violates them when one of its cells does.
func expandConstraints(cs []Constraint, conditions []string) []Constraint {
	var out []Constraint
	for _, cond := range conditions {
		for _, c := range cs {
			c.Text += " at " + cond
			out = append(out, c)
		}
	}
	return out
}

// decideMean selects over the settings on the per-replicate weighted mean of their cells.
func decideMean(p Problem, g Grid) Decision {
	top := newTop(p, g)
	cd := top.Conditions
	k, m := len(g.Settings), len(g.Conditions)
	w := g.weights()
	cd.Weights = w
	sub := Problem{Goal: p.Goal, Delta: p.Delta, DeltaPercent: p.DeltaPercent, Metric: p.Metric,
		Constraints: expandConstraints(p.Constraints, g.Conditions)}
	cfg := p.Config
	cfg.MaxJobs = p.Config.MaxJobs / m // a setting's replicate is m jobs
	sub.Config = cfg
	for s := range k {
		pt := Point{Label: g.Settings[s]}
		reps := 0
		for _, i := range g.Cell[s] {
			reps = max(reps, len(p.Points[i].Reps))
		}
		for j := range reps {
			pt.Reps = append(pt.Reps, settingObs(p, g, w, s, j))
		}
		sub.Points = append(sub.Points, pt)
	}
	d := Decide(sub)
	d.Jobs *= m // in jobs, as the other decisions count them
	cd.Over = &d
	cd.Pairs = max(k-1, 0)
	d.Why = settingWords(d.Why)
	top.State, top.Why = d.State, d.Why
	top.Stage, top.Round, top.FirstStage, top.HeavyTails = d.Stage, d.Round, d.FirstStage, d.HeavyTails
	top.Split, top.H2, top.Delta = d.Split, d.H2, d.Delta
	top.RareRunsPair, top.RareRunsOK = d.RareRunsPair, d.RareRunsOK
	top.FixedJobs = d.FixedJobs * m
	for _, nd := range d.Need {
		for _, i := range g.Cell[nd.Point] {
			if o := cellObs(p, i, nd.Replicate); o.State == Missing {
				top.Need = append(top.Need, Need{Point: i, Replicate: nd.Replicate})
			}
		}
	}
	sortNeeds(top.Need)
	for _, s := range d.Survivors {
		top.Survivors = append(top.Survivors, g.Cell[s]...)
	}
	slices.Sort(top.Survivors)
	cd.CellMeans = cellMeans(p, g, d.Used, d.Means)
	fillPoints(&top, g, d, cd.CellMeans)
	top.Jobs = d.Jobs
	return top
}

// fillPoints sets the top-level per-point fields of a mean or worst decision from the
// decision over settings d: each cell's mean and the replicates and feasibility of its
// setting.
func fillPoints(top *Decision, g Grid, d Decision, means [][]float64) {
	for s, row := range g.Cell {
		for c, i := range row {
			top.Means[i], top.Used[i], top.Feasible[i] = means[s][c], d.Used[s], d.Feasible[s]
			top.PointMass[i] = d.PointMass[s]
		}
	}
}

// cellObs is replicate j of point i (Missing beyond its committed ones).
func cellObs(p Problem, i, j int) Obs {
	if reps := p.Points[i].Reps; j < len(reps) {
		return reps[j]
	}
	return Obs{State: Missing}
}

// cellMeans is every cell's mean of X over its setting's first used[s] replicates
// (NaN where a value is not finite or none was used, or the setting's mean is NaN: it
// left with a failed job).
func cellMeans(p Problem, g Grid, used []int, settingMeans []float64) [][]float64 {
	out := make([][]float64, len(g.Cell))
	for s, row := range g.Cell {
		out[s] = make([]float64, len(row))
		for c, i := range row {
			out[s][c] = math.NaN()
			if i < 0 || used[s] == 0 || math.IsNaN(settingMeans[s]) {
				continue
			}
			sum := 0.0
			for j := range used[s] {
				sum += cellObs(p, i, j).X
			}
			if m := sum / float64(used[s]); finite(m) {
				out[s][c] = m
			}
		}
	}
	return out
}

func sortNeeds(need []Need) {
	slices.SortFunc(need, func(a, b Need) int {
		if a.Point != b.Point {
			return a.Point - b.Point
		}
		return a.Replicate - b.Replicate
	})
}

// Order is the settings of a mean or worst decision as tables list them: the selected
// (or best so far) first, then by their combined value, best first by goal (those
// without one last), ties in plan order. Nil with combine each.
func (cd *ConditionsDecision) Order(goal question.Goal) []int {
	o := cd.Over
	if o == nil {
		return nil
	}
	sign := 1.0
	if goal == question.Max {
		sign = -1
	}
	key := func(s int) float64 {
		switch x := o.Means[s]; {
		case s == o.Best:
			return math.Inf(-1)
		case math.IsNaN(x):
			return math.Inf(1)
		default:
			return sign * x
		}
	}
	out := make([]int, len(o.Means))
	for s := range out {
		out[s] = s
	}
	slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// settingWords says "setting" where the plain procedure's sentences say "point": its
// points are the settings of one condition, or the settings themselves.
func settingWords(s string) string {
	return strings.NewReplacer(" points", " settings", " point", " setting").Replace(s)
}
