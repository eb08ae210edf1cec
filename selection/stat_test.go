package selection

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/question"
)

// model is a synthetic job function in place of the simulator: replicate j of point i
// is normal with mean mu[i] and standard deviation sigma; a share crn of its variance
// is a common component Z_j that every point's replicate j shares (common random
// numbers), the rest independent. Every value is a pure function of (seed, i, j), so
// any order of running the jobs gives the same results, as the simulator's seeded
// replicates do.
type model struct {
	mu    []float64
	sigma float64
	crn   float64 // 0 independent; in [0, 1)
	seed  uint64
}

func normal(seed, stream uint64) float64 { return rand.New(rand.NewPCG(seed, stream)).NormFloat64() }

func (m model) job(i, j int) Obs {
	e := normal(m.seed, uint64(i)<<32|uint64(j))
	z := 0.0
	if m.crn > 0 {
		z = normal(m.seed, 1<<63|uint64(j))
	}
	return ok(m.mu[i] + m.sigma*(math.Sqrt(m.crn)*z+math.Sqrt(1-m.crn)*e))
}

// commit stores o as replicate j of point i.
func commit(p *Problem, i, j int, o Obs) {
	reps := &p.Points[i].Reps
	for len(*reps) <= j {
		*reps = append(*reps, Obs{State: Missing})
	}
	(*reps)[j] = o
}

// drive runs a selection as a runner would: Decide, run what it needs, commit, again.
// It returns the final decision and the calls it took.
func drive(p *Problem, job func(i, j int) Obs) (Decision, int) { return driveAhead(p, job, 0) }

