package selection

import (
	"fmt"
	"math"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// ProbeTest judges one configuration's constraints (a spec's subject_to) alone, from its
// runs taken in replicate order, by the sequential tests of a selection's feasibility
// (feasibility.go; docs/statistics.md §3): the plain conditions together must hold in
// every run (refused at the first violation, accepted after RareRuns(rare, beta) runs
// without one), a probability bound is Wald's test of p/2 against p, a mean bound Batur
// and Kim's test with its tolerance. Each test is wrong, either way, with probability at
// most beta. A bisection's probe (bisect.go) is one ProbeTest.
//
// The zero value is not usable: NewProbeTest makes one.
type ProbeTest struct {
	cs      []Constraint
	f       feasibility
	r       replay // only r.d.Split.PerTest, r.d.RareRunsOK and r.started are read
	initial int
	runs    int    // runs taken, up to the decision
	reason  string // why it was refused
}

// NewProbeTest returns a test of cs, each of its tests wrong with probability at most
// beta (0 < beta < 1), with rare-event resolution rare (statistics.md §5) and initial
// runs before a mean bound is judged (at least 2; a selection's first stage).
func NewProbeTest(cs []Constraint, beta, rare float64, initial int) *ProbeTest {
	t := &ProbeTest{cs: cs, f: newFeasibility(cs), initial: max(initial, 2)}
	t.r.d.Split.PerTest = beta
	t.r.d.RareRunsOK = question.RareRuns(rare, beta)
	return t
}

// TestsPerProbe is the number of sequential tests a probe of cs makes: one for the plain
// conditions together, one per bound (the selection's Split.Tests).
func TestsPerProbe(cs []Constraint) int { return testsPerPoint(cs) }

// Add takes the next run's constraint values (Obs.Values, one per constraint) and returns
// the state after it: 1 accepted, -1 refused, 0 still open. A run after the decision
// changes nothing.
func (t *ProbeTest) Add(values []float64) int {
	if s := t.State(); s != 0 {
		return s
	}
	j := t.runs
	t.runs++
	if why := t.f.run(t.cs, values, j, &t.r); why != "" {
		t.reason = why
		return -1
	}
	if t.runs >= t.initial {
		t.r.started = true
		if why := t.f.means(t.cs, t.runs, &t.r); why != "" {
			t.reason = why
			return -1
		}
	}
	return t.State()
}

// State is 1 when every test has accepted, -1 when one has refused, else 0.
func (t *ProbeTest) State() int { return t.f.state() }

// Runs is the number of runs taken: up to and including the one that decided.
func (t *ProbeTest) Runs() int { return t.runs }

// Reason says why the test refused ("infeasible: drops_lossless == 0 failed in
// replicate 3"); "" otherwise.
func (t *ProbeTest) Reason() string { return t.reason }

// ReadyRuns is the earliest number of runs at which the test could accept, every further
// run being good: RareRuns for the plain conditions, the runs Wald's test needs from
// where its ratio stands; the runs taken so far (at least initial) while a mean bound is
// open, since it may accept at any run.
func (t *ProbeTest) ReadyRuns() int {
	n := t.f.readyStage(t.cs, t.runs, &t.r)
	for _, ts := range t.f.tests {
		if ts.state == 0 && t.cs[ts.c].Kind == constraint.Mean {
			n = max(n, t.initial)
		}
	}
	return max(n, t.runs)
}

// HoldsOnce judges cs on one run of a deterministic job, whose every run is that run: a
// plain condition must hold in it; a probability bound P(E) <= p holds when the run's
// share of bad runs (0 or 1) is within p; a mean bound compares the run's value with its
// bound, without tolerance (one run is the mean). It returns "" when every constraint
// holds, else the first that does not, in the words a ProbeTest uses.
func HoldsOnce(cs []Constraint, values []float64) string {
	for c, con := range cs {
		v := math.NaN()
		if c < len(values) {
			v = values[c]
		}
		switch con.Kind {
		case constraint.EveryRun:
			if v != 1 {
				return fmt.Sprintf("%s failed", con.Text)
			}
		case constraint.Probability:
			bad := v == 1 || math.IsNaN(v)
			p := con.Bound
			if con.Sense == constraint.GE || con.Sense == constraint.GT {
				bad, p = v == 0 || math.IsNaN(v), 1-con.Bound
			}
			share := 0.0
			if bad {
				share = 1
			}
			strict := con.Sense == constraint.LT || con.Sense == constraint.GT
			if share > p || strict && share == p {
				return fmt.Sprintf("%s failed (the run's condition is %s)", con.Text, map[bool]string{true: "bad", false: "good"}[bad])
			}
		case constraint.Mean:
			ok := false
			switch con.Sense {
			case constraint.LE:
				ok = v <= con.Bound
			case constraint.LT:
				ok = v < con.Bound
			case constraint.GE:
				ok = v >= con.Bound
			case constraint.GT:
				ok = v > con.Bound
			}
			if !ok {
				return fmt.Sprintf("%s failed (value %s)", con.Text, num(v))
			}
		}
	}
	return ""
}
