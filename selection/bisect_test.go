package selection

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// plain is subject_to [drops_lossless == 0] as the procedure sees it.
var plain = []Constraint{{Text: "drops_lossless == 0", Kind: constraint.EveryRun}}

// held is one run's observation: the plain condition held or not.
func held(ok bool) Obs {
	v := 0.0
	if ok {
		v = 1
	}
	return Obs{State: OK, X: 0, Values: []float64{v}}
}

// driveBisect runs a bisection to its end as the sweep's rounds do: decide, commit every job
// it needs from truth, decide again. It returns the last decision and the rounds run.
func driveBisect(t testing.TB, p BisectProblem, truth func(c, k, r int) Obs) (BisectDecision, int) {
	t.Helper()
	committed := map[[3]int]Obs{}
	p.Obs = func(c, k, r int) Obs {
		if o, ok := committed[[3]int{c, k, r}]; ok {
			return o
		}
		return Obs{State: Missing}
	}
	for round := 0; ; round++ {
		d := BisectDecide(p)
		if d.State != Running {
			return d, round
		}
		if round > 100000 {
			t.Fatalf("no end after %d rounds: %s", round, d.Why)
		}
		seen := map[[2]int]bool{}
		for _, n := range d.Need {
			key := [3]int{n.Cond, n.Step, n.Replicate}
			if _, dup := committed[key]; dup {
				t.Fatalf("round %d asks again for committed job %v", round, n)
			}
			if seen[[2]int{n.Cond, n.Seq}] {
				t.Fatalf("round %d: two jobs with condition %d's sequence number %d", round, n.Cond, n.Seq)
			}
			seen[[2]int{n.Cond, n.Seq}] = true
			committed[key] = truth(n.Cond, n.Step, n.Replicate)
		}
	}
}

// headroomBisect is the example: the smallest value in [0, 1MB] to 1 KB.
func headroomBisect() question.Bisect {
	return question.Bisect{Direction: question.Smallest, Attr: "switch.HeadRoomPerPortLimit", Column: "switch_HeadRoomPerPortLimit", Element: -1,
		From: 0, To: 1e6, Resolution: 1000, Deterministic: true, Checks: 1}
}

func steps(c BisectCondition) []string {
	var out []string
	for _, p := range c.Probes {
		v := "holds"
		if p.Verdict < 0 {
			v = "fails"
		}
		if p.Check {
			v += " (check)"
		}
		out = append(out, fmt.Sprintf("%g %s", p.Value, v))
	}
	return out
}

// A deterministic threshold at 12,345 B is found to 1 KB: 13 KB holds, 12 KB fails, in
// ⌈log2(range/resolution)⌉ + 1 = 11 probes and one check, one run each.
func TestBisectDeterministicThreshold(t *testing.T) {
	t.Parallel()
	b := headroomBisect()
	p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"Delay=1us"}}
	d, rounds := driveBisect(t, p, func(c, k, r int) Obs { return held(b.Value(k) >= 12345) })
	if b.Steps() != 1000 || b.BisectProbes() != 12 {
		t.Fatalf("steps %d, probes %d; want 1000 and 12 (1 + ⌈log2 1001⌉ + 1 check)", b.Steps(), b.BisectProbes())
	}
	c := d.Conditions[0]
	if d.State != Decided || c.State != CondAnswered {
		t.Fatalf("state %s / %s: %s", d.State, c.State, c.Why)
	}
	if got, want := b.Value(c.Answer), 13000.0; got != want {
		t.Errorf("answer %g, want %g", got, want)
	}
	if got, want := b.Value(c.Fails), 12000.0; got != want {
		t.Errorf("fails at %g, want %g", got, want)
	}
	want := []string{"1e+06 holds", "500000 holds", "250000 holds", "125000 holds", "62000 holds", "31000 holds", "15000 holds",
		"7000 fails", "11000 fails", "13000 holds", "12000 fails", "750000 holds (check)"}
	if got := steps(c); strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("probes:\n got %s\nwant %s", strings.Join(got, "; "), strings.Join(want, "; "))
	}
	if bisect := len(c.Probes) - 1; bisect != ceilLog2(1000)+1 {
		t.Errorf("%d bisection probes, want ⌈log2 1000⌉ + 1 = 11", bisect)
	}
	if c.Jobs != 12 || d.Jobs != 12 || rounds != 12 {
		t.Errorf("jobs %d (decision %d), rounds %d; want 12 each: one run a probe, one probe a round", c.Jobs, d.Jobs, rounds)
	}
	if d.PerProbe != 0 || d.MaxJobs != 12 {
		t.Errorf("deterministic: per-probe error %g (want 0), budget %d (want 12)", d.PerProbe, d.MaxJobs)
	}
}