// driveAhead is drive with each point it needs also run ahead replicates further (as an
// earlier session or another shard may have): the procedure ignores replicates it has
// not reached (TestReplayPurity), so the decision is drive's, in fewer calls.
func driveAhead(p *Problem, job func(i, j int) Obs, ahead int) (Decision, int) {
	for calls := 1; ; calls++ {
		d := Decide(*p)
		if d.State != Running {
			return d, calls
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

type study struct {
	pcs  float64 // fraction of macro-replications that selected a point within δ of the best
	jobs float64 // mean jobs
	kn   float64 // mean FixedJobs
}

// macro runs reps macro-replications of a min selection over means mu with indifference
// delta and returns the fraction that selected a point whose mean is less than δ above
// the best one, and the mean number of jobs.
func macro(t *testing.T, mu []float64, delta, sigma, crn float64, cfg question.Config, reps int, seed uint64) study {
	t.Helper()
	best := mu[0]
	for _, m := range mu {
		best = min(best, m)
	}
	var s study
	for rep := range reps {
		m := model{mu: mu, sigma: sigma, crn: crn, seed: seed + uint64(rep)}
		p := Problem{Goal: question.Min, Delta: delta, Config: cfg, Points: make([]Point, len(mu))}
		d, _ := driveAhead(&p, m.job, 15)
		if d.State != Decided {
			t.Fatalf("macro-replication %d: %s (%s)", rep, d.State, d.Why)
		}
		if mu[d.Best]-best < delta {
			s.pcs++
		}
		s.jobs += float64(d.Jobs)
		s.kn += float64(d.FixedJobs)
	}
	s.pcs /= float64(reps)
	s.jobs /= float64(reps)
	s.kn /= float64(reps)
	return s
}

// KN's guarantee: with the best point at least δ better than every other, it is
// selected with probability at least the confidence. Two configurations of k = 10
// points, σ = 1, δ = 0.5σ, n0 = 10, 400 macro-replications each:
//   - slippage, the least favourable configuration: the best (point 4) at 0, every
//     other at exactly δ;
//   - increasing means: point i at (9 − i)·δ, the best last (ties cannot favour it).
//
// The selection must be correct in at least 95% of them (independent noise: the
// hardest case for KN's S², no help from common random numbers).
func TestProbabilityOfCorrectSelection(t *testing.T) {
	const k, delta, reps = 10, 0.5, 400
	cfg := question.Config{Confidence: 0.95, Initial: 10, MaxJobs: 1 << 30}
	slip := make([]float64, k)
	inc := make([]float64, k)
	for i := range k {
		slip[i] = delta
		inc[i] = float64(k-1-i) * delta
	}
	slip[4] = 0
	for _, c := range []struct {
		name string
		mu   []float64
		seed uint64
	}{
		{"slippage", slip, 1_000},
		{"increasing means", inc, 2_000},
	} {
		s := macro(t, c.mu, delta, 1, 0, cfg, reps, c.seed)
		t.Logf("%s: PCS %.4f, mean jobs %.1f (a fixed design of equal confidence: %.1f)", c.name, s.pcs, s.jobs, s.kn)
		if s.pcs < 0.95 {
			t.Errorf("%s: PCS %.4f < 0.95", c.name, s.pcs)
		}
	}
}

// Common random numbers: with 90% of the variance shared by every point's replicate j,
// S²_il (the variance of differences) is a tenth of what independent noise of the same
// marginal variance gives, and the procedure needs far fewer jobs for the same
// guarantee.
//
// The guarantee is checked over 200 macro-replications. Independent noise gives only the
// baseline of jobs, 50 macro-replications: their mean (about 400 jobs, against about 100
// with common random numbers) is within 5% over 50 of them, far from the factor of 2
// asserted, and they cost four times a CRN macro-replication each.
func TestCommonRandomNumbers(t *testing.T) {
	const k, delta, reps, baseline = 10, 0.5, 200, 50
	cfg := question.Config{Confidence: 0.95, Initial: 10, MaxJobs: 1 << 30}
	mu := make([]float64, k)
	for i := range k {
		mu[i] = delta
	}
	mu[4] = 0
	ind := macro(t, mu, delta, 1, 0, cfg, baseline, 3_000)
	crn := macro(t, mu, delta, 1, 0.9, cfg, reps, 3_000)
	t.Logf("independent: PCS %.4f, mean jobs %.1f; CRN (90%% shared): PCS %.4f, mean jobs %.1f", ind.pcs, ind.jobs, crn.pcs, crn.jobs)
	if crn.pcs < 0.95 {
		t.Errorf("CRN: PCS %.4f < 0.95", crn.pcs)
	}
	if !(crn.jobs < 0.5*ind.jobs) {
		t.Errorf("CRN: mean jobs %.1f, not below half of independent noise's %.1f", crn.jobs, ind.jobs)
	}
}

// scenario is a synthetic study for macro-replications: a job function of (seed, point,
// replicate), the true means, and the indifference.
type scenario struct {
	name  string
	mu    []float64 // true means (min goal)
	delta float64
	cfg   question.Config
	job   func(seed uint64, i, j int) Obs
}

// pcs runs reps macro-replications of s and returns the share that selected a point
// whose true mean is less than δ above the best, and the mean jobs spent.
func (s scenario) pcs(t *testing.T, reps int, seed uint64) (float64, float64) {
	t.Helper()
	best := slices.Min(s.mu)
	var right, jobs float64
	for rep := range reps {
		sd := seed + uint64(rep)
		p := Problem{Goal: question.Min, Delta: s.delta, Config: s.cfg, Points: make([]Point, len(s.mu))}
		d, _ := driveAhead(&p, func(i, j int) Obs { return s.job(sd, i, j) }, 15)
		if d.State == Decided && s.mu[d.Best]-best < s.delta {
			right++
		}
		jobs += float64(d.Jobs)
	}
	return right / float64(reps), jobs / float64(reps)
}

// uniform is a U(0, 1) draw that is a pure function of its arguments.
func uniform(seed, stream uint64) float64 { return rand.New(rand.NewPCG(seed, stream)).Float64() }

// The failure modes of PFC's outputs (issue: "a guarantee that holds"), each a study on
// which the procedure as first built (KN with first-stage variances, zero variances
// taken as resolved) stated 95% and was right far less often: over these 200
// macro-replications each, rare sticky outcome 16.0%, exact ties 23.5%, heavy tails
// 89.0% (docs/statistics.md §6). The share right must be at least the stated 95%.
//
//   - rare sticky outcome: a pause time that is 0 in most runs. "sticky" is listed
//     first and sticks in a pause (about 1000 µs) in 3.6% of runs: true mean 36; A and
//     C never pause (0); B always pauses a little (50 ± 5). δ = 10. A first stage of
//     zeros ties sticky with A and C, and plan order picks sticky.
//   - exact ties: B is A plus a 30 µs stall in 5% of runs (true mean 1.5 above A,
//     δ = 1), listed first; A's and B's runs are otherwise equal, replicate by
//     replicate (common random numbers).
//   - heavy tails: ten points in the slippage configuration (the best at 0, the others
//     at δ = 0.5) with noise N(0, 1) in 90% of runs and N(0, 5²) in 10% (excess
//     kurtosis 13.5), independent between points, with the spec's first stage of 5.
func TestFailureModes(t *testing.T) {
	const reps = 200
	stall := func(seed, stream uint64, p float64) bool { return uniform(seed, stream) < p }
	slip := make([]float64, 10)
	for i := range slip {
		slip[i] = 0.5
	}
	slip[4] = 0
	for _, s := range []scenario{
		{
			name: "rare sticky outcome", mu: []float64{36, 0, 50, 0}, delta: 10, cfg: question.Config{Initial: 5, MaxJobs: 1 << 30},
			job: func(seed uint64, i, j int) Obs {
				switch i {
				case 0:
					if stall(seed, uint64(j), 0.036) {
						return ok(1000 + 100*normal(seed, 1<<40|uint64(j)))
					}
					return ok(0)
				case 2:
					return ok(50 + 5*normal(seed, 2<<40|uint64(j)))
				}
				return ok(0)
			},
		},
		{
			name: "exact ties", mu: []float64{11.5, 10}, delta: 1, cfg: question.Config{Initial: 5, MaxJobs: 1 << 30},
			job: func(seed uint64, i, j int) Obs {
				x := 10 + normal(seed, uint64(j)) // shared by both points
				if i == 0 && stall(seed, 1<<40|uint64(j), 0.05) {
					x += 30
				}
				return ok(x)
			},
		},
		{
			name: "heavy tails", mu: slip, delta: 0.5, cfg: question.Config{Initial: 5, MaxJobs: 1 << 30},
			job: func(seed uint64, i, j int) Obs {
				sd := 1.0
				if stall(seed, 1<<40|uint64(i)<<20|uint64(j), 0.1) {
					sd = 5
				}
				return ok(slip[i] + sd*normal(seed, uint64(i)<<20|uint64(j)))
			},
		},
	} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			got, jobs := s.pcs(t, reps, 7_000)
			t.Logf("%s: right in %.1f%% of %d macro-replications, %.0f jobs each on average", s.name, 100*got, reps, jobs)
			if got < 0.95 {
				t.Errorf("%s: right in %.1f%% < 95%%", s.name, 100*got)
			}
		})
	}
}

