package selection

import (
	"fmt"
	"math"

	"github.com/rocesweep/rocesweep/constraint"
)

// Feasibility: each point's constraints are judged by sequential tests on its own
// replicates (package doc; docs/statistics.md §3). Each test errs each way with
// probability at most Split.PerTest:
//
//   - The plain conditions, together (one test): refused at the first run that violates
//     one; accepted after RareRunsOK runs without a violation, when a point violating
//     them in a share Config.Rare of runs or more would have shown one with
//     probability at least 1 − PerTest. A point that violates them more rarely may go
//     either way.
//   - P(E) <= p: Wald's sequential probability ratio test of P(bad) = p/2 against
//     P(bad) = p, with thresholds ln(1/β) and ln β (which bound both errors by β
//     exactly, by Ville's inequality, not only approximately): accepted when P(E) <=
//     p/2, refused when P(E) >= p, each with probability at least 1 − β. A run where E
//     cannot be evaluated (a null) counts as bad. P(E) >= p is P(not E) <= 1 − p.
//   - mean(x) <= c ± ε: Batur and Kim's fully sequential feasibility check ("Finding
//     feasible systems in the presence of constraints on multiple performance
//     measures", ACM TOMACS 20(3), 2010): after stage r >= n0, with S² the variance of
//     x over the r runs, R = max(0, h² S² / (2ε) − ε r / 2) and h² = (r − 1)((2β)^(−2 /
//     (r − 1)) − 1) (its variance and constant updated at every stage, as KN++ does),
//     accepted when Σ (x − c) <= −R, refused when >= R. Values that have all been equal
//     decide nothing before RareRunsOK runs.

// feasibility is one point's tests.
type feasibility struct {
	every int // the plain conditions: 1 accepted, -1 refused, 0 open; 1 when there are none
	tests []test
}

// test is one bound's state: a probability bound's ratio, or a mean bound's sums.
type test struct {
	c     int // index in Problem.Constraints
	state int // 1 accepted, -1 refused, 0 open
	n     int
	bad   int     // Probability: runs counted bad
	llr   float64 // Probability: log likelihood ratio of p against p/2
	xs    pairStat
}

func testsPerPoint(cs []Constraint) int {
	n := 0
	every := false
	for _, c := range cs {
		if c.Kind == constraint.EveryRun {
			every = true
		} else {
			n++
		}
	}
	if every {
		n++
	}
	return n
}

func newFeasibility(cs []Constraint) feasibility {
	f := feasibility{every: 1}
	for c, con := range cs {
		if con.Kind == constraint.EveryRun {
			f.every = 0
			continue
		}
		f.tests = append(f.tests, test{c: c})
	}
	return f
}

// state is 1 when every test accepts the point, -1 when one refuses it, else 0.
func (f *feasibility) state() int {
	s := f.every
	for _, t := range f.tests {
		switch {
		case t.state == -1:
			return -1
		case t.state == 0 && s == 1:
			s = 0
		}
	}
	return s
}

// run takes replicate j's constraint values into the per-run tests (the plain
// conditions and the probability bounds) and returns why the point is refused ("" if
// it is not).
func (f *feasibility) run(cs []Constraint, values []float64, j int, r *replay) string {
	beta := r.d.Split.PerTest
	if f.every == 0 {
		for c, con := range cs {
			if con.Kind == constraint.EveryRun && values[c] != 1 {
				f.every = -1
				return fmt.Sprintf("infeasible: %s failed in replicate %d", con.Text, j)
			}
		}
		if j+1 >= r.d.RareRunsOK {
			f.every = 1
		}
	}
	for t := range f.tests {
		ts := &f.tests[t]
		con := cs[ts.c]
		if ts.state != 0 {
			continue
		}
		v := values[ts.c]
		if con.Kind == constraint.Mean {
			ts.n++
			ts.xs.add(v)
			continue
		}
		// Probability: bad is E for <= and <, not E for >= and >.
		p1 := con.Bound
		bad := v == 1 || math.IsNaN(v)
		if con.Sense == constraint.GE || con.Sense == constraint.GT {
			p1, bad = 1-con.Bound, v == 0 || math.IsNaN(v)
		}
		ts.n++
		if bad {
			ts.bad++
		}
		switch {
		case p1 >= 1:
			ts.state = 1 // always met
		case p1 <= 0:
			// P(bad) <= 0: as a plain condition.
			if bad {
				ts.state = -1
			} else if ts.n >= r.d.RareRunsOK {
				ts.state = 1
			}
		default:
			p0 := p1 / 2
			if bad {
				ts.llr += math.Log(p1 / p0)
			} else {
				ts.llr += math.Log1p(-p1) - math.Log1p(-p0)
			}
			switch {
			case ts.llr >= -math.Log(beta):
				ts.state = -1
			case ts.llr <= math.Log(beta):
				ts.state = 1
			}
		}
		if ts.state == -1 {
			return fmt.Sprintf("infeasible: %s is refused: bad in %d of %d runs", con.Text, ts.bad, ts.n)
		}
	}
	return ""
}

// readyStage is the earliest stage at which every test could accept the point, from
// n runs so far, with every further run good: 0 when it is accepted; n when a mean
// bound is open (it may accept at any stage).
func (f *feasibility) readyStage(cs []Constraint, n int, r *replay) int {
	stage := 0
	if f.every == 0 {
		stage = r.d.RareRunsOK
	}
	beta := r.d.Split.PerTest
	for _, ts := range f.tests {
		if ts.state != 0 {
			continue
		}
		con := cs[ts.c]
		if con.Kind == constraint.Mean {
			return n
		}
		p1 := con.Bound
		if con.Sense == constraint.GE || con.Sense == constraint.GT {
			p1 = 1 - con.Bound
		}
		switch {
		case p1 <= 0:
			stage = max(stage, r.d.RareRunsOK)
		case p1 < 1:
			good := math.Log1p(-p1) - math.Log1p(-p1/2)
			stage = max(stage, n+int(math.Ceil((math.Log(beta)-ts.llr)/good)))
		}
	}
	return stage
}

// means judges the open mean bounds at the stage (from the end of the first stage on)
// and returns why the point is refused ("" if it is not).
func (f *feasibility) means(cs []Constraint, stage int, r *replay) string {
	if !r.started {
		return ""
	}
	beta := r.d.Split.PerTest
	for t := range f.tests {
		ts := &f.tests[t]
		con := cs[ts.c]
		if con.Kind != constraint.Mean || ts.state != 0 {
			continue
		}
		if ts.xs.allEqual && ts.n < r.d.RareRunsOK {
			continue
		}
		n := float64(ts.n)
		h2 := hSquared(beta, ts.n)
		eps := con.Tolerance
		bound := max(0, h2*ts.xs.variance()/(2*eps)-eps*n/2)
		// Σ (x − c), turned so that above 0 is the wrong side.
		sum := n*ts.xs.shift + ts.xs.s1 - n*con.Bound
		if con.Sense == constraint.GE || con.Sense == constraint.GT {
			sum = -sum
		}
		strict := con.Sense == constraint.LT || con.Sense == constraint.GT
		switch {
		case sum < -bound || sum == -bound && !strict:
			ts.state = 1
		case sum > bound || sum == bound && strict:
			ts.state = -1
			return fmt.Sprintf("infeasible: %s is refused: mean %s over %d runs", con.Text, num((n*ts.xs.shift+ts.xs.s1)/n), ts.n)
		}
	}
	return ""
}
