package selection

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
)

// A Pareto objective (objective.pareto, docs/statistics.md §10): the points that no
// other point beats by more than the indifference on every metric, identified
// sequentially as Auer et al.'s ε-accurate Pareto-front identification does ("Pareto
// front identification from stochastic bandit feedback", AISTATS 2016), over paired
// differences (common random numbers) and with the objective's constraints respected.
//
// At every stage r from the end of the first stage on, for every pair of points (i, l)
// and metric m, the paired differences D = y_m(i) − y_m(l) (smaller is better) give an
// interval mean ± t·S/√r, t the two-sided Student quantile for β_r = β / (r(r + 1)) with
// β the screening share spread over the pairs and metrics (Split.PerPair): the intervals
// hold at every stage at once with probability at least 1 − β each (Σ 1/(r(r+1)) <= 1).
//
//   - Point i leaves as dominated when some point l that may screen (known feasible,
//     settled, itself not dominated) is better than i on every metric: every interval of
//     D_il lies above 0. No Pareto-optimal point can be so beaten, so none leaves.
//   - Point i joins the front when, against every other survivor l, some metric m
//     shows that l is not better than i by ε_m or more: the interval of D_il lies below
//     ε_m. Then no point ε-dominates it.
//   - A pair whose differences on a metric have all been equal decides nothing on it
//     before RareRunsPair replicates (the rare-event rule).
//
// It stops when every survivor has joined the front. With the stated confidence: every
// Pareto-optimal point that meets the constraints is in the front, and no point of the
// front is beaten by more than the indifference on every metric by another.

// Objective2 is one metric of a Pareto objective.
type Objective2 struct {
	Metric string
	Goal   question.Goal
	Delta  float64 // > 0, in the metric's unit
}

// paretoY is metric m of point i, replicate j, smaller better.
func (r *replay) paretoY(m, i, j int) float64 {
	o := r.obs(i, j)
	if m >= len(o.Vec) {
		return math.NaN()
	}
	if r.p.Pareto[m].Goal == question.Max {
		return -o.Vec[m]
	}
	return o.Vec[m]
}

func (r *replay) initPareto() {
	if r.p.Pareto == nil {
		return
	}
	d := len(r.p.Pareto)
	r.pPairs = make([][][]pairStat, d)
	r.pSum = make([][]float64, d)
	for m := range d {
		r.pPairs[m] = make([][]pairStat, r.k)
		for i := range r.k {
			r.pPairs[m][i] = make([]pairStat, r.k)
		}
		r.pSum[m] = make([]float64, r.k)
	}
	r.front = make([]bool, r.k)
}

// takePareto adds replicate j of the survivors to the metrics' sums and pairs.
func (r *replay) takePareto(j int) {
	if r.p.Pareto == nil {
		return
	}
	for m := range r.p.Pareto {
		for a, i := range r.alive {
			r.pSum[m][i] += r.paretoY(m, i, j)
			for _, l := range r.alive[a+1:] {
				r.pPairs[m][i][l].add(r.paretoY(m, i, j) - r.paretoY(m, l, j))
			}
		}
	}
}

// paretoInterval is the interval of the mean of D = y_m(i) − y_m(l) at the stage; ok
// is false while the pair's differences have all been equal short of RareRunsPair.
func (r *replay) paretoInterval(m, i, l, stage int) (lo, hi float64, ok bool) {
	a, b, sign := i, l, 1.0
	if a > b {
		a, b, sign = l, i, -1
	}
	ps := &r.pPairs[m][a][b]
	if ps.allEqual && stage < r.d.RareRunsPair {
		return 0, 0, false
	}
	n := float64(ps.n)
	mean := sign * (ps.shift + ps.s1/n)
	// The screening share over every pair and metric, then over the stages.
	pairs := float64(r.k*(r.k-1)/2) * float64(len(r.p.Pareto))
	beta := r.d.Split.Screening / pairs / (float64(stage) * float64(stage+1))
	h := r.tq.quantile(1-beta/2, ps.n-1) * math.Sqrt(ps.variance()/n)
	return mean - h, mean + h, true
}

