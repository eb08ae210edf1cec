package selection

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// grid22 is the worked example of docs/statistics.md §13: 2 settings × 2 conditions,
// 5 replicates, δ = 1, points in plan order A@c1, A@c2, B@c1, B@c2.
//
//	      c1     c2     mean (weights 3:1)   worst
//	A     10     16     11.5                 16 (c2)
//	B     14     14.5   14.125               14.5 (c2)
//
// The mean picks A, the worst case picks B, and each condition its own: A at c1, B at
// c2. Every cell has a small noise (at most 0.2), so every pair's variance of paired
// differences is below 0.24 and, with h² ≤ 21.3, KN's allowance W = max(0, δ/(2r)·(h²
// S²/δ² − r)) is 0 at r = 5: every decision is made right after the first stage.
func grid22(goal question.Goal, combine question.Combine, weights []float64) (Problem, Grid) {
	noise := [][]float64{{0, 0.1, -0.1, 0.2, -0.2}, {0.1, 0, -0.2, 0.1, 0}, {-0.1, 0.2, 0, 0, -0.1}, {0.2, -0.1, 0.1, -0.2, 0}}
	mu := []float64{10, 16, 14, 14.5}
	p := Problem{Goal: goal, Delta: 1, Config: question.Config{Confidence: 0.95, Initial: 5}}
	for i, lab := range []string{"A@c1", "A@c2", "B@c1", "B@c2"} {
		pt := Point{Label: lab}
		for _, e := range noise[i] {
			x := mu[i] + e
			if goal == question.Max {
				x = -x
			}
			pt.Reps = append(pt.Reps, ok(x))
		}
		p.Points = append(p.Points, pt)
	}
	g := Grid{Combine: combine, Weights: weights, Settings: []string{"A", "B"}, Conditions: []string{"c1", "c2"}, Cell: [][]int{{0, 1}, {2, 3}}}
	return p, g
}

