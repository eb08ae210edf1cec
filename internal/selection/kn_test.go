package selection

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/constraint"
)

// ok is a committed job with objective value x and the given margins.
func ok(x float64, margins ...float64) Obs { return Obs{State: OK, X: x, Margins: margins} }

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
		return d
	}
	return reflect.DeepEqual(clean(a), clean(b))
}

// η and h² against hand computation:
//
//	k = 2, α = 0.05, n0 = 5:  2α/(k−1) = 0.1; 0.1^(−2/4) = √10 = 3.16228;
//	                          η = ½(3.16228 − 1) = 1.08114; h² = 2·1.08114·4 = 8.64911
//	k = 3, α = 0.05, n0 = 3:  2α/(k−1) = 0.05; 0.05^(−2/2) = 20; η = 9.5; h² = 2·9.5·2 = 38
//	k = 10, α = 0.05, n0 = 10: 0.1/9 = 0.011111; ln 0.011111 = −4.49981, × (−2/9) = 0.99996,
//	                          e^0.99996 = 2.71817; η = 0.859085; h² = 2·0.859085·9 = 15.4635
//	k = 5, α = 0.1, n0 = 4:   0.2/4 = 0.05; 0.05^(−2/3) = 7.36806; η = 3.18403; h² = 19.1042
func TestH2(t *testing.T) {
	for _, c := range []struct {
		k, n0 int
		conf  float64
		want  float64
	}{
		{2, 5, 0.95, 2 * 4 * 0.5 * (math.Sqrt(10) - 1)},
		{2, 5, 0.95, 8.64911},
		{3, 3, 0.95, 38},
		{10, 10, 0.95, 15.4635},
		{5, 4, 0.90, 19.1042},
		{1, 5, 0.95, 0}, // one point: nothing to compare
	} {
		xs := make([][]float64, c.k)
		for i := range xs {
			for j := range c.n0 {
				xs[i] = append(xs[i], float64(i*j+j*j)) // any values: h² does not depend on them
			}
		}
		p := Problem{Goal: Min, Delta: 1, Points: points(xs...), Config: Config{Confidence: c.conf, Initial: c.n0}}
		d := Decide(p)
		if math.Abs(d.H2-c.want) > 5e-5*math.Max(1, c.want) {
			t.Errorf("k %d n0 %d confidence %g: H2 = %.6f, want %.6f", c.k, c.n0, c.conf, d.H2, c.want)
		}
	}
}

