package selection

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// ok is a committed job with objective value x and the given constraint values.
func ok(x float64, values ...float64) Obs { return Obs{State: OK, X: x, Values: values} }

// points builds points labelled A, B, C, ... from their objective values by replicate.
func points(xs ...[]float64) []Point {
	ps := make([]Point, len(xs))
	for i, x := range xs {
		ps[i].Label = string(rune('A' + i))
		for _, v := range x {
			ps[i].Reps = append(ps[i].Reps, ok(v))
		}
	}
	return ps
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// same compares decisions with NaN equal to NaN (reflect.DeepEqual has NaN != NaN).
func same(a, b Decision) bool {
	clean := func(d Decision) Decision {
		d.Means = slices.Clone(d.Means)
		for i, m := range d.Means {
			if math.IsNaN(m) {
				d.Means[i] = -12345.678
			}
		}
		pm := make([][]float64, len(d.ParetoMeans))
		for m, xs := range d.ParetoMeans {
			pm[m] = slices.Clone(xs)
			for i, x := range xs {
				if math.IsNaN(x) {
					pm[m][i] = -12345.678
				}
			}
		}
		d.ParetoMeans = pm
		return d
	}
	return reflect.DeepEqual(clean(a), clean(b))
}

// RareRuns against hand computation: ⌈ln β / ln(1 − rare)⌉.
//
//	rare 1%, β 5%:      ln 0.05 / ln 0.99 = −2.99573 / −0.0100503 = 298.07 → 299
//	rare 1%, β 0.1%:    −6.90776 / −0.0100503 = 687.3 → 688
//	rare 5%, β 2.5%:    −3.68888 / −0.0512933 = 71.9 → 72
func TestRareRuns(t *testing.T) {
	for _, c := range []struct {
		rare, beta float64
		want       int
	}{
		{0.01, 0.05, 299}, {0.01, 0.001, 688}, {0.05, 0.025, 72}, {0.5, 0.5, 1}, {0, 0.05, 1},
	} {
		if got := question.RareRuns(c.rare, c.beta); got != c.want {
			t.Errorf("RareRuns(%g, %g) = %d, want %d", c.rare, c.beta, got, c.want)
		}
	}
}

// The split of α = 0.05 for the quickstart's shape: 12 points, two plain conditions
// (one test a point). Feasibility 0.025 over 12 tests: 0.0020833 each; the comparison's
// 0.025 half to screening and half to the rare-event rule, 0.0125 / 11 = 0.0011364 a
// pair. RareRunsOK = ⌈ln 0.0020833 / ln 0.99⌉ = ⌈614.3⌉ = 615; RareRunsPair =
// ⌈ln 0.0011364 / ln 0.99⌉ = ⌈674.6⌉ = 675. Without constraints screening gets 0.025.
func TestSplit(t *testing.T) {
	xs := make([][]float64, 12)
	for i := range xs {
		xs[i] = []float64{1}
	}
	p := Problem{Goal: question.Min, Delta: 1, Points: points(xs...), Constraints: []Constraint{
		{Text: "drops_lossless == 0"}, {Text: "msgs_completed_lossless == 120"}}}
	d := Decide(p)
	s := d.Split
	if s.Tests != 1 || !near(s.Feasibility, 0.025) || !near(s.PerTest, 0.025/12) || !near(s.Screening, 0.0125) ||
		!near(s.Rare, 0.0125) || !near(s.PerPair, 0.0125/11) || d.RareRunsOK != 615 || d.RareRunsPair != 675 {
		t.Errorf("with constraints: %+v, RareRunsOK %d, RareRunsPair %d", s, d.RareRunsOK, d.RareRunsPair)
	}
	p.Constraints = append(p.Constraints, Constraint{Text: "P(x > 0) <= 1%", Kind: constraint.Probability, Sense: constraint.LE, Bound: 0.01})
	if s := Decide(p).Split; s.Tests != 2 || !near(s.PerTest, 0.025/24) {
		t.Errorf("with a probability bound too: %+v", s)
	}
	p.Constraints = nil
	if s := Decide(p).Split; s.Tests != 0 || s.Feasibility != 0 || !near(s.Screening, 0.025) || !near(s.PerPair, 0.025/11) {
		t.Errorf("without constraints: %+v", s)
	}
}

// η and h² against hand computation, with screening's share α/2 of α = 1 − confidence
// (no constraints):
//
//	k = 2, α = 0.05, n0 = 5:  2·0.025/1 = 0.05; 0.05^(−2/4) = 4.47214;
//	                          η = ½(4.47214 − 1) = 1.73607; h² = 2·1.73607·4 = 13.8885
//	k = 3, α = 0.05, n0 = 3:  2·0.025/2 = 0.025; 0.025^(−1) = 40; η = 19.5; h² = 78
//	k = 10, α = 0.05, n0 = 10: 0.05/9 = 0.0055556; ln = −5.19296, × (−2/9) = 1.15399,
//	                          e^1.15399 = 3.17080; η = 1.08540; h² = 2·1.08540·9 = 19.5373
//	k = 5, α = 0.1, n0 = 4:   0.1/4 = 0.025; 0.025^(−2/3) = 11.6961; η = 5.34805;
//	                          h² = 32.0883
func TestH2(t *testing.T) {
	for _, c := range []struct {
		k, n0 int
		conf  float64
		want  float64
	}{
		{2, 5, 0.95, 13.8885},
		{3, 3, 0.95, 78},
		{10, 10, 0.95, 19.5373},
		{5, 4, 0.90, 32.0883},
		{1, 5, 0.95, 0}, // one point: nothing to compare
	} {
		xs := make([][]float64, c.k)
		for i := range xs {
			for j := range c.n0 {
				xs[i] = append(xs[i], float64(i*j+j*j)) // any values: h² does not depend on them
			}
		}
		p := Problem{Goal: question.Min, Delta: 1, Points: points(xs...), Config: question.Config{Confidence: c.conf, Initial: c.n0}}
		d := Decide(p)
		if math.Abs(d.H2-c.want) > 5e-5*math.Max(1, c.want) {
			t.Errorf("k %d n0 %d confidence %g: H2 = %.6f, want %.6f", c.k, c.n0, c.conf, d.H2, c.want)
		}
	}
}

// A three-point problem worked by hand. k = 3, α = 0.05, n0 = 3, δ = 2, no
// constraints: h² = 78 (TestH2), h²/δ² = 19.5; the variances are updated at every stage;
// RareRunsPair = RareRuns(1%, 0.025/2) = ⌈436.0⌉ = 437 (no pair or point needs it here).
//
//	        rep 0  1  2 | 3
//	A          10 12 11 | 11.5
//	B          12 13 14 | 13.5
//	C          20 21 23 |
//
// Stage 3. A−B = (−2, −1, −3): mean −2, S² = 1; A−C = (−10, −9, −12): mean −10.333,
// S² = (0.111 + 1.778 + 2.778)/2 = 2.3333; B−C = (−8, −8, −9): S² = 0.3333.
// W_AC = 2/6·(19.5·2.3333 − 3) = 14.167 > 10.333: A does not screen C out.
// W_BC = 2/6·(19.5·0.3333 − 3) = 1.1667 < 8.333: B does, 8.333 worse, beyond δ.
// W_AB = 2/6·(19.5 − 3) = 5.5 > 2: B stays.
// Fixed design: t(1 − 0.05/2, 2) = 4.30265, S²max = 2.3333: N = ⌈4.30265²·2.3333/4⌉ =
// ⌈10.80⌉ = 11, FixedJobs = 3 × 11 = 33.
// Stage 4: h² with 3 degrees of freedom, 3·(0.025^(−2/3) − 1) = 32.088; A−B = (−2, −1,
// −3, −2): S² = 2/3, W = 2/8·(32.088·(2/3)/4 − 4) = 0.337 < 2: B leaves, 2 worse, at
// the indifference. Jobs = 3·3 + 2 = 11.
func TestHandWorked(t *testing.T) {
	a := []float64{10, 12, 11, 11.5}
	b := []float64{12, 13, 14, 13.5}
	c := []float64{20, 21, 23}
	cfg := question.Config{Confidence: 0.95, Initial: 3, MaxJobs: 100}
	labels := []string{"A", "B", "C"}
	nan := math.NaN()
	split := Split{Screening: 0.025, Rare: 0.025, PerPair: 0.0125}
	byB := Elimination{Point: 2, Round: 0, Cause: CauseScreened, By: 1, Gap: 25.0 / 3,
		Reason: "worse than B by 8.333 on 3 paired replicates, beyond the indifference (2)"}
	byA := Elimination{Point: 1, Round: 1, Cause: CauseScreened, By: 0, Gap: 2,
		Reason: "worse than A by 2 on 4 paired replicates, beyond the indifference (2)"}
	common := Decision{Delta: 2, Confidence: 0.95, Split: split, Rare: 0.01, RareRunsPair: 437, Labels: labels,
		PointMass: []bool{false, false, false}, Feasible: []int{1, 1, 1}, Eliminated: []Elimination{}, Need: []Need{}}
	with := func(edit func(d *Decision)) Decision {
		d := common
		d.Eliminated = []Elimination{}
		edit(&d)
		return d
	}
	for _, tc := range []struct {
		name   string
		pts    []Point
		want   Decision
		negate bool // the same problem as a max goal over −X
	}{
		{
			name: "first stage incomplete",
			pts:  points(a[:2], b[:3], c[:1]),
			want: with(func(d *Decision) {
				d.State, d.Why, d.Best = Running, "waiting for 3 jobs of the first stage", -1
				d.Survivors, d.Need = []int{0, 1, 2}, []Need{{0, 2}, {2, 1}, {2, 2}}
				d.Means, d.Used = []float64{nan, nan, nan}, []int{0, 0, 0}
			}),
		},
		{
			name: "round 0",
			pts:  points(a[:3], b[:3], c),
			want: with(func(d *Decision) {
				d.State, d.Why, d.Stage, d.FirstStage, d.Best = Running, "waiting for 2 jobs of round 1", 3, 3, 0
				d.Survivors, d.Eliminated, d.Need = []int{0, 1}, []Elimination{byB}, []Need{{0, 3}, {1, 3}}
				d.Jobs, d.H2, d.FixedJobs = 9, 78, 33
				d.Means, d.Used = []float64{11, 13, 64.0 / 3}, []int{3, 3, 3}
			}),
		},
		{
			name: "round 1",
			pts:  points(a, b, c),
			want: with(func(d *Decision) {
				d.State, d.Why, d.Stage, d.Round, d.FirstStage, d.Best = Decided, "one point survived", 4, 1, 3, 0
				d.Survivors, d.Eliminated, d.Equivalent = []int{0}, []Elimination{byB, byA}, []int{0}
				d.Jobs, d.H2, d.FixedJobs = 11, 78, 33
				d.Means, d.Used = []float64{11.125, 13.125, 64.0 / 3}, []int{4, 4, 3}
			}),
		},
		{
			name: "round 1, max goal", negate: true,
			pts: points(a, b, c),
			want: with(func(d *Decision) {
				d.State, d.Why, d.Stage, d.Round, d.FirstStage, d.Best = Decided, "one point survived", 4, 1, 3, 0
				d.Survivors, d.Eliminated, d.Equivalent = []int{0}, []Elimination{byB, byA}, []int{0}
				d.Jobs, d.H2, d.FixedJobs = 11, 78, 33
				d.Means, d.Used = []float64{-11.125, -13.125, -64.0 / 3}, []int{4, 4, 3}
			}),
		},
		{
			// Replicates of C after it left and of A and B after the decision change
			// nothing.
			name: "extra replicates",
			pts:  points(append(slices.Clone(a), 0, 0), append(slices.Clone(b), -50), append(slices.Clone(c), -100, -100)),
			want: with(func(d *Decision) {
				d.State, d.Why, d.Stage, d.Round, d.FirstStage, d.Best = Decided, "one point survived", 4, 1, 3, 0
				d.Survivors, d.Eliminated, d.Equivalent = []int{0}, []Elimination{byB, byA}, []int{0}
				d.Jobs, d.H2, d.FixedJobs = 11, 78, 33
				d.Means, d.Used = []float64{11.125, 13.125, 64.0 / 3}, []int{4, 4, 3}
			}),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Problem{Goal: question.Min, Delta: 2, Config: cfg, Points: tc.pts}
			if tc.negate {
				p.Goal = question.Max
				for i := range p.Points {
					for j := range p.Points[i].Reps {
						p.Points[i].Reps[j].X *= -1
					}
				}
			}
			d := Decide(p)
			for _, f := range []struct {
				got  *float64
				want float64
			}{{&d.H2, tc.want.H2}, {&d.Split.Screening, split.Screening}, {&d.Split.Rare, split.Rare}, {&d.Split.PerPair, split.PerPair}} {
				if !near(*f.got, f.want) {
					t.Errorf("%g, want %g", *f.got, f.want)
				}
				*f.got = f.want
			}
			for i := range d.Eliminated {
				if !near(d.Eliminated[i].Gap, tc.want.Eliminated[i].Gap) {
					t.Errorf("gap %g, want %g", d.Eliminated[i].Gap, tc.want.Eliminated[i].Gap)
				}
				d.Eliminated[i].Gap = tc.want.Eliminated[i].Gap
			}
			for i := range d.Means {
				if near(d.Means[i], tc.want.Means[i]) {
					d.Means[i] = tc.want.Means[i]
				}
			}
			if !same(d, tc.want) {
				t.Errorf("Decide =\n%+v\nwant\n%+v", d, tc.want)
			}
		})
	}
}