func TestConditionsWorkedExample(t *testing.T) {
	t.Run("each", func(t *testing.T) {
		p, g := grid22(question.Min, question.CombineEach, nil)
		d := DecideConditions(p, g)
		cd := d.Conditions
		if d.State != Decided || d.Best != -1 || !near(cd.ConfidenceEach, 0.975) || d.Jobs != 20 {
			t.Fatalf("state %s (%s), best %d, confidence each %g, jobs %d", d.State, d.Why, d.Best, cd.ConfidenceEach, d.Jobs)
		}
		// c1: A (10) against B (14); c2: B (14.5) against A (16). Each at 97.5%: the
		// screening's share is half of 2.5%.
		for c, want := range []int{0, 1} {
			sub := cd.PerCondition[c]
			if sub.State != Decided || cd.SettingsAt[c][sub.Best] != want || !near(sub.Split.Screening, 0.0125) || sub.Confidence != 0.975 {
				t.Errorf("condition %d: %s, best %d, split %+v", c, sub.State, sub.Best, sub.Split)
			}
		}
		if !near(d.Means[0], 10) || !near(d.Means[3], 14.5) || d.Used[1] != 5 {
			t.Errorf("point means %v, used %v", d.Means, d.Used)
		}
	})
	t.Run("mean", func(t *testing.T) {
		p, g := grid22(question.Min, question.CombineMean, []float64{3, 1})
		d := DecideConditions(p, g)
		o := d.Conditions.Over
		// A: (3·10 + 16)/4 = 11.5; B: (3·14 + 14.5)/4 = 14.125. Two settings: screening
		// 2.5% on one pair, h² = 4((0.05)^(−1/2) − 1) = 13.889.
		if d.State != Decided || o.Best != 0 || !near(o.Means[0], 11.5) || !near(o.Means[1], 14.125) {
			t.Fatalf("state %s (%s), best %d, means %v", d.State, d.Why, o.Best, o.Means)
		}
		if !near(o.Split.Screening, 0.025) || !near(o.Split.PerPair, 0.025) || !near(o.H2, 13.88854382) || d.Jobs != 20 || o.Jobs != 20 {
			t.Errorf("split %+v, h² %g, jobs %d / %d", o.Split, o.H2, d.Jobs, o.Jobs)
		}
		if w := d.Conditions.Weights; !near(w[0], 0.75) || !near(w[1], 0.25) {
			t.Errorf("weights %v, want 0.75, 0.25", w)
		}
		if cm := d.Conditions.CellMeans; !near(cm[1][0], 14) || !near(cm[1][1], 14.5) {
			t.Errorf("cell means %v", cm)
		}
	})
	t.Run("worst", func(t *testing.T) {
		for _, goal := range []question.Goal{question.Min, question.Max} {
			p, g := grid22(goal, question.CombineWorst, nil)
			d := DecideConditions(p, g)
			cd := d.Conditions
			o := cd.Over
			sign := 1.0
			if goal == question.Max {
				sign = -1 // values negated: the worst is the smallest
			}
			// A@c2 (16) is worse than B@c1 (14) by 2 and than B@c2 (14.5) by 1.5: A leaves,
			// round 0. B's cells are each better than A@c2: B stays.
			if d.State != Decided || o.Best != 1 || !near(o.Means[0], sign*16) || !near(o.Means[1], sign*14.5) || cd.WorstAt[0] != 1 || cd.WorstAt[1] != 1 {
				t.Fatalf("%s: state %s (%s), best %d, worst %v at %v", goal, d.State, d.Why, o.Best, o.Means, cd.WorstAt)
			}
			e := o.Eliminated
			if len(e) != 1 || e[0].Point != 0 || e[0].By != 1 || e[0].Round != 0 || !near(e[0].Gap, 1.5) || !strings.Contains(e[0].Reason, "at c2 worse than B at each of its 2 conditions") {
				t.Errorf("%s: eliminated %+v", goal, e)
			}
			// (k − 1)·m = 2 cell pairs: screening 2.5% → 1.25% a pair, h² = 4((0.025)^(−1/2) −
			// 1) = 21.298; rare-event share 1.25% a pair → ⌈ln 0.0125 / ln 0.99⌉ = 437.
			if cd.Pairs != 2 || !near(o.Split.PerPair, 0.0125) || !near(o.H2, 21.29822128) || o.RareRunsPair != 437 || d.Jobs != 20 {
				t.Errorf("%s: pairs %d, split %+v, h² %g, rare runs %d, jobs %d", goal, cd.Pairs, o.Split, o.H2, o.RareRunsPair, d.Jobs)
			}
		}
	})
	t.Run("first stage", func(t *testing.T) {
		for _, c := range question.Combines {
			p, g := grid22(question.Min, c, nil)
			for i := range p.Points {
				p.Points[i].Reps = p.Points[i].Reps[:2]
			}
			d := DecideConditions(p, g)
			var want []Need
			for i := range 4 {
				for j := 2; j < 5; j++ {
					want = append(want, Need{i, j})
				}
			}
			if d.State != Running || !slices.Equal(d.Need, want) {
				t.Errorf("%s: %s, need %v", c, d.State, d.Need)
			}
		}
	})
}

// A constraint holds at every condition: under mean and worst each constraint is judged
// at each condition, and a setting that violates it at one leaves, named by it.
func TestConditionsConstraintAtEveryCondition(t *testing.T) {
	for _, c := range []question.Combine{question.CombineMean, question.CombineWorst} {
		p, g := grid22(question.Min, c, nil)
		p.Constraints = []Constraint{{Text: "drops_lossless == 0", Kind: constraint.EveryRun}}
		for i := range p.Points {
			for j := range p.Points[i].Reps {
				v := 1.0
				if i == 1 && j == 3 { // A at c2, replicate 3
					v = 0
				}
				p.Points[i].Reps[j].Values = []float64{v}
			}
		}
		d := DecideConditions(p, g)
		o := d.Conditions.Over
		if len(o.Eliminated) == 0 || o.Eliminated[0].Point != 0 || o.Eliminated[0].Reason != "infeasible: drops_lossless == 0 at c2 failed in replicate 3" {
			t.Errorf("%s: eliminated %+v", c, o.Eliminated)
		}
		// One plain-condition test per setting: α/2 over 2 settings.
		if o.Split.Tests != 1 || !near(o.Split.PerTest, 0.0125) {
			t.Errorf("%s: split %+v", c, o.Split)
		}
	}
}