// Largest: a NIC Xoff fraction in [0.5, 1] to 0.001 whose drops start above 0.9874:
// the answer is 0.987, 0.988 fails. Conditions are independent: one whose whole range
// holds answers its range's end, one that fails at its safe end has no answer.
func TestBisectLargestAndEnds(t *testing.T) {
	t.Parallel()
	b := question.Bisect{Direction: question.Largest, Attr: "nic.PfcStaticXoffThreshold[0]", Element: 0, From: 0.5, To: 1, Resolution: 0.001, Deterministic: true, Checks: 1}
	limit := []float64{0.9874, 2, 0.1}
	p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"x16", "x8", "x4"}}
	d, _ := driveBisect(t, p, func(c, k, r int) Obs { return held(b.Value(k) <= limit[c]) })
	if d.State != Decided {
		t.Fatalf("state %s: %s", d.State, d.Why)
	}
	c0, c1, c2 := d.Conditions[0], d.Conditions[1], d.Conditions[2]
	if c0.State != CondAnswered || math.Abs(b.Value(c0.Answer)-0.987) > 1e-12 || math.Abs(b.Value(c0.Fails)-0.988) > 1e-12 {
		t.Errorf("x16: %s, answer %g, fails %g; want answered, 0.987, 0.988", c0.State, b.Value(c0.Answer), b.Value(c0.Fails))
	}
	if c1.State != CondAnswered || c1.Answer != b.Steps() || c1.Fails != -1 || !strings.Contains(c1.Why, "whole range") {
		t.Errorf("x8: %s, answer step %d, fails %d (%s); want the range's end, %d, and no failure", c1.State, c1.Answer, c1.Fails, c1.Why, b.Steps())
	}
	if c2.State != CondNoneSafe || c2.Answer != -1 || len(c2.Probes) != 1 || c2.Why != "fails at the range's safe end, 0.5 (drops_lossless == 0 failed): no value of the range is safe" {
		t.Errorf("x4: %s, answer %d, %d probes: %s", c2.State, c2.Answer, len(c2.Probes), c2.Why)
	}
	if d.Why != "of 3 conditions: 2 answered, 1 with no safe value in the range" {
		t.Errorf("why: %s", d.Why)
	}
}

// A response that fails again in a window above the answer is reported, with the values,
// when the check lands in it; the answer bisection found is kept but flagged.
func TestBisectNonMonotone(t *testing.T) {
	t.Parallel()
	b := headroomBisect()
	p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"Delay=1us"},
		Format: func(v float64) string { return fmt.Sprintf("%gKB", v/1000) }}
	d, _ := driveBisect(t, p, func(c, k, r int) Obs {
		v := b.Value(k)
		return held(v >= 12345 && !(v >= 700000 && v <= 800000))
	})
	c := d.Conditions[0]
	if c.State != CondNonMonotone || b.Value(c.Answer) != 13000 {
		t.Fatalf("state %s, answer %g: %s", c.State, b.Value(c.Answer), c.Why)
	}
	want := "fails at 750KB (drops_lossless == 0 failed) though it holds at 500KB, further from the range's safe end"
	if c.Contradiction != want {
		t.Errorf("contradiction:\n got %s\nwant %s", c.Contradiction, want)
	}
	if d.State != Decided || d.Why != "of 1 condition: 1 non-monotone" {
		t.Errorf("decision %s: %s", d.State, d.Why)
	}
}