// Two points that give equal values in every replicate (an axis that changes nothing)
// are not called a tie on a variance of zero: not before RareRunsPair replicates, 72 at
// rare 5% (RareRuns), after which the decision says what it rests on.
func TestEqualOutputsWaitForRareEvents(t *testing.T) {
	x := make([]float64, 80)
	for j := range x {
		x[j] = float64(j % 7)
	}
	cfg := question.Config{Initial: 5, Rare: 0.05}
	d := Decide(Problem{Goal: question.Min, Delta: 0.5, Config: cfg, Points: points(x[:71], x[:71])})
	if d.RareRunsPair != 72 || d.State != Running || !reflect.DeepEqual(d.Need, []Need{{0, 71}, {1, 71}}) {
		t.Fatalf("at 71: %+v", d)
	}
	d = Decide(Problem{Goal: question.Min, Delta: 0.5, Config: cfg, Points: points(x, x)})
	want := "the 2 remaining points are within the indifference of each other (some gave equal results in all 72 paired replicates: they differ, if at all, in fewer than 5% of runs)"
	if d.State != Decided || d.Best != 0 || d.Stage != 72 || d.Jobs != 144 || d.Why != want {
		t.Errorf("at 72: %+v", d)
	}
}

// A point whose values sit on one value (a pause time that is mostly 0) neither
// screens others out nor is selected before RareRunsPair replicates: its rare events
// have had their chance to show. Here its rare event comes in replicate 40 (1000), and
// the continuous point it would have screened out at once is selected.
func TestPointMassWaits(t *testing.T) {
	mass := make([]float64, 72)
	cont := make([]float64, 72)
	for j := range mass {
		cont[j] = 5 + 0.01*float64(j%3)
	}
	mass[40] = 1000
	cfg := question.Config{Initial: 5, Rare: 0.05}
	p := Problem{Goal: question.Min, Delta: 1, Config: cfg, Points: []Point{{Label: "mass"}, {Label: "cont"}}}
	for j := range 20 {
		commit(&p, 0, j, ok(mass[j]))
		commit(&p, 1, j, ok(cont[j]))
	}
	d := Decide(p)
	if d.State != Running || len(d.Eliminated) != 0 || !d.PointMass[0] || d.PointMass[1] {
		t.Fatalf("at 20: the point mass screened or was not seen: %+v", d)
	}
	for j := range 72 {
		commit(&p, 0, j, ok(mass[j]))
		commit(&p, 1, j, ok(cont[j]))
	}
	d = Decide(p)
	if d.State != Running || d.Best != 1 || len(d.Eliminated) != 0 || d.RareRunsPair != 72 {
		t.Errorf("at 72: %+v", d)
	}
}