func TestGridValidate(t *testing.T) {
	_, g := grid22(question.Min, question.CombineWorst, nil)
	g.Cell = [][]int{{0, 1}, {2, -1}}
	if err := g.Validate(3); err == nil || !strings.Contains(err.Error(), "B has no point at c2") {
		t.Errorf("missing cell with worst: %v", err)
	}
	g.Combine = question.CombineEach
	if err := g.Validate(3); err != nil {
		t.Errorf("missing cell with each: %v", err)
	}
	_, g = grid22(question.Min, question.CombineMean, []float64{1})
	if err := g.Validate(4); err == nil || !strings.Contains(err.Error(), "1 weights for 2 conditions") {
		t.Errorf("weights: %v", err)
	}
	g.Weights = []float64{1, 0}
	if err := g.Validate(4); err == nil || !strings.Contains(err.Error(), "weight 0 of c2") {
		t.Errorf("weights: %v", err)
	}
}

// cellModel is a synthetic study of k settings × m conditions: replicate j of cell
// (s, c) is normal with mean mu[s][c] and standard deviation sigma, a share crn of its
// variance a component Z_j common to every cell's replicate j (common random numbers),
// the rest independent. A pure function of (seed, s, c, j). Point i is cell (i / m, i % m).
type cellModel struct {
	mu    [][]float64
	sigma float64
	crn   float64
	seed  uint64
}

func (cm cellModel) job(i, j int) Obs {
	m := len(cm.mu[0])
	s, c := i/m, i%m
	e := normal(cm.seed, uint64(i)<<32|uint64(j))
	z := normal(cm.seed, 1<<63|uint64(j))
	return ok(cm.mu[s][c] + cm.sigma*(math.Sqrt(cm.crn)*z+math.Sqrt(1-cm.crn)*e))
}

func (cm cellModel) grid(combine question.Combine, weights []float64) Grid {
	k, m := len(cm.mu), len(cm.mu[0])
	g := Grid{Combine: combine, Weights: weights}
	for s := range k {
		g.Settings = append(g.Settings, string(rune('A'+s)))
		row := make([]int, m)
		for c := range m {
			row[c] = s*m + c
		}
		g.Cell = append(g.Cell, row)
	}
	for c := range m {
		g.Conditions = append(g.Conditions, "c"+string(rune('1'+c)))
	}
	return g
}

// driveConditions is driveAhead for DecideConditions.
func driveConditions(p *Problem, g Grid, job func(i, j int) Obs, ahead int) Decision {
	for {
		d := DecideConditions(*p, g)
		if d.State != Running {
			return d
		}
		last := map[int]int{}
		for _, n := range d.Need {
			last[n.Point] = max(last[n.Point], n.Replicate+ahead)
		}
		for i, hi := range last {
			for j := range hi + 1 {
				if reps := p.Points[i].Reps; j >= len(reps) || reps[j].State == Missing {
					commit(p, i, j, job(i, j))
				}
			}
		}
	}
}

// truth is the value a combine ranks setting s by: its weighted mean or its worst cell.
func truth(mu []float64, combine question.Combine, w []float64) float64 {
	if combine == question.CombineWorst {
		return slices.Max(mu)
	}
	v := 0.0
	for c, x := range mu {
		v += w[c] * x
	}
	return v
}

// macroConditions runs reps macro-replications and returns the share that were right
// (each: the selected setting within δ of the best at every condition; mean and worst:
// the selected setting's true combined value less than δ above the best one's), the
// mean jobs, and how often each setting was selected (mean and worst).
func macroConditions(t *testing.T, mu [][]float64, combine question.Combine, weights []float64, delta, crn float64, reps int, seed uint64) (pcs, jobs float64, picked []int) {
	t.Helper()
	k, m := len(mu), len(mu[0])
	g := cellModel{mu: mu}.grid(combine, weights)
	picked = make([]int, k)
	w := g.weights()
	for rep := range reps {
		cm := cellModel{mu: mu, sigma: 1, crn: crn, seed: seed + uint64(rep)}
		p := Problem{Goal: question.Min, Delta: delta, Config: question.Config{Confidence: 0.95, Initial: 10, MaxJobs: 1 << 30}, Points: make([]Point, k*m)}
		d := driveConditions(&p, g, cm.job, 15)
		if d.State != Decided {
			t.Fatalf("macro-replication %d: %s (%s)", rep, d.State, d.Why)
		}
		jobs += float64(d.Jobs)
		right := true
		if combine == question.CombineEach {
			for c, sub := range d.Conditions.PerCondition {
				best := math.Inf(1)
				for s := range k {
					best = min(best, mu[s][c])
				}
				right = right && sub.State == Decided && mu[d.Conditions.SettingsAt[c][sub.Best]][c]-best < delta
			}
		} else {
			b := d.Conditions.Over.Best
			picked[b]++
			best := math.Inf(1)
			for s := range k {
				best = min(best, truth(mu[s], combine, w))
			}
			right = truth(mu[b], combine, w)-best < delta
		}
		if right {
			pcs++
		}
	}
	return pcs / float64(reps), jobs / float64(reps), picked
}