// A three-point problem worked by hand through two rounds. k = 3, α = 0.05, n0 = 3,
// δ = 2, so h² = 38 (TestH2) and h²/δ² = 9.5.
//
//	        rep 0  1  2 | 3    first-stage mean
//	A          10 12 11 | 11   11
//	B          12 13 14 | 13   13
//	C          20 21 22 | -    21
//
// S²: A−B = (−2, −1, −3): mean −2, S² = (0 + 1 + 1)/2 = 1; A−C = (−10, −9, −11): S² = 1;
// B−C = (−8, −8, −8): S² = 0. N_AB = N_AC = ⌊9.5·1⌋ = 9, N_BC = 0; N_A = N_B = N_C = 9;
// FixedJobs = 3 × max(3, 9 + 1) = 30.
//
// Round 0 (r = 3): W_AB = W_AC = 2/6·(9.5 − 3) = 2.1667, W_BC = max(0, 2/6·(0 − 3)) = 0.
// C (21) is worse than A (11) by more than 2.1667 and than B (13) by more than 0: it
// leaves, eliminated by A, the better of the two. B is 2 above A, within 2.1667: stays.
// r = 3 < max N + 1 = 10: A and B need replicate 3.
//
// Round 1 (r = 4): A's mean 44/4 = 11, B's 52/4 = 13; W_BA = 2/8·(9.5 − 4) = 1.375 < 2:
// B leaves (by A), A is the one survivor. Jobs = 3·3 + 2 = 11.
func TestHandWorked(t *testing.T) {
	a := []float64{10, 12, 11, 11}
	b := []float64{12, 13, 14, 13}
	c := []float64{20, 21, 22}
	cfg := Config{Confidence: 0.95, Initial: 3, MaxJobs: 100}
	labels := []string{"A", "B", "C"}
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		pts    []Point
		want   Decision
		negate bool // the same problem as a max goal over −X
	}{
		{
			name: "first stage incomplete",
			pts:  points(a[:2], b[:3], c[:1]),
			want: Decision{State: Running, Why: "waiting for 3 jobs of the first stage", Best: -1,
				Survivors: []int{0, 1, 2}, Eliminated: []Elimination{}, Need: []Need{{0, 2}, {2, 1}, {2, 2}},
				Delta: 2, Confidence: 0.95, Means: []float64{nan, nan, nan}, Used: []int{0, 0, 0},
				Feasible: []int{1, 1, 1}, Labels: labels},
		},
		{
			name: "round 0",
			pts:  points(a[:3], b[:3], c),
			want: Decision{State: Running, Why: "waiting for 2 jobs of round 1", Stage: 3, Round: 0, Best: 0,
				Survivors:  []int{0, 1},
				Eliminated: []Elimination{{Point: 2, Round: 0, Reason: "worse than A beyond the noise of their paired differences", By: 0}},
				Need:       []Need{{0, 3}, {1, 3}}, Jobs: 9, Delta: 2, Confidence: 0.95, H2: 38, FixedJobs: 30,
				Means: []float64{11, 13, 21}, Used: []int{3, 3, 3}, Feasible: []int{1, 1, 1}, Labels: labels},
		},
		{
			name: "round 1 half committed",
			pts:  points(a[:3], b, c),
			want: Decision{State: Running, Why: "waiting for 1 job of round 1", Stage: 3, Round: 0, Best: 0,
				Survivors:  []int{0, 1},
				Eliminated: []Elimination{{Point: 2, Round: 0, Reason: "worse than A beyond the noise of their paired differences", By: 0}},
				Need:       []Need{{0, 3}}, Jobs: 9, Delta: 2, Confidence: 0.95, H2: 38, FixedJobs: 30,
				Means: []float64{11, 13, 21}, Used: []int{3, 3, 3}, Feasible: []int{1, 1, 1}, Labels: labels},
		},
		{
			name: "round 1",
			pts:  points(a, b, c),
			want: Decision{State: Decided, Why: "one point survived", Stage: 4, Round: 1, Best: 0,
				Survivors: []int{0},
				Eliminated: []Elimination{
					{Point: 2, Round: 0, Reason: "worse than A beyond the noise of their paired differences", By: 0},
					{Point: 1, Round: 1, Reason: "worse than A beyond the noise of their paired differences", By: 0},
				},
				Need: []Need{}, Jobs: 11, Delta: 2, Confidence: 0.95, H2: 38, FixedJobs: 30,
				Means: []float64{11, 13, 21}, Used: []int{4, 4, 3}, Feasible: []int{1, 1, 1}, Labels: labels},
		},
		{
			name: "round 1, max goal", negate: true,
			pts: points(a, b, c),
			want: Decision{State: Decided, Why: "one point survived", Stage: 4, Round: 1, Best: 0,
				Survivors: []int{0},
				Eliminated: []Elimination{
					{Point: 2, Round: 0, Reason: "worse than A beyond the noise of their paired differences", By: 0},
					{Point: 1, Round: 1, Reason: "worse than A beyond the noise of their paired differences", By: 0},
				},
				Need: []Need{}, Jobs: 11, Delta: 2, Confidence: 0.95, H2: 38, FixedJobs: 30,
				Means: []float64{-11, -13, -21}, Used: []int{4, 4, 3}, Feasible: []int{1, 1, 1}, Labels: labels},
		},
		{
			// A replicate 3 of C (it left in round 0) and replicates beyond round 1 change
			// nothing.
			name: "extra replicates",
			pts:  points(append(slices.Clone(a), 0, 0), append(slices.Clone(b), -50), append(slices.Clone(c), -100, -100)),
			want: Decision{State: Decided, Why: "one point survived", Stage: 4, Round: 1, Best: 0,
				Survivors: []int{0},
				Eliminated: []Elimination{
					{Point: 2, Round: 0, Reason: "worse than A beyond the noise of their paired differences", By: 0},
					{Point: 1, Round: 1, Reason: "worse than A beyond the noise of their paired differences", By: 0},
				},
				Need: []Need{}, Jobs: 11, Delta: 2, Confidence: 0.95, H2: 38, FixedJobs: 30,
				Means: []float64{11, 13, 21}, Used: []int{4, 4, 3}, Feasible: []int{1, 1, 1}, Labels: labels},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Problem{Goal: Min, Delta: 2, Config: cfg, Points: tc.pts}
			if tc.negate {
				p.Goal = Max
				for i := range p.Points {
					for j := range p.Points[i].Reps {
						p.Points[i].Reps[j].X *= -1
					}
				}
			}
			d := Decide(p)
			if math.Abs(d.H2-tc.want.H2) > 1e-9 {
				t.Errorf("H2 = %.12g, want %g", d.H2, tc.want.H2)
			}
			d.H2 = tc.want.H2
			if !same(d, tc.want) {
				t.Errorf("Decide =\n%+v\nwant\n%+v", d, tc.want)
			}
		})
	}
}