// A percent indifference resolves from the best first-stage mean by goal, then the
// largest |mean| when that is 0.
func TestPercentDelta(t *testing.T) {
	for _, c := range []struct {
		name string
		goal question.Goal
		xs   [][]float64
		want float64
	}{
		{"min", question.Min, [][]float64{{10, 12, 14}, {20, 22, 24}}, 0.6},          // 5% of 12
		{"max", question.Max, [][]float64{{10, 12, 14}, {20, 22, 24}}, 1.1},          // 5% of 22
		{"min negative", question.Min, [][]float64{{-10, -12, -14}, {1, 2, 3}}, 0.6}, // 5% of |−12|
		{"best is 0", question.Min, [][]float64{{-1, 0, 1}, {40, 41, 39}}, 2},        // 5% of 40
		{"every mean 0", question.Min, [][]float64{{-1, 0, 1}, {-8, 0, 8}}, 0.4},     // 5% of |8|
	} {
		p := Problem{Goal: c.goal, DeltaPercent: 5, Config: question.Config{Initial: 3}, Points: points(c.xs...)}
		p.Points = append(p.Points, Point{Label: "failed", Reps: []Obs{{State: Failed, Err: "x"}}})
		if d := Decide(p); !near(d.Delta, c.want) {
			t.Errorf("%s: Delta = %g, want %g", c.name, d.Delta, c.want)
		}
	}
	// The percent is 0 until the first stage is complete.
	if d := Decide(Problem{Goal: question.Min, DeltaPercent: 5, Points: points([]float64{1})}); d.Delta != 0 || d.State != Running {
		t.Errorf("percent before the first stage: %+v", d)
	}
}