// Macro-replications of each procedure on synthetic jobs (docs/statistics.md §13.5):
// σ = 1, δ = 0.5σ, n0 = 10, 95% confidence, half of every cell's variance common to
// all cells of a replicate. Each configuration is the least favourable or close to it
// for its combine:
//
//   - each: 5 settings × 3 conditions; at condition c setting c is best (0), every
//     other setting at exactly δ (slippage at every condition).
//   - mean: 5 settings × 3 conditions, weights 1:2:1; setting 0's weighted mean 0, every
//     other's exactly δ, their cells spread around it by up to ±3.
//   - worst: 5 settings × 3 conditions; setting 0 at 0 at every condition, every other
//     setting's worst cell at exactly δ and its other cells lower, down to −5.
//   - worst against mean: 3 settings × 3 conditions where they disagree: setting 0
//     [0, −1, −2] (worst 0, mean −1), setting 1 [δ, −5, −5] (worst δ, mean −3.17),
//     setting 2 [δ, −3, −1] (worst δ, mean −1.17). The worst case picks 0, the mean 1.
//
// The share right must be at least the stated 95% over 200 macro-replications each.
func TestConditionsProbabilityOfCorrectSelection(t *testing.T) {
	const delta, reps, crn = 0.5, 200, 0.5
	each := make([][]float64, 5)
	for s := range each {
		each[s] = []float64{delta, delta, delta}
		if s < 3 {
			each[s][s] = 0
		}
	}
	mean := [][]float64{{1, -1, 1}, {delta - 2, delta + 1, delta}, {delta, delta, delta}, {delta + 2, delta - 1, delta}, {delta + 3, delta - 1, delta - 1}}
	worst := [][]float64{{0, 0, 0}, {delta, -5, -5}, {-3, delta, -1}, {-1, -1, delta}, {delta, delta, -2}}
	disagree := [][]float64{{0, -1, -2}, {delta, -5, -5}, {delta, -3, -1}}
	for _, c := range []struct {
		name    string
		mu      [][]float64
		combine question.Combine
		weights []float64
		want    int // the setting mean or worst must select
	}{
		{"each", each, question.CombineEach, nil, -1},
		{"mean", mean, question.CombineMean, []float64{1, 2, 1}, 0},
		{"worst", worst, question.CombineWorst, nil, 0},
		{"worst against mean: worst", disagree, question.CombineWorst, nil, 0},
		{"worst against mean: mean", disagree, question.CombineMean, nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pcs, jobs, picked := macroConditions(t, c.mu, c.combine, c.weights, delta, crn, reps, 11_000)
			t.Logf("%s: right in %.1f%% of %d macro-replications, %.0f jobs each on average; selected %v", c.name, 100*pcs, reps, jobs, picked)
			if pcs < 0.95 {
				t.Errorf("%s: right in %.1f%% < 95%%", c.name, 100*pcs)
			}
			if c.want >= 0 && picked[c.want] < reps*95/100 {
				t.Errorf("%s: setting %d selected %d times of %d", c.name, c.want, picked[c.want], reps)
			}
		})
	}
}

