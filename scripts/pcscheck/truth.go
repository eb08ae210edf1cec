package main

import (
	"fmt"
	"math"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/selection"
)

// Feasibility classes of the truth (studies.md "Selecting the best point": a tolerance
// zone between what must be accepted and what must be refused).
const (
	desirable    = iota // must not be refused
	acceptable          // either answer is right
	unacceptable        // must not be selected
)

type truth struct {
	mean  []float64 // over the pool, in the metric's orientation
	class []int
	why   []string
	best  int // the best desirable point, -1 if none
	goal  question.Goal
	// A secondary objective (then: Problem.Near): primary holds each point's pool mean of
	// the primary metric, far the points more than δ₁ + τ from the best desirable one on
	// it (must not be selected). best is then the best desirable point on the second
	// metric among those within δ₁ − τ of it (docs/statistics.md §9).
	primary []float64
	far     []bool
}

// judgeTruth classifies every point over the whole pool, by the tolerance zones of the
// procedure's tests (docs/statistics.md): a plain condition violated in no run is
// desirable, in a share rare of runs or more unacceptable; a probability bound's bad
// share at most half the bound is desirable, at least the bound unacceptable; a mean
// bound met by the tolerance is desirable, missed by it unacceptable.
func judgeTruth(p selection.Problem, cfg question.Config) truth {
	k := len(p.Points)
	t := truth{mean: make([]float64, k), class: make([]int, k), why: make([]string, k), best: -1, goal: p.Goal}
	for i, pt := range p.Points {
		var sum float64
		var every, failed int
		n := len(pt.Reps)
		bad := make([]int, len(p.Constraints))
		vals := make([]float64, len(p.Constraints))
		for _, o := range pt.Reps {
			if o.State != selection.OK || math.IsNaN(o.X) {
				failed++
				continue
			}
			sum += o.X
			violated := false
			for c, con := range p.Constraints {
				v := o.Values[c]
				switch con.Kind {
				case constraint.EveryRun:
					violated = violated || v != 1
				case constraint.Probability:
					if con.Sense == constraint.GE || con.Sense == constraint.GT {
						v = 1 - v
					}
					if v != 0 {
						bad[c]++
					}
				case constraint.Mean:
					vals[c] += v
				}
			}
			if violated {
				every++
			}
		}
		t.mean[i] = sum / float64(n-failed)
		class, why := desirable, "desirable"
		worse := func(c int, w string) {
			if c > class {
				class = c
			}
			if c > desirable {
				why = w
			}
		}
		if failed > 0 {
			worse(unacceptable, fmt.Sprintf("unacceptable: %d runs without a value", failed))
		}
		if rate := float64(every) / float64(n); every > 0 {
			c := acceptable
			if rate >= cfg.Rare {
				c = unacceptable
			}
			worse(c, fmt.Sprintf("%s: %d of %d runs violate a plain condition (%.2f%%)", name(c), every, n, 100*rate))
		}
		for c, con := range p.Constraints {
			switch con.Kind {
			case constraint.Probability:
				p1 := con.Bound
				if con.Sense == constraint.GE || con.Sense == constraint.GT {
					p1 = 1 - con.Bound
				}
				rate := float64(bad[c]) / float64(n)
				switch {
				case rate >= p1:
					worse(unacceptable, fmt.Sprintf("unacceptable: %s bad in %.2f%% of runs", con.Text, 100*rate))
				case rate > p1/2:
					worse(acceptable, fmt.Sprintf("acceptable: %s bad in %.2f%% of runs", con.Text, 100*rate))
				}
			case constraint.Mean:
				m := vals[c] / float64(n-failed)
				off := m - con.Bound // above 0: the wrong side
				if con.Sense == constraint.GE || con.Sense == constraint.GT {
					off = -off
				}
				switch {
				case off >= con.Tolerance:
					worse(unacceptable, fmt.Sprintf("unacceptable: %s with mean %.5g", con.Text, m))
				case off > -con.Tolerance:
					worse(acceptable, fmt.Sprintf("acceptable: %s with mean %.5g", con.Text, m))
				}
			}
		}
		t.class[i], t.why[i] = class, why
		if class == desirable && (t.best < 0 || t.better(i, t.best)) {
			t.best = i
		}
	}
	if p.Near != nil {
		t.judgeNear(p)
	}
	return t
}