// paretoStage removes the dominated points and admits the front at the stage, and
// reports whether every survivor has joined the front.
func (r *replay) paretoStage(stage int) bool {
	if !r.started {
		return false
	}
	d := len(r.p.Pareto)
	// Dominated: beaten on every metric by a point that may screen.
	var gone []int
	var why []string
	for _, i := range r.alive {
		for _, l := range r.alive {
			if l == i || !r.selectable(l, stage) {
				continue
			}
			beaten := true
			for m := range d {
				lo, _, ok := r.paretoInterval(m, i, l, stage)
				if !ok || lo <= 0 {
					beaten = false
					break
				}
			}
			if beaten {
				gone = append(gone, i)
				why = append(why, fmt.Sprintf("dominated: %s is better on every metric (%s) on %d paired replicates", r.name(l), r.paretoGaps(i, l), stage))
				break
			}
		}
	}
	for a, i := range gone {
		r.leave(i, stage, CauseScreened, why[a], -1, 0)
	}
	// The front: not ε-beaten by any other survivor.
	done := true
	for _, i := range r.alive {
		if r.front[i] {
			continue
		}
		if !r.selectable(i, stage) {
			done = false
			continue
		}
		in := true
		for _, l := range r.alive {
			if l == i {
				continue
			}
			safe := false
			for m := range d {
				if _, hi, ok := r.paretoInterval(m, i, l, stage); ok && hi < r.p.Pareto[m].Delta {
					safe = true
					break
				}
			}
			if !safe {
				in = false
				break
			}
		}
		if in {
			r.front[i] = true
		} else {
			done = false
		}
	}
	return done && len(r.alive) > 0
}

// paretoGaps is how much worse i is than l on each metric, in words.
func (r *replay) paretoGaps(i, l int) string {
	var parts []string
	for m, o := range r.p.Pareto {
		gap := (r.pSum[m][i] - r.pSum[m][l]) / float64(r.used[i])
		parts = append(parts, fmt.Sprintf("%s by %s", o.Metric, num(gap)))
	}
	return strings.Join(parts, ", ")
}

// finishPareto fills the front and the per-metric means of the Decision.
func (r *replay) finishPareto(d *Decision) {
	if r.p.Pareto == nil {
		return
	}
	d.Front = []int{}
	for _, i := range r.alive {
		if r.front[i] {
			d.Front = append(d.Front, i)
		}
	}
	d.ParetoMeans = make([][]float64, len(r.p.Pareto))
	for m, o := range r.p.Pareto {
		d.ParetoMeans[m] = make([]float64, r.k)
		for i := range r.k {
			d.ParetoMeans[m][i] = math.NaN()
			if r.used[i] > 0 && !r.failed[i] {
				x := r.pSum[m][i] / float64(r.used[i])
				if o.Goal == question.Max {
					x = -x
				}
				d.ParetoMeans[m][i] = x
			}
		}
	}
	slices.Sort(d.Front)
}

func validPareto(ps []Objective2) error {
	if ps == nil {
		return nil
	}
	if len(ps) < 2 || len(ps) > 3 {
		return fmt.Errorf("a Pareto objective has 2 or 3 metrics, not %d", len(ps))
	}
	for _, o := range ps {
		if o.Goal != question.Min && o.Goal != question.Max {
			return fmt.Errorf("Pareto metric %s: goal %q is neither %q nor %q", o.Metric, o.Goal, question.Min, question.Max)
		}
		if !(o.Delta > 0) || math.IsInf(o.Delta, 0) {
			return fmt.Errorf("Pareto metric %s: indifference %g is not a positive number", o.Metric, o.Delta)
		}
	}
	return nil
}