// k = 1: the point is decided after its first stage; with a constraint it must first be
// known feasible.
func TestOnePoint(t *testing.T) {
	xs := []float64{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
	d := Decide(Problem{Goal: question.Min, Delta: 1, Points: points(xs[:9])})
	if d.State != Running || !reflect.DeepEqual(d.Need, []Need{{0, 9}}) {
		t.Errorf("k = 1, 9 of 10: %+v", d)
	}
	d = Decide(Problem{Goal: question.Min, Delta: 1, Points: points(xs)})
	if d.State != Decided || d.Best != 0 || d.Stage != 10 || d.Jobs != 10 || d.FixedJobs != 10 || d.H2 != 0 ||
		d.Why != "there is only one point" || d.Means[0] != 9.5 {
		t.Errorf("k = 1: %+v", d)
	}
	// A plain condition: one point, so the whole α goes to its one test: RareRunsOK =
	// RareRuns(1%, 0.05) = 299 runs without a violation.
	p := Problem{Goal: question.Min, Delta: 1, Constraints: []Constraint{{Text: "drops <= 0"}}, Points: []Point{{Label: "only"}}}
	for j := range 298 {
		commit(&p, 0, j, ok(7+float64(j%2), 1))
	}
	if d = Decide(p); d.State != Running || d.RareRunsOK != 299 || d.Feasible[0] != 0 || !reflect.DeepEqual(d.Need, []Need{{0, 298}}) {
		t.Errorf("k = 1, 298 clean runs: %+v", d)
	}
	commit(&p, 0, 298, ok(7, 1))
	if d = Decide(p); d.State != Decided || d.Feasible[0] != 1 || d.Jobs != 299 {
		t.Errorf("k = 1, 299 clean runs: %+v", d)
	}
}

// Plain conditions: a point is refused at its first violation (whatever its objective)
// and eliminates nobody meanwhile; the others are accepted after RareRunsOK clean runs,
// and only then screen each other. Three points, α = 0.05, rare 5%: feasibility 0.025
// over 3 tests, RareRunsOK = RareRuns(0.05, 0.008333) = ⌈93.3⌉ = 94.
func TestEveryRun(t *testing.T) {
	cons := []Constraint{{Text: "drops_lossless == 0"}}
	p := Problem{Goal: question.Min, Delta: 1, Constraints: cons, Config: question.Config{Initial: 5, Rare: 0.05},
		Points: []Point{{Label: "sticky"}, {Label: "B"}, {Label: "C"}}}
	run := func(n int) Decision {
		for j := range n {
			commit(&p, 0, j, ok(1, b2f(j != 30))) // best by far, but violates in replicate 30
			commit(&p, 1, j, ok(10+0.1*float64(j%3), 1))
			commit(&p, 2, j, ok(20+0.1*float64(j%2), 1))
		}
		return Decide(p)
	}
	d := run(30)
	if d.State != Running || len(d.Eliminated) != 0 || d.RareRunsOK != 94 || !reflect.DeepEqual(d.Feasible, []int{0, 0, 0}) {
		t.Fatalf("at 30: nobody may screen yet: %+v", d)
	}
	d = run(31)
	want := Elimination{Point: 0, Round: 26, Cause: CauseInfeasible, By: -1, Reason: "infeasible: drops_lossless == 0 failed in replicate 30"}
	if len(d.Eliminated) != 1 || d.Eliminated[0] != want || d.Feasible[0] != -1 {
		t.Fatalf("at 31: %+v", d)
	}
	d = run(94)
	if d.State != Decided || d.Best != 1 || d.Jobs != 31+94+94 || !reflect.DeepEqual(d.Feasible, []int{-1, 1, 1}) ||
		len(d.Eliminated) != 2 || d.Eliminated[1].Point != 2 || d.Eliminated[1].By != 1 {
		t.Errorf("at 94: %+v", d)
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// P(E) <= 10%, one point (the whole α = 0.05 to its test): the SPRT of 5% against 10%
// adds ln 2 = 0.693147 for a run with E and ln(0.9/0.95) = −0.054067 for one without;
// it refuses at ln 20 = 2.99573 (5 runs with E in a row: 3.4657; 4 are 2.7726) and
// accepts at −2.99573 (56 runs without: −3.0278; 55: −2.9737).
func TestProbabilityBound(t *testing.T) {
	le := []Constraint{{Text: "P(stuck > 0) <= 10%", Kind: constraint.Probability, Sense: constraint.LE, Bound: 0.1}}
	ge := []Constraint{{Text: "P(stuck == 0) >= 90%", Kind: constraint.Probability, Sense: constraint.GE, Bound: 0.9}}
	for _, c := range []struct {
		name   string
		cons   []Constraint
		values func(j int) float64 // the condition's value in replicate j
		n      int
		want   int // Feasible[0] after n runs
	}{
		{"4 bad", le, func(int) float64 { return 1 }, 4, 0},
		{"5 bad", le, func(int) float64 { return 1 }, 5, -1},
		{"55 good", le, func(int) float64 { return 0 }, 55, 0},
		{"56 good", le, func(int) float64 { return 0 }, 56, 1},
		{"a null is bad", le, func(int) float64 { return math.NaN() }, 5, -1},
		{">=: 5 bad", ge, func(int) float64 { return 0 }, 5, -1},
		{">=: 56 good", ge, func(int) float64 { return 1 }, 56, 1},
	} {
		p := Problem{Goal: question.Min, Delta: 1, Constraints: c.cons, Config: question.Config{Initial: 2}, Points: []Point{{Label: "only"}}}
		for j := range c.n {
			commit(&p, 0, j, ok(1+float64(j%2), c.values(j)))
		}
		if d := Decide(p); d.Feasible[0] != c.want {
			t.Errorf("%s: Feasible %d, want %d (%+v)", c.name, d.Feasible[0], c.want, d)
		}
	}
}

// mean(x) <= 10 ± 2, one point, n0 = 5, β = 0.05: h² = 4·((0.1)^(−1/2) − 1) = 8.6491.
// Values 6, 8, 6, 8, 7: S² = 1, R(5) = max(0, 8.6491/4 − 5) = 0: Σ(x − 10) = −15 <= 0:
// accepted at the end of the first stage. Values 11, 13, 11, 13, 12: Σ = +10 > 0:
// refused. Values 9, 11, 9, 11, 10: Σ = 0 = R: for <= accepted.
// Values 2, 18, 2, 18, 10 (S² = 64): R(5) = 8.6491·64/4 − 5 = 133.4, Σ = 0: open.
func TestMeanBound(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want int
		why  string
	}{
		{[]float64{6, 8, 6, 8, 7}, 1, ""},
		{[]float64{11, 13, 11, 13, 12}, -1, "infeasible: mean(x) <= 10 ± 2 is refused: mean 12 over 5 runs"},
		{[]float64{9, 11, 9, 11, 10}, 1, ""},
		{[]float64{2, 18, 2, 18, 10}, 0, ""},
	} {
		p := Problem{Goal: question.Min, Delta: 1, Config: question.Config{Initial: 5}, Points: []Point{{Label: "only"}},
			Constraints: []Constraint{{Text: "mean(x) <= 10 ± 2", Kind: constraint.Mean, Sense: constraint.LE, Bound: 10, Tolerance: 2}}}
		for j, x := range c.xs {
			commit(&p, 0, j, ok(1+float64(j%2), x))
		}
		d := Decide(p)
		why := ""
		if len(d.Eliminated) > 0 {
			why = d.Eliminated[0].Reason
		}
		if d.Feasible[0] != c.want || why != c.why {
			t.Errorf("%v: Feasible %d (%q), want %d (%q)", c.xs, d.Feasible[0], why, c.want, c.why)
		}
	}
}

// A failed job or a null value in a stage the point needs makes it leave in that round;
// it takes no part in the comparison, and its jobs of that stage are not asked for.
func TestFailedAndNull(t *testing.T) {
	good := func(v float64) []Obs {
		return []Obs{ok(v), ok(v + 1), ok(v + 0.5), ok(v + 1), ok(v)}
	}
	cfg := question.Config{Initial: 5}
	p := Problem{Goal: question.Min, Delta: 0.1, Metric: "fct_p99_usec", Config: cfg, Points: []Point{
		{Label: "A", Reps: good(10)},
		{Label: "B", Reps: []Obs{ok(1), {State: Failed, Err: "timeout after 30s"}}},
		{Label: "C", Reps: good(12)},
		{Label: "D", Reps: []Obs{ok(1), ok(2), ok(1)}},
	}}
	d := Decide(p)
	failedB := Elimination{Point: 1, Round: 0, Cause: CauseFailed, Reason: "failed: timeout after 30s", By: -1}
	if d.State != Running || !reflect.DeepEqual(d.Need, []Need{{3, 3}, {3, 4}}) ||
		!reflect.DeepEqual(d.Eliminated, []Elimination{failedB}) {
		t.Errorf("first stage with a failure: %+v", d)
	}
	// D's replicate 4 is null, found in the first stage. A and C differ by exactly 2 in
	// every replicate: a pair with equal differences is not resolved before
	// RareRunsPair, so A and C both go on.
	p.Points[3].Reps = append(p.Points[3].Reps, ok(1), ok(math.NaN()))
	d = Decide(p)
	wantElim := []Elimination{failedB, {Point: 3, Round: 0, Cause: CauseFailed, Reason: "no value of fct_p99_usec", By: -1}}
	if d.State != Running || !reflect.DeepEqual(d.Eliminated, wantElim) || d.Jobs != 5+2+5+5 ||
		!reflect.DeepEqual(d.Used, []int{5, 2, 5, 5}) || !math.IsNaN(d.Means[1]) || !math.IsNaN(d.Means[3]) ||
		d.Means[0] != 10.5 || !reflect.DeepEqual(d.Need, []Need{{0, 5}, {2, 5}}) {
		t.Errorf("failed and null: %+v", d)
	}
	// A null in a later round.
	p = Problem{Goal: question.Min, Delta: 0.5, Config: cfg, Points: points([]float64{10, 11, 10.2, 11.3, 10.1, 10.4}, []float64{10, 10.6, 11, 11.1, 10.5, math.NaN()})}
	d = Decide(p)
	if d.State != Decided || d.Best != 0 || d.Jobs != 12 ||
		!reflect.DeepEqual(d.Eliminated, []Elimination{{Point: 1, Round: 1, Cause: CauseFailed, Reason: "no value (null)", By: -1}}) {
		t.Errorf("null in round 1: %+v", d)
	}
	// Every point failed.
	d = Decide(Problem{Goal: question.Max, Delta: 1, Points: []Point{{Reps: []Obs{{State: Failed}}}, {Reps: []Obs{{}, ok(math.Inf(1))}}}})
	if d.State != Infeasible || d.Best != -1 || d.FixedJobs != 0 || d.Jobs != 2 ||
		d.Eliminated[0].Reason != "failed" || d.Eliminated[1].Reason != "no value (null)" {
		t.Errorf("all failed: %+v", d)
	}
}

// The budget: the procedure stops before a round that would exceed MaxJobs, with the
// best survivor so far.
func TestBudget(t *testing.T) {
	a := []float64{0, 2, 0, 2, 0, 2, 0, 2, 0, 2}
	b := []float64{2, 0, 2, 0, 2, 0, 2, 0, 2, 0.5}
	c := []float64{0.9, 0.8, 0.9, 0.8, 0.9, 0.8, 0.9, 0.8, 0.9, 0.8}
	p := Problem{Goal: question.Min, Delta: 0.1, Config: question.Config{Initial: 5, MaxJobs: 20}, Points: points(a, b, c)}
	d := Decide(p)
	if d.State != Budget || d.Stage != 6 || d.Jobs != 18 || d.Best != 2 || len(d.Survivors) != 3 ||
		d.Why != "the budget of 20 jobs would be exceeded by round 2 (3 survivors)" {
		t.Errorf("%+v", d)
	}
	if got := thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %q", got)
	}
}

// Validate refuses what Decide cannot run, and Decide panics on it.
func TestValidate(t *testing.T) {
	good := Problem{Goal: question.Min, Delta: 1, Points: points([]float64{1})}
	for _, c := range []struct {
		name string
		edit func(p *Problem)
		want string // in the error; "" valid
	}{
		{"good", func(p *Problem) {}, ""},
		{"percent", func(p *Problem) { p.Delta, p.DeltaPercent = 0, 5 }, ""},
		{"no points", func(p *Problem) { p.Points = nil }, "no points"},
		{"goal", func(p *Problem) { p.Goal = "least" }, "goal"},
		{"confidence", func(p *Problem) { p.Config.Confidence = 1 }, "confidence"},
		{"low confidence", func(p *Problem) { p.Config.Confidence = 0.4 }, "confidence"},
		{"initial", func(p *Problem) { p.Config.Initial = 1 }, "at least 2"},
		{"budget", func(p *Problem) { p.Config.MaxJobs = 4 }, "max_jobs 4"},
		{"rare", func(p *Problem) { p.Config.Rare = 0.7 }, "rare"},
		{"delta", func(p *Problem) { p.Delta = 0 }, "indifference"},
		{"negative percent", func(p *Problem) { p.DeltaPercent = -1 }, "percent"},
		{"delta NaN", func(p *Problem) { p.Delta = math.NaN() }, "indifference"},
		{"kind", func(p *Problem) { p.Constraints = []Constraint{{Text: "x", Kind: 9}} }, "kind"},
		{"probability", func(p *Problem) {
			p.Constraints = []Constraint{{Text: "P(x) <= 2", Kind: constraint.Probability, Sense: constraint.LE, Bound: 2}}
		}, "probability"},
		{"tolerance", func(p *Problem) {
			p.Constraints = []Constraint{{Text: "mean(x) <= 2", Kind: constraint.Mean, Sense: constraint.LE, Bound: 2}}
		}, "tolerance"},
	} {
		p := good
		c.edit(&p)
		err := p.Validate()
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: Validate = %v, want %q", c.name, err, c.want)
		}
		if err != nil {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: Decide did not panic", c.name)
					}
				}()
				Decide(p)
			}()
		}
	}
}