// judgeNear sets primary, far and best for a secondary objective.
func (t *truth) judgeNear(p selection.Problem) {
	k := len(p.Points)
	t.primary, t.far = make([]float64, k), make([]bool, k)
	sign := 1.0 // behind(i) > 0: worse than the best on the primary
	if p.Near.Goal == question.Max {
		sign = -1
	}
	bestPrimary := math.NaN()
	for i, pt := range p.Points {
		var sum float64
		var n int
		for _, o := range pt.Reps {
			if o.State == selection.OK && !math.IsNaN(o.Near) {
				sum += o.Near
				n++
			}
		}
		t.primary[i] = sum / float64(n)
		if t.class[i] == desirable && (math.IsNaN(bestPrimary) || sign*(t.primary[i]-bestPrimary) < 0) {
			bestPrimary = t.primary[i]
		}
	}
	d1, tau := p.Near.Delta, p.Near.Tolerance
	if tau == 0 {
		tau = d1 / 2
	}
	t.best = -1
	for i := range k {
		behind := sign * (t.primary[i] - bestPrimary)
		t.far[i] = behind >= d1+tau
		if t.class[i] == desirable && behind <= d1-tau && (t.best < 0 || t.better(i, t.best)) {
			t.best = i
		}
	}
}

func name(class int) string { return [...]string{"desirable", "acceptable", "unacceptable"}[class] }

func (t truth) better(i, j int) bool {
	if t.goal == question.Max {
		return t.mean[i] > t.mean[j]
	}
	return t.mean[i] < t.mean[j]
}

// correct says whether decision d is right by the truth, for indifference delta.
func (t truth) correct(d selection.Decision, delta float64) bool {
	if t.best < 0 {
		return d.State == selection.Infeasible
	}
	if d.Best < 0 || t.class[d.Best] == unacceptable || t.far != nil && t.far[d.Best] {
		return false
	}
	return math.Abs(t.mean[d.Best]-t.mean[t.best]) < delta || t.better(d.Best, t.best)
}

// correctConditions says whether decision d of a study laid out as g is right by the
// truth (see the package comment), for indifference delta.
func (t truth) correctConditions(d selection.Decision, g selection.Grid, delta float64) bool {
	cd := d.Conditions
	if cd == nil {
		return false
	}
	if g.Combine == question.CombineEach {
		for c := range g.Conditions {
			var pts []int // this condition's points, in the order of its decision's points
			for _, s := range cd.SettingsAt[c] {
				pts = append(pts, g.Cell[s][c])
			}
			sub := truth{goal: t.goal, best: -1}
			for _, i := range pts {
				sub.mean = append(sub.mean, t.mean[i])
				sub.class = append(sub.class, t.class[i])
				if j := len(sub.mean) - 1; t.class[i] == desirable && (sub.best < 0 || sub.better(j, sub.best)) {
					sub.best = j
				}
			}
			if !sub.correct(cd.PerCondition[c], delta) {
				return false
			}
		}
		return true
	}
	// Mean and worst: a truth over the settings.
	st := truth{goal: t.goal, best: -1}
	w := g.Weights
	for s := range g.Settings {
		class, comb, sum := desirable, math.NaN(), 0.0
		for c := range g.Conditions {
			i := g.Cell[s][c]
			class = max(class, t.class[i])
			switch {
			case g.Combine == question.CombineMean:
				wc := 1.0
				if w != nil {
					wc = w[c]
				}
				if math.IsNaN(comb) {
					comb = 0
				}
				comb += wc * t.mean[i]
				sum += wc
			case math.IsNaN(comb) || (t.goal == question.Max) == (t.mean[i] < comb):
				comb = t.mean[i] // the worst cell
			}
		}
		if g.Combine == question.CombineMean {
			comb /= sum
		}
		st.mean, st.class = append(st.mean, comb), append(st.class, class)
		if class == desirable && (st.best < 0 || st.better(s, st.best)) {
			st.best = s
		}
	}
	if cd.Over == nil {
		return false
	}
	return st.correct(*cd.Over, delta)
}