// With no check, the halving alone cannot contradict itself; with 3, the checks go to
// the widest skipped intervals on the safe side, nearest the answer among equals.
func TestBisectChecksPlacement(t *testing.T) {
	t.Parallel()
	b := headroomBisect()
	b.Checks = 3
	p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"c"}}
	d, _ := driveBisect(t, p, func(c, k, r int) Obs { return held(b.Value(k) >= 12345) })
	got := steps(d.Conditions[0])
	want := []string{"750000 holds (check)", "375000 holds (check)", "625000 holds (check)"}
	if strings.Join(got[11:], "; ") != strings.Join(want, "; ") {
		t.Errorf("checks: %s; want %s", strings.Join(got[11:], "; "), strings.Join(want, "; "))
	}
	b.Checks = 0
	p.Bisect = b
	d, _ = driveBisect(t, p, func(c, k, r int) Obs { return held(b.Value(k) >= 12345) })
	if n := len(d.Conditions[0].Probes); n != 11 {
		t.Errorf("no check: %d probes, want 11", n)
	}
}

// A failed job ends its condition with the reason; the others go on.
func TestBisectFailedJob(t *testing.T) {
	t.Parallel()
	b := headroomBisect()
	p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"a", "b"},
		Format: func(v float64) string { return fmt.Sprintf("%gKB", v/1000) }}
	d, _ := driveBisect(t, p, func(c, k, r int) Obs {
		if c == 1 && b.Value(k) == 250000 {
			return Obs{State: Failed, Err: "failed: out of memory"}
		}
		return held(b.Value(k) >= 12345)
	})
	if c := d.Conditions[1]; c.State != CondFailed || c.Why != "the job at 250KB, replicate 0, failed: failed: out of memory" {
		t.Errorf("b: %s: %s", c.State, c.Why)
	}
	if c := d.Conditions[0]; c.State != CondAnswered || b.Value(c.Answer) != 13000 {
		t.Errorf("a: %s, answer %g", c.State, b.Value(c.Answer))
	}
}

// A budget below the next round's needs stops with the answers found so far.
func TestBisectBudget(t *testing.T) {
	t.Parallel()
	b := headroomBisect()
	p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"a", "b"}, Config: question.Config{MaxJobs: 5}}
	d, rounds := driveBisect(t, p, func(c, k, r int) Obs { return held(b.Value(k) >= 12345) })
	if d.State != Budget || d.Jobs != 4 || rounds != 2 || d.Conditions[0].State != CondBudget {
		t.Errorf("state %s after %d jobs and %d rounds, condition %s: %s", d.State, d.Jobs, rounds, d.Conditions[0].State, d.Why)
	}
	if d.Why != "select.max_jobs 5 would be exceeded: 4 jobs used, the next probes need 2 more" {
		t.Errorf("why: %s", d.Why)
	}
}

// draw is a deterministic uniform on [0, 1) from its keys (each mixed by SplitMix64's
// finaliser), for synthetic runs that are a pure function of the seed, the value and
// the replicate.
func draw(keys ...int) float64 {
	var h uint64 = 0x9E3779B97F4A7C15
	for _, k := range keys {
		h ^= uint64(k) + 0x9E3779B97F4A7C15 + h<<6 + h>>2
		h ^= h >> 30
		h *= 0xBF58476D1CE4E5B9
		h ^= h >> 27
		h *= 0x94D049BB133111EB
		h ^= h >> 31
	}
	return float64(h>>11) / (1 << 53)
}