// A first stage whose paired differences hold an outlier (one value 40 standard
// deviations out among 10: sample excess kurtosis 5.1 > 3) is doubled before any
// screening; the first stage then waits for replicates 10 to 19.
func TestHeavyTailsExtendFirstStage(t *testing.T) {
	a := []float64{1.1, 0.9, 1.0, 1.2, 0.8, 1.05, 0.95, 1.1, 0.9, 1.0}
	b := []float64{2.1, 1.9, 2.0, 2.2, 1.8, 2.05, 1.95, 2.1, 1.9, 42}
	if k := excessKurtosis([]float64{-1, -1, -1, -1, -1, -1, -1, -1, -1, -41}); !(k > 3) {
		t.Fatalf("excess kurtosis %g", k)
	}
	d := Decide(Problem{Goal: question.Min, Delta: 0.5, Points: points(a, b)})
	if !d.HeavyTails || d.State != Running || d.Stage != 0 || len(d.Need) != 20 || d.Need[0] != (Need{0, 10}) || d.Need[19] != (Need{1, 19}) {
		t.Errorf("%+v", d)
	}
	b[9] = 2
	if d = Decide(Problem{Goal: question.Min, Delta: 0.5, Points: points(a, b)}); d.HeavyTails || d.FirstStage != 10 {
		t.Errorf("no outlier: %+v", d)
	}
}