// Two points with S² = 1 and equal means throughout: k = 2, n0 = 5, δ = 1, h² = 8.64911,
// N = ⌊8.64911⌋ = 8, so the procedure stops at r = 9 with both points left (W_il(9) =
// max(0, 1/18·(8.64911 − 9)) = 0 and equal means eliminate nobody): Best is the earlier.
// With B one hundredth higher in replicate 8, W = 0 lets the difference of means
// 0.01/9 > 0 decide: B leaves in round 4. In round 3 (r = 8), W = 1/16·(8.64911 − 8) =
// 0.0406 keeps a difference of means 0.04/8 = 0.005.
func TestStopsAtNPlusOne(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 7, 7, 7, 7}
	b := []float64{2, 1, 4, 3, 5, 7, 7, 7.04, 7}
	cfg := Config{Confidence: 0.95, Initial: 5, MaxJobs: 1000}
	d := Decide(Problem{Goal: Min, Delta: 1, Config: cfg, Points: points(a[:8], b[:8])})
	if d.State != Running || d.Stage != 8 || !reflect.DeepEqual(d.Need, []Need{{0, 8}, {1, 8}}) || d.FixedJobs != 18 {
		t.Fatalf("before r = 9: %+v", d)
	}
	b[7] = 7
	d = Decide(Problem{Goal: Min, Delta: 1, Config: cfg, Points: points(a, b)})
	if d.State != Decided || d.Best != 0 || d.Stage != 9 || d.Round != 4 || d.Jobs != 18 ||
		!reflect.DeepEqual(d.Survivors, []int{0, 1}) || len(d.Eliminated) != 0 ||
		d.Why != "the 2 remaining points are within the indifference of each other" {
		t.Errorf("tie at r = 9: %+v", d)
	}
	b[8] = 7.01
	d = Decide(Problem{Goal: Min, Delta: 1, Config: cfg, Points: points(a, b)})
	if d.State != Decided || d.Best != 0 || d.Stage != 9 ||
		!reflect.DeepEqual(d.Eliminated, []Elimination{{Point: 1, Round: 4, Reason: "worse than A beyond the noise of their paired differences", By: 0}}) {
		t.Errorf("0.01 at r = 9: %+v", d)
	}
}