// TestBisectMacroReplications measures the stochastic bisection's probability of a
// right answer on synthetic jobs: a violation of the plain condition in a run at step v
// with probability p(v), falling with v; each macro-replication is a whole bisection of
// two conditions (the split covers both) with its own seed. An answer is right when
// the condition holds there within the tolerance zone (p(answer) < rare) and fails one
// step below (p > 0), for both conditions; a non-monotone report counts as wrong. The
// achieved share must reach the stated confidence (docs/statistics.md §12 records the
// figures).
func TestBisectMacroReplications(t *testing.T) {
	t.Parallel()
	const reps, rare, confidence = 200, 0.05, 0.95
	shapes := []struct {
		name string
		p    func(v float64) float64
		crn  bool // a run's draw depends on its replicate only (common random numbers)
	}{
		// 0.3 below 40, 0 from 40: the answer must be 40.
		{"cliff", func(v float64) float64 { return map[bool]float64{true: 0.3, false: 0}[v < 40] }, true},
		// 1% per step below 60: 56 to 60 are right (p < 5% and p one step below > 0).
		{"ramp", func(v float64) float64 { return max(0, 0.01*(60-v)) }, true},
		// exactly the resolution (5%) from 30 to 49, 50% below: only 50 is right, and
		// each of 30..49 must be refused though its violations are as rare as allowed.
		{"at-resolution", func(v float64) float64 {
			switch {
			case v < 30:
				return 0.5
			case v < 50:
				return rare
			}
			return 0
		}, false},
	}
	b := question.Bisect{Direction: question.Smallest, Attr: "x", Element: -1, From: 0, To: 100, Resolution: 1, Checks: 1}
	for _, sh := range shapes {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			right, jobs, maxJobs := 0, 0, 0
			for seed := range reps {
				p := BisectProblem{Bisect: b, Constraints: plain, Conditions: []string{"a", "b"}, Config: question.Config{Confidence: confidence, Rare: rare}}
				d, _ := driveBisect(t, p, func(c, k, r int) Obs {
					u := draw(seed, c, r)
					if !sh.crn {
						u = draw(seed, c, k, r)
					}
					return held(u >= sh.p(b.Value(k)))
				})
				ok := d.State == Decided
				for _, c := range d.Conditions {
					a := b.Value(c.Answer)
					ok = ok && c.State == CondAnswered && sh.p(a) < rare && (c.Answer == 0 || sh.p(b.Value(c.Answer-1)) > 0)
				}
				if ok {
					right++
				}
				jobs += d.Jobs
				maxJobs = max(maxJobs, d.Jobs)
			}
			achieved := float64(right) / reps
			t.Logf("%s: right in %d of %d macro-replications (%.1f%%), %.0f jobs a bisection of 2 conditions on average, at most %d",
				sh.name, right, reps, 100*achieved, float64(jobs)/reps, maxJobs)
			if achieved < confidence {
				t.Errorf("%s: right in %.1f%% of macro-replications, below the stated %g%%", sh.name, 100*achieved, 100*confidence)
			}
		})
	}
}

// The split is printed as the selection's: each probe's share of α over conditions ×
// probes, each test's over the tests of a probe; the first probes ask for Initial runs.
func TestBisectSplit(t *testing.T) {
	t.Parallel()
	b := headroomBisect()
	b.Deterministic = false
	cs := append([]Constraint{}, plain...)
	cs = append(cs, Constraint{Text: "P(stuck_pause_ports > 0) <= 1%", Kind: constraint.Probability, Sense: constraint.LE, Bound: 0.01})
	p := BisectProblem{Bisect: b, Constraints: cs, Conditions: make([]string, 5), Obs: func(c, k, r int) Obs { return Obs{State: Missing} }}
	d := BisectDecide(p)
	if d.Probes != 12 || math.Abs(d.PerProbe-0.05/60) > 1e-15 || math.Abs(d.PerTest-0.05/120) > 1e-15 || d.Tests != 2 {
		t.Errorf("probes %d, per probe %g, per test %g, tests %d; want 12, α/60, α/120, 2", d.Probes, d.PerProbe, d.PerTest, d.Tests)
	}
	if d.RareRunsOK != question.RareRuns(0.01, 0.05/120) || d.RareRunsOK != 775 {
		t.Errorf("rare runs %d, want 775", d.RareRunsOK)
	}
	if len(d.Need) != 50 || d.Need[0] != (ProbeNeed{Cond: 0, Step: 1000, Replicate: 0, Seq: 0}) || d.Need[49] != (ProbeNeed{Cond: 4, Step: 1000, Replicate: 9, Seq: 9}) {
		t.Errorf("first needs: %d, %v ... %v", len(d.Need), d.Need[0], d.Need[len(d.Need)-1])
	}
}

// ceilLog2 is ⌈log2 n⌉ for n ≥ 1.
func ceilLog2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}