// A selection on a secondary objective (Problem.Near): among the points within δ₁ = 1
// (tolerance 0.5) of the best on the primary, the best on the secondary (δ₂ = 1). Means
// (primary, secondary): A (10, 5) is best on the primary but poor on the secondary; B
// (10.5, 1) the answer; C (13, 0) is best on the secondary but far on the primary, the
// trap a plain selection on the secondary falls into; D (10.2, 3). Noise N(0, 1) on
// each metric, half of it common to every point's replicate j. The share that selects
// B must be at least the stated 95%, over 200 macro-replications.
func TestSecondaryObjective(t *testing.T) {
	mu1 := []float64{10, 10.5, 13, 10.2}
	mu2 := []float64{5, 1, 0, 3}
	const reps = 200
	job := func(seed uint64, i, j int) Obs {
		c1, c2 := normal(seed, 1<<50|uint64(j)), normal(seed, 2<<50|uint64(j))
		e1, e2 := normal(seed, uint64(i)<<20|uint64(j)), normal(seed, 1<<45|uint64(i)<<20|uint64(j))
		o := ok(mu2[i] + math.Sqrt(0.5)*(c2+e2))
		o.Near = mu1[i] + math.Sqrt(0.5)*(c1+e1)
		return o
	}
	var right, jobs float64
	for rep := range reps {
		seed := uint64(11_000 + rep)
		p := Problem{Goal: question.Min, Delta: 1, Config: question.Config{Initial: 10, MaxJobs: 1 << 20},
			Near: &Near{Metric: "primary", Goal: question.Min, Delta: 1}, Points: make([]Point, 4)}
		d, _ := driveAhead(&p, func(i, j int) Obs { return job(seed, i, j) }, 15)
		if d.State == Decided && d.Best == 1 {
			right++
		}
		jobs += float64(d.Jobs)
	}
	t.Logf("secondary objective: B selected in %.1f%% of %d macro-replications, %.0f jobs each on average", 100*right/reps, reps, jobs/reps)
	if right/reps < 0.95 {
		t.Errorf("B selected in %.1f%% < 95%%", 100*right/reps)
	}
}

// A Pareto objective (Problem.Pareto) over two metrics, both smaller better, each with
// indifference 0.5. Means: A (1, 5), B (2, 2), C (5, 1) make the front; D (3, 3) is
// beaten by B by 1 on both; E (1.05, 5.05) is beaten by A by less than the indifference,
// so it may be in the front or not. Noise N(0, 0.5²) on each metric, half of it common
// to every point's replicate j. Right: the front holds A, B and C and not D. It must be
// right in at least the stated 95% of 200 macro-replications.
func TestParetoFront(t *testing.T) {
	mu := [][2]float64{{1, 5}, {2, 2}, {5, 1}, {3, 3}, {1.05, 5.05}}
	const reps = 200
	job := func(seed uint64, i, j int) Obs {
		o := ok(0)
		for m := range 2 {
			c := normal(seed, uint64(m+1)<<50|uint64(j))
			e := normal(seed, uint64(m+1)<<45|uint64(i)<<20|uint64(j))
			o.Vec = append(o.Vec, mu[i][m]+0.5*math.Sqrt(0.5)*(c+e))
		}
		return o
	}
	var right, jobs float64
	for rep := range reps {
		seed := uint64(13_000 + rep)
		p := Problem{Goal: question.Min, Config: question.Config{Initial: 10, MaxJobs: 1 << 20},
			Pareto: []Objective2{{Metric: "a", Goal: question.Min, Delta: 0.5}, {Metric: "b", Goal: question.Min, Delta: 0.5}}, Points: make([]Point, len(mu))}
		d, _ := driveAhead(&p, func(i, j int) Obs { return job(seed, i, j) }, 15)
		in := func(i int) bool { return slices.Contains(d.Front, i) }
		if d.State == Decided && in(0) && in(1) && in(2) && !in(3) {
			right++
		}
		jobs += float64(d.Jobs)
	}
	t.Logf("Pareto front: right in %.1f%% of %d macro-replications, %.0f jobs each on average", 100*right/reps, reps, jobs/reps)
	if right/reps < 0.95 {
		t.Errorf("right in %.1f%% < 95%%", 100*right/reps)
	}
}