// A study in which nothing matters: three points whose means differ by less than δ.
// Whether the procedure ends with all three tied or screens some out at a gap below δ,
// the decision names all three as equivalent and says it is flat; a point δ worse or
// more is not equivalent and the study is not flat.
func TestFlat(t *testing.T) {
	var a, b, c, far []float64
	for j := range 40 {
		e := 0.1 * float64(j%5)
		a = append(a, 10+e)
		b = append(b, 10.2+e)
		c = append(c, 10.1+e+0.01*float64(j%3))
		far = append(far, 13+e)
	}
	d := Decide(Problem{Goal: question.Min, Delta: 1, Points: points(a, b, c)})
	if d.State != Decided || !d.Flat || !reflect.DeepEqual(d.Equivalent, []int{0, 1, 2}) {
		t.Errorf("flat: %+v", d)
	}
	d = Decide(Problem{Goal: question.Min, Delta: 1, Points: points(a, b, c, far)})
	if d.State != Decided || d.Flat || !reflect.DeepEqual(d.Equivalent, []int{0, 1, 2}) {
		t.Errorf("one point far: %+v", d)
	}
	// With a secondary objective (then), a point far from the best on the primary leaves
	// before the secondary compares the rest: the near points tying on the secondary do
	// not make the study flat, since the primary set the far one apart (ai-allreduce's
	// headline said "no acceptable setting is better than another" when two of six were
	// near and tied and four were far).
	pts := points(a, b, far)
	for i, prim := range [][]float64{a, b, far} {
		for j := range pts[i].Reps {
			pts[i].Reps[j].X = 1 // the secondary: equal everywhere
			pts[i].Reps[j].Near = prim[j]
		}
	}
	d = Decide(Problem{Goal: question.Min, Delta: 1, Near: &Near{Metric: "primary", Goal: question.Min, Delta: 1}, Points: pts, Config: question.Config{Rare: 0.2}})
	if d.State != Decided || d.Flat || !reflect.DeepEqual(d.Equivalent, []int{0, 1}) {
		t.Errorf("then, one point far on the primary: %+v", d)
	}
}
