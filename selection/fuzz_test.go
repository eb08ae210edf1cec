package selection

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// bytesReader hands out the fuzzer's bytes one at a time, then zeros.
type bytesReader []byte

func (b *bytesReader) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0])
	*b = (*b)[1:]
	return v % n
}

// fuzzProblem builds a valid Problem from data: few points, few replicates, small
// integer values (ties are common), any mix of missing, failed, null and OK jobs, and
// constraints of every sense with margins that are sometimes missing or NaN.
func fuzzProblem(data []byte) Problem {
	b := bytesReader(data)
	k := 1 + b.next(5)
	p := Problem{
		Goal: []question.Goal{question.Min, question.Max}[b.next(2)],
		Config: question.Config{
			Confidence: []float64{0.5, 0.8, 0.9, 0.95, 0.99}[b.next(5)],
			Initial:    2 + b.next(3),
		},
	}
	if b.next(3) == 0 {
		p.DeltaPercent = float64(1 + b.next(20))
	} else {
		p.Delta = 0.25 * float64(1+b.next(8))
	}
	p.Config.MaxJobs = k*p.Config.Initial + b.next(40)
	if b.next(2) == 0 {
		p.Config.Rare = []float64{0.05, 0.2, 0.5}[b.next(3)]
	}
	for range b.next(3) {
		c := Constraint{Text: "c", Kind: constraint.Kind(b.next(3))}
		switch c.Kind {
		case constraint.Probability:
			c.Sense, c.Bound = constraint.Sense(1+b.next(4)), []float64{0, 0.3, 0.6, 1}[b.next(4)]
		case constraint.Mean:
			c.Sense, c.Bound, c.Tolerance = constraint.Sense(1+b.next(4)), float64(b.next(5))-2, 0.5*float64(1+b.next(3))
		}
		p.Constraints = append(p.Constraints, c)
	}
	switch b.next(4) {
	case 0:
		p.Near = &Near{Metric: "primary", Goal: []question.Goal{question.Min, question.Max}[b.next(2)], Delta: 0.5 * float64(1+b.next(4))}
	case 1:
		p.Pareto = []Objective2{{Metric: "a", Goal: question.Min, Delta: 0.5}, {Metric: "b", Goal: []question.Goal{question.Min, question.Max}[b.next(2)], Delta: 1}}
	}
	for i := range k {
		pt := Point{Label: fmt.Sprint(i)}
		for range b.next(14) {
			var o Obs
			switch s := b.next(10); {
			case s == 0:
				o.State = Missing
			case s == 1:
				o = Obs{State: Failed, Err: "boom"}
			case s == 2:
				o = ok(math.NaN())
			default:
				o = ok(float64(b.next(7)) - 3)
			}
			if o.State == OK && p.Near != nil {
				o.Near = float64(b.next(5))
			}
			if o.State == OK && p.Pareto != nil && b.next(30) != 0 {
				o.Vec = []float64{float64(b.next(5)), float64(b.next(5))}
			}
			if o.State == OK {
				n := len(p.Constraints)
				if b.next(20) == 0 {
					n = b.next(n + 1) // too few margins
				}
				for range n {
					m := float64(b.next(5)) - 2
					if p.Constraints[len(o.Values)].Kind != constraint.Mean {
						m = float64(b.next(2))
					}
					if b.next(25) == 0 {
						m = math.NaN()
					}
					o.Values = append(o.Values, m)
				}
			}
			pt.Reps = append(pt.Reps, o)
		}
		p.Points = append(p.Points, pt)
	}
	return p
}

// Decide never panics on a valid Problem, and its decisions are consistent: every point
// is a survivor or left (once), Best is a survivor, only survivors are needed and only
// jobs that are missing, Jobs is the sum of Used within the budget, a decided point is
// known feasible, only known-feasible points eliminate, and replicates beyond what the
// procedure used change nothing.
func FuzzDecide(f *testing.F) {
	for _, seed := range []string{
		"", "\x01\x00\x03\x00\x05", "\x04\x01\x04\x01\x07\x02\x03\x09\x09\x09\x09",
		"\x03\x00\x03\x00\x00\x10\x02\x06\x0d\x05\x05\x04\x03\x09\x08\x07\x06\x05\x04\x03\x02\x01",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzProblem(data)
		if err := p.Validate(); err != nil {
			t.Fatalf("fuzzProblem built an invalid problem: %v", err)
		}
		d := Decide(p)
		checkInvariants(t, p, d)

		// Pad every point to beyond the last stage with missing jobs, then add jobs:
		// nothing the procedure uses changes.
		q := clone(p)
		pad := max(d.Stage+1, 4*p.Config.WithDefaults(len(p.Points)).Initial)
		for i := range q.Points {
			pad = max(pad, len(q.Points[i].Reps))
		}
		for i := range q.Points {
			for len(q.Points[i].Reps) < pad {
				q.Points[i].Reps = append(q.Points[i].Reps, Obs{})
			}
			values := make([]float64, len(p.Constraints))
			q.Points[i].Reps = append(q.Points[i].Reps, ok(-1e6, values...), Obs{State: Failed})
		}
		e := Decide(q)
		if d.State == Running {
			// Jobs committed ahead are not asked for again (ahead): e's needs are d's
			// less those.
			for _, n := range e.Need {
				if !slices.Contains(d.Need, n) {
					t.Errorf("need %+v with more committed, not without", n)
				}
			}
			e.Need, e.Why = d.Need, d.Why
		}
		if !same(e, d) {
			t.Errorf("replicates beyond the stages changed the decision:\n%+v\nwant\n%+v", e, d)
		}
	})
}

