package selection

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// replayCase is a selection whose results are a pure function of (point, replicate): a
// model, and optionally a constraint with an infeasible point, a failure and a null.
type replayCase struct {
	name string
	p    Problem
	job  func(i, j int) Obs
	// leave are reasons (prefixes) the reference run must give, so that the case
	// exercises what it is named for.
	leave []string
}

func replayCases() []replayCase {
	m := model{mu: []float64{0.6, 0.3, 0.5, 0, 0.4, 0.5}, sigma: 1, crn: 0.5, seed: 42}
	plain := func(i, j int) Obs { return m.job(i, j) }
	eq := []Constraint{{Text: "drops_lossless == 0", Kind: constraint.EveryRun}}
	messy := func(i, j int) Obs {
		o := m.job(i, j)
		drops := 0.0
		switch {
		case i == 3: // the best objective, but it drops: infeasible in round 0
			drops = float64(1 + j%3)
		case i == 4 && j == 20:
			return Obs{State: Failed, Err: "timeout"}
		case i == 5 && j == 12:
			o.X = math.NaN()
		}
		o.Values = []float64{b2f(drops == 0)}
		return o
	}
	cfg := question.Config{Confidence: 0.95, Initial: 5, MaxJobs: 10_000, Rare: 0.1}
	newP := func(cons []Constraint) Problem {
		return Problem{Goal: question.Min, Delta: 0.3, Constraints: cons, Config: cfg, Points: make([]Point, len(m.mu))}
	}
	pct := newP(nil)
	pct.Delta, pct.DeltaPercent, pct.Goal = 0, 40, question.Max
	return []replayCase{
		{"plain", newP(nil), plain, nil},
		{"constraint, failure, null", newP(eq), messy, []string{"infeasible: drops_lossless == 0", "failed: timeout", "no value (null)"}},
		{"percent, max", pct, plain, nil},
		{"budget", func() Problem { p := newP(nil); p.Config.MaxJobs = 60; return p }(), plain, nil},
	}
}

// clone copies p's points so that a run does not share replicates with another.
func clone(p Problem) Problem {
	p.Points = slices.Clone(p.Points)
	for i := range p.Points {
		p.Points[i].Reps = slices.Clone(p.Points[i].Reps)
	}
	return p
}

// The decision is a pure function of the committed results: the jobs committed one at
// a time, in any order, in random batches, or all at once ahead of the procedure
// (replicates beyond what it uses, as an earlier fixed run leaves) reach the identical
// final decision.
func TestReplayPurity(t *testing.T) {
	for _, c := range replayCases() {
		t.Run(c.name, func(t *testing.T) {
			p := clone(c.p)
			want, calls := drive(&p, c.job)
			if want.State == Running || calls < 3 {
				t.Fatalf("the reference run is too short to test anything: %+v after %d calls", want, calls)
			}
			t.Logf("%s: %s after %d calls, %d jobs: %s", c.name, want.State, calls, want.Jobs, want.Why)
			for _, r := range c.leave {
				if !slices.ContainsFunc(want.Eliminated, func(e Elimination) bool { return strings.HasPrefix(e.Reason, r) }) {
					t.Errorf("no point left with %q: %+v", r, want.Eliminated)
				}
			}

			// One job per call, the last needed first.
			q := clone(c.p)
			for d := Decide(q); d.State == Running; d = Decide(q) {
				n := d.Need[len(d.Need)-1]
				commit(&q, n.Point, n.Replicate, c.job(n.Point, n.Replicate))
			}
			if got := Decide(q); !same(got, want) {
				t.Errorf("one at a time:\n%+v\nwant\n%+v", got, want)
			}

			// Random batches of the needed jobs, shuffled.
			rng := rand.New(rand.NewPCG(7, 7))
			q = clone(c.p)
			for d := Decide(q); d.State == Running; d = Decide(q) {
				need := slices.Clone(d.Need)
				rng.Shuffle(len(need), func(a, b int) { need[a], need[b] = need[b], need[a] })
				for _, n := range need[:1+rng.IntN(len(need))] {
					commit(&q, n.Point, n.Replicate, c.job(n.Point, n.Replicate))
				}
			}
			if got := Decide(q); !same(got, want) {
				t.Errorf("random batches:\n%+v\nwant\n%+v", got, want)
			}

			// Every point run ahead to 10 replicates beyond the last stage, committed in
			// reverse order: one call decides.
			q = clone(c.p)
			last := want.Stage + 10
			for i := len(q.Points) - 1; i >= 0; i-- {
				for j := last - 1; j >= 0; j-- {
					commit(&q, i, j, c.job(i, j))
				}
			}
			if got := Decide(q); !same(got, want) {
				t.Errorf("run ahead:\n%+v\nwant\n%+v", got, want)
			}

			// Extra replicates after what the reference run committed.
			q = clone(p)
			for i := range q.Points {
				n := len(q.Points[i].Reps)
				for j := n; j < n+3; j++ {
					commit(&q, i, j, ok(-1e9, 0)) // absurd values: they must be ignored
				}
			}
			if got := Decide(q); !same(got, want) {
				t.Errorf("extra replicates:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}