// Every point gives the same values: every S² is 0, so N = 0 and W = 0, nobody is
// better than anybody, and the procedure decides after the first stage for the first
// point. With a percent indifference and every value 0 too.
func TestIdentical(t *testing.T) {
	x := []float64{3, 1, 4, 1, 5}
	zero := []float64{0, 0, 0, 0, 0}
	for _, c := range []struct {
		name string
		p    Problem
	}{
		{"absolute", Problem{Goal: Min, Delta: 0.5, Points: points(x, x, x, x)}},
		{"percent, max", Problem{Goal: Max, DeltaPercent: 5, Points: points(x, x, x, x)}},
		{"percent, all zero", Problem{Goal: Min, DeltaPercent: 5, Points: points(zero, zero, zero, zero)}},
	} {
		d := Decide(c.p)
		if d.State != Decided || d.Best != 0 || d.Stage != 5 || d.Jobs != 20 || len(d.Survivors) != 4 ||
			d.FixedJobs != 20 || !(d.Delta > 0) || d.Why != "the 4 remaining points are within the indifference of each other" {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
}

// A percent indifference resolves from the best first-stage mean by goal, then the
// largest |mean| when that is 0.
func TestPercentDelta(t *testing.T) {
	for _, c := range []struct {
		name string
		goal Goal
		xs   [][]float64
		want float64
	}{
		{"min", Min, [][]float64{{10, 12, 14}, {20, 22, 24}}, 0.6},          // 5% of 12
		{"max", Max, [][]float64{{10, 12, 14}, {20, 22, 24}}, 1.1},          // 5% of 22
		{"min negative", Min, [][]float64{{-10, -12, -14}, {1, 1, 1}}, 0.6}, // 5% of |−12|
		{"best is 0", Min, [][]float64{{-1, 0, 1}, {40, 40, 40}}, 2},        // 5% of 40
		{"every mean 0", Min, [][]float64{{-1, 0, 1}, {-8, 0, 8}}, 0.4},     // 5% of |8|
	} {
		p := Problem{Goal: c.goal, DeltaPercent: 5, Config: Config{Initial: 3}, Points: points(c.xs...)}
		p.Points = append(p.Points, Point{Label: "failed", Reps: []Obs{{State: Failed, Err: "x"}}})
		if d := Decide(p); !near(d.Delta, c.want) {
			t.Errorf("%s: Delta = %g, want %g", c.name, d.Delta, c.want)
		}
	}
	// The percent is 0 until the first stage is complete.
	if d := Decide(Problem{Goal: Min, DeltaPercent: 5, Points: points([]float64{1})}); d.Delta != 0 || d.State != Running {
		t.Errorf("percent before the first stage: %+v", d)
	}
}

// k = 1: the point is decided after its first stage; with a constraint it must first be
// known feasible.
func TestOnePoint(t *testing.T) {
	d := Decide(Problem{Goal: Min, Delta: 1, Points: points([]float64{5, 6, 7, 8})})
	if d.State != Running || !reflect.DeepEqual(d.Need, []Need{{0, 4}}) {
		t.Errorf("k = 1, 4 of 5: %+v", d)
	}
	d = Decide(Problem{Goal: Min, Delta: 1, Points: points([]float64{5, 6, 7, 8, 9, 10})})
	if d.State != Decided || d.Best != 0 || d.Stage != 5 || d.Jobs != 5 || d.FixedJobs != 5 || d.H2 != 0 ||
		d.Why != "there is only one point" || d.Means[0] != 7 {
		t.Errorf("k = 1: %+v", d)
	}
	// drops <= 0 with one drop (replicate 4) among r: m = 1/r, s = 1/√r, h = t/r, so
	// m + h = (1 + t)/r > 0 and m − h < 0 at every r: never known, the point samples
	// alone until the budget (10 × 1 × 5).
	le := []Constraint{{Text: "drops <= 0", Sense: constraint.LE}}
	p := Problem{Goal: Min, Delta: 1, Constraints: le, Points: []Point{{Label: "only"}}}
	for j := range 50 {
		m := 0.0
		if j == 4 {
			m = 1
		}
		p.Points[0].Reps = append(p.Points[0].Reps, ok(7, m))
	}
	d = Decide(p)
	if d.State != Budget || d.Best != 0 || d.Jobs != 50 || d.Feasible[0] != 0 {
		t.Errorf("k = 1, a drop in replicate 4: %+v", d)
	}
}

// A "drops == 0" constraint: a point that drops in every replicate is found infeasible
// in round 0 and eliminates nobody though its objective is best by far; a point whose
// drops are not yet decided keeps sampling and eliminates nobody either; the budget
// stop then names the best known-feasible point.
func TestFeasibility(t *testing.T) {
	eq := []Constraint{{Text: "drops_lossless == 0", Sense: constraint.EQ}}
	mk := func(label string, x, drops []float64) Point {
		pt := Point{Label: label}
		for j := range x {
			pt.Reps = append(pt.Reps, ok(x[j], drops[j]))
		}
		return pt
	}
	zeros := []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	t.Run("infeasible in round 0", func(t *testing.T) {
		// Drops 3 5 2 4 6: mean 4, s = 1.581, h = 2.776·1.581/√5 = 1.963: [2.04, 5.96]
		// excludes 0.
		p := Problem{Goal: Min, Delta: 1, Constraints: eq, Points: []Point{
			mk("lossy", []float64{1, 1, 1, 1, 1}, []float64{3, 5, 2, 4, 6}),
			mk("B", []float64{10, 11, 10, 11, 10}, zeros),
			mk("C", []float64{20, 21, 20, 21, 20}, zeros),
		}}
		d := Decide(p)
		want := []Elimination{
			{Point: 0, Round: 0, Reason: "infeasible: drops_lossless == 0", By: -1},
			{Point: 2, Round: 0, Reason: "worse than B beyond the noise of their paired differences", By: 1},
		}
		if d.State != Decided || d.Best != 1 || !reflect.DeepEqual(d.Eliminated, want) ||
			!reflect.DeepEqual(d.Feasible, []int{-1, 1, 1}) {
			t.Errorf("%+v", d)
		}
	})
	t.Run("noisy drops", func(t *testing.T) {
		// "noisy" drops once (replicate 1): m = 2/r, h = t·2/r > m at every r, so its
		// interval always holds 0 and it is never known feasible nor infeasible; B is
		// known feasible and worse, and noisy, best but unknown, eliminates nobody.
		noisy := Point{Label: "noisy"}
		b := Point{Label: "B"}
		for j := range 40 {
			drops := 0.0
			if j == 1 {
				drops = 2
			}
			noisy.Reps = append(noisy.Reps, ok(1+0.1*float64(j%2), drops))
			b.Reps = append(b.Reps, ok(10+0.1*float64(j%3), 0))
		}
		p := Problem{Goal: Min, Delta: 1, Constraints: eq, Config: Config{MaxJobs: 60}, Points: []Point{noisy, b}}
		d := Decide(p)
		if d.State != Budget || d.Best != 1 || len(d.Eliminated) != 0 || d.Jobs != 60 || d.Stage != 30 ||
			!reflect.DeepEqual(d.Feasible, []int{0, 1}) ||
			d.Why != "the budget of 60 jobs would be exceeded by round 26 (2 survivors, 1 of unknown feasibility)" {
			t.Errorf("%+v", d)
		}
		// Each call of the way there asks for the next replicate of both.
		p.Points[0].Reps, p.Points[1].Reps = noisy.Reps[:12], b.Reps[:12]
		d = Decide(p)
		if d.State != Running || !reflect.DeepEqual(d.Need, []Need{{0, 12}, {1, 12}}) {
			t.Errorf("at 12: %+v", d)
		}
	})
	t.Run("all infeasible", func(t *testing.T) {
		p := Problem{Goal: Min, Delta: 1, Constraints: eq, Points: []Point{
			mk("A", []float64{1, 1, 1, 1, 1}, []float64{3, 5, 2, 4, 6}),
			mk("B", []float64{2, 2, 2, 2, 2}, []float64{1, 1, 1, 1, 1}),
			{Label: "C", Reps: []Obs{{State: Failed, Err: "timeout"}}},
		}}
		d := Decide(p)
		if d.State != Infeasible || d.Best != -1 || len(d.Survivors) != 0 || len(d.Eliminated) != 3 ||
			d.Why != "every point is infeasible or failed (2 infeasible, 1 failed or without a value)" {
			t.Errorf("%+v", d)
		}
	})
}

// The senses of constraints: an interval wholly on the wrong side is infeasible, wholly
// on the right side known feasible. Margins m ± h with t(0.975, 4) = 2.776445.
func TestJudge(t *testing.T) {
	const tq = 2.776445
	pos := []float64{3, 5, 2, 4, 6}       // 4 ± 1.963
	neg := []float64{-3, -5, -2, -4, -6}  // −4 ± 1.963
	around := []float64{-1, 1, -1, 1, 0}  // 0 ± 1.242
	zero := []float64{0, 0, 0, 0, 0}      // 0 ± 0
	touch := []float64{0, 0.5, 1, 1.5, 2} // 1 ± 0.982: lower end 0.018
	ones := []float64{1, 1, 1, 1, 1}
	mixed := []float64{1, 0, 1, 1, 1}
	for _, c := range []struct {
		sense constraint.Sense
		ms    []float64
		want  int
	}{
		{constraint.LE, pos, -1}, {constraint.LE, neg, 1}, {constraint.LE, around, 0}, {constraint.LE, zero, 1},
		{constraint.LT, pos, -1}, {constraint.LT, neg, 1}, {constraint.LT, zero, -1}, {constraint.LT, touch, -1},
		{constraint.GE, pos, 1}, {constraint.GE, neg, -1}, {constraint.GE, zero, 1}, {constraint.GE, around, 0},
		{constraint.GT, pos, 1}, {constraint.GT, neg, -1}, {constraint.GT, zero, -1}, {constraint.GT, touch, 1},
		{constraint.EQ, pos, -1}, {constraint.EQ, neg, -1}, {constraint.EQ, zero, 1}, {constraint.EQ, around, 0},
		{constraint.NE, pos, 1}, {constraint.NE, neg, 1}, {constraint.NE, zero, -1}, {constraint.NE, around, 0},
		{constraint.Holds, ones, 1}, {constraint.Holds, zero, -1}, {constraint.Holds, mixed, 0},
	} {
		if got := judge(c.sense, c.ms, tq); got != c.want {
			t.Errorf("%v %v: %d, want %d", c.sense, c.ms, got, c.want)
		}
	}
}

// A failed job or a null value in a stage the point needs makes it leave in that round;
// it takes no part in S² or N (FixedJobs counts the others), and its jobs of that stage
// are not asked for.
func TestFailedAndNull(t *testing.T) {
	good := func(v float64) []Obs {
		return []Obs{ok(v), ok(v + 1), ok(v), ok(v + 1), ok(v)}
	}
	p := Problem{Goal: Min, Delta: 0.1, Metric: "fct_p99_usec", Points: []Point{
		{Label: "A", Reps: good(10)},
		{Label: "B", Reps: []Obs{ok(1), {State: Failed, Err: "timeout after 30s"}}},
		{Label: "C", Reps: good(12)},
		{Label: "D", Reps: []Obs{ok(1), ok(2), ok(1)}},
	}}
	d := Decide(p)
	if d.State != Running || !reflect.DeepEqual(d.Need, []Need{{3, 3}, {3, 4}}) ||
		!reflect.DeepEqual(d.Eliminated, []Elimination{{Point: 1, Round: 0, Reason: "failed: timeout after 30s", By: -1}}) {
		t.Errorf("first stage with a failure: %+v", d)
	}
	// D's replicate 4 is null, found in the first stage.
	p.Points[3].Reps = append(p.Points[3].Reps, ok(1), ok(math.NaN()))
	d = Decide(p)
	wantElim := []Elimination{
		{Point: 1, Round: 0, Reason: "failed: timeout after 30s", By: -1},
		{Point: 3, Round: 0, Reason: "no value of fct_p99_usec", By: -1},
		{Point: 2, Round: 0, Reason: "worse than A beyond the noise of their paired differences", By: 0},
	}
	// A and C differ by exactly 2 in every replicate: S² = 0, N = 0, FixedJobs = 2 × 5.
	if d.State != Decided || d.Best != 0 || !reflect.DeepEqual(d.Eliminated, wantElim) || d.FixedJobs != 10 ||
		d.Jobs != 5+2+5+5 || !reflect.DeepEqual(d.Used, []int{5, 2, 5, 5}) ||
		!math.IsNaN(d.Means[1]) || !math.IsNaN(d.Means[3]) || d.Means[0] != 10.4 {
		t.Errorf("failed and null: %+v", d)
	}
	// A null in a later round: A and C get S² > 0, C's replicate 5 is null.
	// S² = 0.5, δ = 0.5: N = ⌊8.64911·0.5/0.25⌋ = 17, W(5) = 0.615 keeps the tie.
	p = Problem{Goal: Min, Delta: 0.5, Points: points([]float64{10, 11, 10, 11, 10, 10}, []float64{10, 10, 11, 11, 10, math.NaN()})}
	d = Decide(p)
	if d.State != Decided || d.Best != 0 || d.Jobs != 12 ||
		!reflect.DeepEqual(d.Eliminated, []Elimination{{Point: 1, Round: 1, Reason: "no value (null)", By: -1}}) {
		t.Errorf("null in round 1: %+v", d)
	}
	// Every point failed.
	d = Decide(Problem{Goal: Max, Delta: 1, Points: []Point{{Reps: []Obs{{State: Failed}}}, {Reps: []Obs{{}, ok(math.Inf(1))}}}})
	if d.State != Infeasible || d.Best != -1 || d.FixedJobs != 0 || d.Jobs != 2 ||
		d.Eliminated[0].Reason != "failed" || d.Eliminated[1].Reason != "no value (null)" {
		t.Errorf("all failed: %+v", d)
	}
}

// The budget: the procedure stops before a round that would exceed MaxJobs, with the
// best survivor so far.
func TestBudget(t *testing.T) {
	// S²_AB = 4.8, S²_AC = S²_BC = 1.2, h² = 13.89 (k = 3, n0 = 5), δ = 0.1: N is in the
	// thousands and W far above the differences of the means. 15 jobs, round 1 makes 18,
	// round 2 would make 21 > 20.
	a := []float64{0, 2, 0, 2, 0, 2, 0, 2, 0, 2}
	b := []float64{2, 0, 2, 0, 2, 0, 2, 0, 2, 0.5}
	c := []float64{0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9}
	p := Problem{Goal: Min, Delta: 0.1, Config: Config{MaxJobs: 20}, Points: points(a, b, c)}
	d := Decide(p)
	if d.State != Budget || d.Stage != 6 || d.Jobs != 18 || d.Best != 2 || len(d.Survivors) != 3 ||
		d.Why != "the budget of 20 jobs would be exceeded by round 2 (3 survivors)" {
		t.Errorf("%+v", d)
	}
	// Best is the best mean so far: over 6 replicates A 1, B 1, C 0.9; over 10 with B's
	// replicate 6 at −10, B −0.15.
	p.Config.MaxJobs = 2000
	p.Points[1].Reps[6].X = -10
	d = Decide(p)
	if d.State != Running || d.Best != 1 || d.Stage != 10 || d.Jobs != 30 {
		t.Errorf("big budget: %+v", d)
	}
	if got := thousands(1234567); got != "1,234,567" {
		t.Errorf("thousands = %q", got)
	}
}

// Validate refuses what Decide cannot run, and Decide panics on it.
func TestValidate(t *testing.T) {
	good := Problem{Goal: Min, Delta: 1, Points: points([]float64{1})}
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
		{"delta", func(p *Problem) { p.Delta = 0 }, "indifference"},
		{"negative percent", func(p *Problem) { p.DeltaPercent = -1 }, "percent"},
		{"delta NaN", func(p *Problem) { p.Delta = math.NaN() }, "indifference"},
		{"sense", func(p *Problem) { p.Constraints = []Constraint{{Text: "x", Sense: 9}} }, "sense"},
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