func checkInvariants(t *testing.T, p Problem, d Decision) {
	t.Helper()
	k := len(p.Points)
	seen := make([]int, k)
	for _, i := range d.Survivors {
		seen[i]++
	}
	for _, e := range d.Eliminated {
		seen[e.Point]++
		if e.By >= 0 && (e.By == e.Point || d.Feasible[e.By] != 1) {
			t.Errorf("eliminated by a point not known feasible: %+v", e)
		}
		if e.Reason == "" {
			t.Errorf("no reason: %+v", e)
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("point %d is %d times among survivors and eliminated: %+v", i, n, d)
		}
		if d.Feasible[i] == -1 && slices.Contains(d.Survivors, i) {
			t.Errorf("infeasible point %d survives: %+v", i, d)
		}
	}
	if !slices.IsSorted(d.Survivors) {
		t.Errorf("survivors not in plan order: %v", d.Survivors)
	}
	if d.Best != -1 && !slices.Contains(d.Survivors, d.Best) {
		t.Errorf("Best %d is not a survivor: %+v", d.Best, d)
	}
	jobs := 0
	for _, u := range d.Used {
		jobs += u
	}
	if d.Jobs != jobs || d.Jobs > p.Config.WithDefaults(k).MaxJobs {
		t.Errorf("Jobs %d, Σ Used %d, budget %d", d.Jobs, jobs, p.Config.MaxJobs)
	}
	n0 := p.Config.WithDefaults(k).Initial
	switch d.State {
	case Running:
		if len(d.Need) == 0 {
			t.Errorf("running without a need: %+v", d)
		}
		for a, n := range d.Need {
			if !slices.Contains(d.Survivors, n.Point) {
				t.Errorf("need %+v of a point that is not a survivor", n)
			}
			if reps := p.Points[n.Point].Reps; n.Replicate < len(reps) && reps[n.Replicate].State != Missing {
				t.Errorf("need %+v of a committed job", n)
			}
			lo, hi := d.Stage, d.Stage+maxAhead
			if d.Stage == 0 { // the first stage, perhaps extended up to 4 × n0
				lo, hi = 0, 4*n0
			}
			if n.Replicate < lo || n.Replicate >= hi {
				t.Errorf("need %+v outside the stage after %d", n, d.Stage)
			}
			if a > 0 && (d.Need[a-1].Point > n.Point || d.Need[a-1].Point == n.Point && d.Need[a-1].Replicate >= n.Replicate) {
				t.Errorf("need not in point order: %v", d.Need)
			}
		}
	case Decided:
		if p.Pareto != nil {
			for _, i := range d.Front {
				if !slices.Contains(d.Survivors, i) || d.Feasible[i] != 1 {
					t.Errorf("front point %d not a known-feasible survivor: %+v", i, d)
				}
			}
			if len(d.Front) == 0 {
				t.Errorf("decided without a front: %+v", d)
			}
			break
		}
		if d.Best < 0 {
			t.Errorf("decided without a best: %+v", d)
		}
		if d.Feasible[d.Best] != 1 {
			t.Errorf("decided for point %d of unknown feasibility: %+v", d.Best, d)
		}
	case Budget:
		if d.Best < 0 && p.Pareto == nil {
			t.Errorf("budget without a best: %+v", d)
		}
	case Infeasible:
		if d.Best != -1 || len(d.Survivors) != 0 {
			t.Errorf("infeasible with survivors: %+v", d)
		}
	default:
		t.Errorf("state %q", d.State)
	}
	if d.State != Running && len(d.Need) != 0 {
		t.Errorf("%s with needs: %+v", d.State, d)
	}
	if d.Why == "" {
		t.Errorf("no why: %+v", d)
	}
}