// fuzzGrid lays fuzzProblem's points out as settings × conditions: m conditions (1 to
// 3), as many settings as fit, a combine; mean and worst drop a secondary or Pareto
// objective, which they do not take.
func fuzzGrid(data []byte) (Problem, Grid) {
	p := fuzzProblem(data)
	b := bytesReader(data)
	if len(data) > 0 {
		b = bytesReader(data[len(data)/2:])
	}
	m := 1 + b.next(3)
	ks := len(p.Points) / m
	if ks == 0 {
		m, ks = 1, len(p.Points)
	}
	p.Points = p.Points[:ks*m]
	p.Config.MaxJobs = max(p.Config.MaxJobs, len(p.Points)*p.Config.WithDefaults(len(p.Points)).Initial)
	g := Grid{Combine: question.Combines[b.next(3)]}
	if g.Combine != question.CombineEach {
		p.Near, p.Pareto = nil, nil
	}
	if g.Combine == question.CombineMean && b.next(2) == 0 {
		for range m {
			g.Weights = append(g.Weights, float64(1+b.next(4)))
		}
	}
	for s := range ks {
		g.Settings = append(g.Settings, fmt.Sprint("s", s))
		row := make([]int, m)
		for c := range m {
			row[c] = s*m + c
		}
		g.Cell = append(g.Cell, row)
	}
	for c := range m {
		g.Conditions = append(g.Conditions, fmt.Sprint("c", c))
	}
	return p, g
}

// DecideConditions never panics on a valid problem and grid, asks only for missing jobs
// of points in contention, stays within the budget, decides only for a known-feasible
// setting, and ignores replicates beyond what it used.
func FuzzDecideConditions(f *testing.F) {
	for _, seed := range []string{
		"", "\x01\x00\x03\x00\x05", "\x04\x01\x04\x01\x07\x02\x03\x09\x09\x09\x09\x01\x02",
		"\x04\x00\x03\x00\x00\x10\x02\x06\x0d\x05\x05\x04\x03\x09\x08\x07\x06\x05\x04\x03\x02\x01\x02\x01\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, g := fuzzGrid(data)
		if err := p.Validate(); err != nil {
			t.Skip(err)
		}
		if err := g.Validate(len(p.Points)); err != nil {
			t.Fatalf("fuzzGrid built an invalid grid: %v", err)
		}
		d := DecideConditions(p, g)
		if (d.State == Running) != (len(d.Need) > 0) {
			t.Errorf("state %s with %d needs", d.State, len(d.Need))
		}
		if budget := p.Config.WithDefaults(len(p.Points)).MaxJobs; d.Jobs > budget {
			t.Errorf("jobs %d over the budget %d", d.Jobs, budget)
		}
		for a, n := range d.Need {
			if !slices.Contains(d.Survivors, n.Point) {
				t.Errorf("need %+v of a point not in contention (%v)", n, d.Survivors)
			}
			if cellObs(p, n.Point, n.Replicate).State != Missing {
				t.Errorf("need %+v of a committed job", n)
			}
			if a > 0 && (d.Need[a-1].Point > n.Point || d.Need[a-1].Point == n.Point && d.Need[a-1].Replicate >= n.Replicate) {
				t.Errorf("need not in point order: %v", d.Need)
			}
		}
		if o := d.Conditions.Over; o != nil && o.State == Decided && (o.Best < 0 || o.Feasible[o.Best] != 1) {
			t.Errorf("decided for setting %d, feasibility %v", o.Best, o.Feasible)
		}
		q := clone(p)
		pad := 4 * p.Config.WithDefaults(len(p.Points)).Initial
		for i := range q.Points {
			pad = max(pad, len(q.Points[i].Reps), d.Used[i]+1)
		}
		for i := range q.Points {
			for len(q.Points[i].Reps) < pad+maxAhead {
				q.Points[i].Reps = append(q.Points[i].Reps, Obs{})
			}
			values := make([]float64, len(p.Constraints))
			q.Points[i].Reps = append(q.Points[i].Reps, ok(-1e6, values...), Obs{State: Failed})
		}
		e := DecideConditions(q, g)
		if d.State == Running {
			return // the jobs ahead may be asked for differently
		}
		if e.State != d.State || !slices.Equal(e.Used, d.Used) || e.Jobs != d.Jobs {
			t.Errorf("replicates beyond the stages changed the decision: %s %v %d, want %s %v %d", e.State, e.Used, e.Jobs, d.State, d.Used, d.Jobs)
		}
	})
}
