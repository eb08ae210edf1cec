package selection

import (
	"fmt"
	"math"
	"slices"

	"github.com/rocesweep/rocesweep/question"
)

// The robust selection (CombineWorst; docs/statistics.md §13.3): the setting whose worst
// condition is best. With μ_sc the mean of setting s at condition c (min goal) and
// θ_s = max_c μ_sc its worst case, the best setting s* has the smallest θ. The
// guarantee: if θ_l ≥ θ_s* + δ for every other setting l, s* is selected with
// probability at least 1 − α.
//
// The procedure compares cells of different settings pairwise, as KN compares points
// (kn.go): the paired differences of cells (s, c) and (l, c′) over common random
// numbers, their variance updated at every stage, h² from the pair's share β of α, and
// the continuation region W(r) = max(0, δ/(2r)·(h² S²/δ² − r)). A cell pair's verdict is
// fixed the first time its mean difference leaves the region: "(s, c) is worse" when
// it is above W, "better" when below −W, "a tie" when the region has closed (r > N =
// ⌊h² S²/δ²⌋) on an exact tie. Then:
//
//   - Setting s is eliminated by setting l (known feasible and settled) when some cell
//     (s, c) has been found worse than every cell of l: then μ_sc > max_c′ μ_lc′ = θ_l,
//     so θ_s > θ_l, and s is not the best.
//   - It stops when one setting remains, or when every cell pair of the survivors has a
//     verdict (then it selects the survivor with the smallest measured worst case), or
//     when the budget would be exceeded.
//
// Why it holds the confidence: s* can only be eliminated by some l through a cell
// (s*, c) found worse than every cell of l, in particular worse than l's truly worst
// cell (l, w_l). But μ_s*c ≤ θ_s* ≤ θ_l − δ = μ_lw_l − δ, so that is a wrong verdict on
// a pair whose true difference is at least δ the other way, which KN's region gives
// with probability at most β (Fabian's bound, as in KN's proof). There are (k − 1)·m
// such pairs (one per other setting l and condition c of s*; w_l is fixed by the
// truth), so with β = α_s / ((k − 1)·m) a Bonferroni argument bounds the probability
// that s* is ever eliminated by α_s. Conversely, when those pairs are all right, every
// l with θ_l ≥ θ_s* + δ is eliminated by s* once the m pairs ((s*, c), (l, w_l)) have
// their verdicts: for c′ = w_l every cell of s* was found better than (l, w_l). So
// under the indifference-zone configuration the procedure ends with s* alone. The
// rare-event rule (§5) and the feasibility tests (§3) take their shares as for KN: the
// rare-event share over the same (k − 1)·m pairs, the feasibility share over the k
// settings and each constraint at each condition.
//
// This is a conservative Bonferroni construction in the family of Fan, Hong and
// Zhang's sequential procedure for robust selection of the best ("Distributionally
// robust selection of the best", Management Science 66(1), 2020), which also compares
// an alternative's scenarios with the others' under an indifference zone on the worst
// case; it is not their procedure as published.

// worstReplay is one run of the robust procedure over a problem and its grid. Cell
// (s, c) is numbered s·m + c. Objective values are kept in a min orientation.
type worstReplay struct {
	p           Problem
	g           Grid
	cfg         question.Config
	k, m, n0    int
	alpha, sign float64
	started     bool
	alive       []int       // settings in contention, plan order
	sum         [][]float64 // [s][c]: Σ y over the used replicates
	used        []int       // replicates consumed per setting (every cell alike)
	extra       []int       // committed jobs of a stage in which the setting left failed
	cons        []Constraint
	feas        []feasibility
	failed      []bool
	modes       [][]map[float64]int
	modal       [][]int
	mass        [][]bool     // cell values a point mass (kn.go's rule, per cell)
	pairs       [][]pairStat // [a][b], a < b cells of different settings: y_a − y_b
	verdict     [][]int8     // [a][b], a < b: 0 open, 1 a worse, −1 b worse, 2 tie
	pairsN      int          // (k − 1)·m
	h2, delta   float64
	shim        *replay // carries the split and the stage to the feasibility tests and badness
	tq          tCache
	d           Decision // over the settings
}

const (
	verdictOpen   int8 = 0
	verdictWorse  int8 = 1  // the lower-numbered cell is worse
	verdictBetter int8 = -1 // the lower-numbered cell is better
	verdictTie    int8 = 2
)

// decideWorst runs the robust procedure and assembles the top-level decision.
func decideWorst(p Problem, g Grid) Decision {
	r := newWorstReplay(p, g)
	d := r.run()
	top := newTop(p, g)
	cd := top.Conditions
	cd.Over = &d
	cd.Pairs = r.pairsN
	top.State, top.Why = d.State, d.Why
	top.Stage, top.Round, top.FirstStage, top.HeavyTails = d.Stage, d.Round, d.FirstStage, d.HeavyTails
	top.Split, top.H2, top.Delta = d.Split, d.H2, d.Delta
	top.RareRunsPair, top.RareRunsOK, top.FixedJobs = d.RareRunsPair, d.RareRunsOK, d.FixedJobs
	top.Need = d.Need // already in plan points
	d.Need = []Need{}
	for _, s := range d.Survivors {
		top.Survivors = append(top.Survivors, g.Cell[s]...)
	}
	slices.Sort(top.Survivors)
	cd.CellMeans = make([][]float64, r.k)
	cd.WorstAt = make([]int, r.k)
	for s := range r.k {
		cd.CellMeans[s] = make([]float64, r.m)
		cd.WorstAt[s] = -1
		for c := range r.m {
			cd.CellMeans[s][c] = math.NaN()
			if r.used[s] > 0 && !r.failed[s] {
				cd.CellMeans[s][c] = r.sign * r.sum[s][c] / float64(r.used[s])
			}
		}
		if r.used[s] > 0 && !r.failed[s] {
			cd.WorstAt[s] = r.worstAt(s)
		}
	}
	fillPoints(&top, g, d, cd.CellMeans)
	top.Jobs = d.Jobs
	return top
}

func newWorstReplay(p Problem, g Grid) *worstReplay {
	k, m := len(g.Settings), len(g.Conditions)
	cfg := p.Config.WithDefaults(len(p.Points))
	r := &worstReplay{p: p, g: g, cfg: cfg, k: k, m: m, n0: cfg.Initial, alpha: 1 - cfg.Confidence, sign: 1,
		sum: make([][]float64, k), used: make([]int, k), extra: make([]int, k), feas: make([]feasibility, k),
		failed: make([]bool, k), modes: make([][]map[float64]int, k), modal: make([][]int, k), mass: make([][]bool, k),
		pairs: make([][]pairStat, k*m), verdict: make([][]int8, k*m), tq: tCache{}}
	if p.Goal == question.Max {
		r.sign = -1
	}
	r.cons = expandConstraints(p.Constraints, g.Conditions)
	r.d = Decision{Best: -1, Survivors: []int{}, Eliminated: []Elimination{}, Need: []Need{}, Confidence: cfg.Confidence,
		Rare: cfg.Rare, Means: make([]float64, k), Used: r.used, Feasible: make([]int, k), PointMass: make([]bool, k),
		Labels: slices.Clone(g.Settings)}
	for a := range k * m {
		r.pairs[a] = make([]pairStat, k*m)
		r.verdict[a] = make([]int8, k*m)
	}
	for s := range k {
		r.alive = append(r.alive, s)
		r.sum[s] = make([]float64, m)
		r.modes[s] = make([]map[float64]int, m)
		r.modal[s] = make([]int, m)
		r.mass[s] = make([]bool, m)
		for c := range m {
			r.modes[s][c] = map[float64]int{}
		}
		r.feas[s] = newFeasibility(r.cons)
	}
	r.split()
	if p.DeltaPercent == 0 {
		r.delta = p.Delta
		r.d.Delta = p.Delta
	}
	// The feasibility tests and badness read the split, the stage and the problem's
	// metric and constraints through a replay (feasibility.go).
	r.shim = &replay{p: Problem{Metric: p.Metric, Constraints: p.Constraints}, d: Decision{Split: r.d.Split, RareRunsOK: r.d.RareRunsOK}}
	return r
}

// split divides α as kn.go does, with the comparison's shares spread over the (k − 1)·m
// cell pairs that could eliminate the best setting, and the feasibility share over k
// settings and each constraint at each condition.
func (r *worstReplay) split() {
	s := Split{Tests: testsPerPoint(r.cons)}
	cmp := r.alpha
	if s.Tests > 0 {
		s.Feasibility, cmp = r.alpha/2, r.alpha/2
		s.PerTest = s.Feasibility / float64(r.k*s.Tests)
	}
	r.pairsN = (r.k - 1) * r.m
	if r.k >= 2 {
		s.Screening, s.Rare = cmp/2, cmp/2
		s.PerPair = s.Rare / float64(r.pairsN)
	} else if s.Tests > 0 {
		s.Feasibility = r.alpha
		s.PerTest = r.alpha / float64(s.Tests)
	}
	r.d.Split = s
	if s.PerPair > 0 {
		r.d.RareRunsPair = question.RareRuns(r.cfg.Rare, s.PerPair)
	}
	if s.PerTest > 0 {
		r.d.RareRunsOK = question.RareRuns(r.cfg.Rare, s.PerTest)
	}
}

func (r *worstReplay) cell(s, c int) int { return s*r.m + c }

func (r *worstReplay) y(s, c, j int) float64 { return r.sign * cellObs(r.p, r.g.Cell[s][c], j).X }

func (r *worstReplay) cellMean(s, c int) float64 { return r.sum[s][c] / float64(r.used[s]) }

// worst is setting s's largest cell mean (min orientation); worstAt its condition (the
// first on ties).
func (r *worstReplay) worst(s int) float64 { return r.cellMean(s, r.worstAt(s)) }

func (r *worstReplay) worstAt(s int) int {
	w := 0
	for c := 1; c < r.m; c++ {
		if r.cellMean(s, c) > r.cellMean(s, w) {
			w = c
		}
	}
	return w
}

func (r *worstReplay) run() Decision {
	lo, stage := 0, r.n0
	for {
		var need []Need
		for _, s := range slices.Clone(r.alive) {
			var miss []Need
			bad, committed := "", 0
			for j := lo; j < stage; j++ {
				for c, i := range r.g.Cell[s] {
					o := cellObs(r.p, i, j)
					if o.State == Missing {
						miss = append(miss, Need{Point: i, Replicate: j})
						continue
					}
					committed++
					if bad == "" {
						if b := r.shim.badness(o, j); b != "" {
							bad = "at " + r.g.Conditions[c] + ": " + b
						}
					}
				}
			}
			if bad != "" {
				r.failed[s] = true
				r.extra[s] = committed
				r.leave(s, stage, CauseFailed, bad, -1, 0)
				continue
			}
			need = append(need, miss...)
		}
		if len(need) > 0 {
			if r.started {
				need = r.ahead(need, stage)
			}
			sortNeeds(need)
			r.d.Need = need
			return r.finish(Running, lo, waitingFor(need, r.started, stage, r.n0))
		}
		for j := lo; j < stage; j++ {
			r.take(j, stage)
		}
		if !r.started && stage == r.n0 {
			if r.heavy() && r.n0 < 4*r.cfg.Initial && len(r.alive) > 1 {
				r.d.HeavyTails = true
				lo, stage, r.n0 = stage, min(2*r.n0, 4*r.cfg.Initial), min(2*r.n0, 4*r.cfg.Initial)
				continue
			}
			r.firstStage()
		}
		for _, s := range slices.Clone(r.alive) {
			if why := r.feas[s].means(r.cons, stage, r.shim); why != "" {
				r.leave(s, stage, CauseInfeasible, why, -1, 0)
			}
		}
		r.judge(stage)
		r.screen(stage)

		switch {
		case len(r.alive) == 0:
			return r.finish(Infeasible, stage, r.whyNone())
		case len(r.alive) == 1 && r.selectable(r.alive[0], stage):
			why := "one setting survived"
			if r.k == 1 {
				why = "there is only one setting"
			}
			return r.finish(Decided, stage, why)
		case len(r.alive) > 1 && r.resolved(stage):
			return r.finish(Decided, stage, fmt.Sprintf("every cell pair of the %d remaining settings is resolved: none is worse than another at every condition by more than the allowance; the smallest worst case is selected", len(r.alive)))
		}
		if jobs := r.jobs(); jobs+len(r.alive)*r.m > r.cfg.MaxJobs {
			return r.finish(Budget, stage, fmt.Sprintf("the budget of %s jobs would be exceeded by round %d (%s)", thousands(r.cfg.MaxJobs), stage+1-r.n0, plural(len(r.alive), "setting")))
		}
		lo, stage = stage, stage+1
	}
}

// take consumes replicate j of every surviving setting's cells: means, modes, the
// paired differences of cells of different settings, and the per-run feasibility
// tests (over every cell's constraint values, condition by condition).
func (r *worstReplay) take(j, stage int) {
	for _, s := range r.alive {
		r.used[s] = j + 1
		for c := range r.m {
			y := r.y(s, c, j)
			r.sum[s][c] += y
			r.modes[s][c][y]++
			r.modal[s][c] = max(r.modal[s][c], r.modes[s][c][y])
			r.mass[s][c] = 2*r.modal[s][c] >= r.used[s] && r.used[s] >= 2
		}
	}
	for a, s := range r.alive {
		for _, l := range r.alive[a+1:] {
			for c := range r.m {
				for c2 := range r.m {
					r.pairs[r.cell(s, c)][r.cell(l, c2)].add(r.y(s, c, j) - r.y(l, c2, j))
				}
			}
		}
	}
	for _, s := range slices.Clone(r.alive) {
		o := settingObs(r.p, r.g, nil, s, j)
		if why := r.feas[s].run(r.cons, o.Values, j, r.shim); why != "" {
			r.leave(s, stage, CauseInfeasible, why, -1, 0)
		}
	}
}

// heavy reports whether some cell pair of different surviving settings has first-stage
// paired differences with an excess kurtosis above heavyKurtosis (kn.go).
func (r *worstReplay) heavy() bool {
	for a, s := range r.alive {
		for _, l := range r.alive[a+1:] {
			for c := range r.m {
				for c2 := range r.m {
					var ds []float64
					for j := range r.n0 {
						ds = append(ds, r.y(s, c, j)-r.y(l, c2, j))
					}
					if excessKurtosis(ds) > heavyKurtosis {
						return true
					}
				}
			}
		}
	}
	return false
}

func (r *worstReplay) firstStage() {
	r.started = true
	r.shim.started = true
	r.d.FirstStage = r.n0
	if len(r.alive) == 0 {
		return
	}
	if r.p.DeltaPercent > 0 {
		r.delta = r.percentDelta()
		r.d.Delta = r.delta
	}
	r.h2 = r.h2At(r.n0)
	r.d.H2 = r.h2
	r.d.FixedJobs = r.fixedJobs()
}

// percentDelta is DeltaPercent of |the smallest first-stage worst case|, with kn.go's
// fallbacks when that is 0.
func (r *worstReplay) percentDelta() float64 {
	best, largest, largestX := math.Inf(1), 0.0, 0.0
	for _, s := range r.alive {
		w := r.worst(s)
		best = min(best, w)
		largest = max(largest, math.Abs(w))
		for c := range r.m {
			for j := range r.n0 {
				largestX = max(largestX, math.Abs(r.y(s, c, j)))
			}
		}
	}
	scale := math.Abs(best)
	if scale == 0 {
		scale = largest
	}
	if scale == 0 {
		scale = largestX
	}
	if scale == 0 {
		return 1
	}
	if d := r.p.DeltaPercent / 100 * scale; d > 0 {
		return d
	}
	return math.SmallestNonzeroFloat64
}

// h2At is KN's h² for n replicates at the screening's share per cell pair.
func (r *worstReplay) h2At(n int) float64 {
	if r.k < 2 {
		return 0
	}
	return hSquared(r.d.Split.Screening/float64(r.pairsN), n)
}

func (r *worstReplay) ratio(s2 float64) float64 {
	if s2 == 0 || r.h2 == 0 {
		return 0
	}
	return r.h2 * s2 / (r.delta * r.delta)
}

// fixedJobs is a fixed design of equal confidence from the first stage: every cell
// run N = max(n0, ⌈(t S/δ)²⌉) times, t the 1 − (α_s + α_r)/((k − 1)·m) quantile of
// Student's t on n0 − 1 degrees of freedom, S² the largest variance of a cell pair's
// paired differences; no fewer than the rare-event rule and the feasibility tests need.
func (r *worstReplay) fixedJobs() int {
	n := float64(r.n0)
	if len(r.alive) >= 2 {
		var s2max float64
		degenerate := false
		for a, s := range r.alive {
			for c := range r.m {
				degenerate = degenerate || r.mass[s][c]
			}
			for _, l := range r.alive[a+1:] {
				for c := range r.m {
					for c2 := range r.m {
						ps := &r.pairs[r.cell(s, c)][r.cell(l, c2)]
						s2max = max(s2max, ps.variance())
						degenerate = degenerate || ps.allEqual
					}
				}
			}
		}
		q := 1 - (r.d.Split.Screening+r.d.Split.Rare)/float64(r.pairsN)
		t := r.tq.quantile(q, r.n0-1)
		n = max(n, math.Ceil(t*t*s2max/(r.delta*r.delta)))
		if degenerate {
			n = max(n, float64(r.d.RareRunsPair))
		}
	}
	if r.d.Split.Tests > 0 {
		n = max(n, float64(r.d.RareRunsOK))
	}
	if !(n <= maxN) {
		n = maxN
	}
	return len(r.alive) * r.m * int(n)
}

// comparable: a pair whose differences have all been equal waits RareRunsPair (§5).
func (r *worstReplay) comparable(a, b, stage int) bool {
	return !r.pairs[a][b].allEqual || stage >= r.d.RareRunsPair
}

// settled: a setting with a cell whose values are a point mass neither screens nor is
// selected before RareRunsPair (§5).
func (r *worstReplay) settled(s, stage int) bool {
	return !slices.Contains(r.mass[s], true) || stage >= r.d.RareRunsPair
}

func (r *worstReplay) feasible(s int) bool { return r.feas[s].state() == 1 }

func (r *worstReplay) selectable(s, stage int) bool { return r.feasible(s) && r.settled(s, stage) }

// judge gives a verdict to every open cell pair of different surviving settings that
// leaves KN's continuation region at this stage (see the top of the file).
func (r *worstReplay) judge(stage int) {
	if !r.started || len(r.alive) < 2 {
		return
	}
	r.h2 = r.h2At(stage)
	rr := float64(stage)
	for x, s := range r.alive {
		for _, l := range r.alive[x+1:] {
			for c := range r.m {
				for c2 := range r.m {
					a, b := r.cell(s, c), r.cell(l, c2)
					if r.verdict[a][b] != verdictOpen || !r.comparable(a, b, stage) {
						continue
					}
					ratio := r.ratio(r.pairs[a][b].variance())
					w := max(0, r.delta/(2*rr)*(ratio-rr))
					diff := r.cellMean(s, c) - r.cellMean(l, c2)
					switch {
					case diff > w:
						r.verdict[a][b] = verdictWorse
					case -diff > w:
						r.verdict[a][b] = verdictBetter
					case rr >= math.Min(math.Floor(ratio), maxN)+1:
						r.verdict[a][b] = verdictTie
					}
				}
			}
		}
	}
}

// worse reports whether cell a has been found worse than cell b.
func (r *worstReplay) worse(a, b int) bool {
	if a < b {
		return r.verdict[a][b] == verdictWorse
	}
	return r.verdict[b][a] == verdictBetter
}

// beats returns a condition c at which setting s has been found worse than every
// condition of setting l, or -1.
func (r *worstReplay) beats(l, s int) int {
	for c := range r.m {
		all := true
		for c2 := range r.m {
			if !r.worse(r.cell(s, c), r.cell(l, c2)) {
				all = false
				break
			}
		}
		if all {
			return c
		}
	}
	return -1
}

// screen eliminates every survivor s that a survivor l at the stage's start, known
// feasible and settled, beats (beats); its eliminator is the one with the smallest
// measured worst case.
func (r *worstReplay) screen(stage int) {
	if !r.started || len(r.alive) < 2 {
		return
	}
	old := slices.Clone(r.alive)
	for _, s := range old {
		by, at := -1, -1
		for _, l := range old {
			if l == s || !r.selectable(l, stage) {
				continue
			}
			if c := r.beats(l, s); c >= 0 && (by == -1 || r.worst(l) < r.worst(by)) {
				by, at = l, c
			}
		}
		if by >= 0 {
			gap := r.worst(s) - r.worst(by)
			r.leave(s, stage, CauseScreened, r.screenReason(s, by, at, gap, stage), by, gap)
		}
	}
}

func (r *worstReplay) screenReason(s, by, at int, gap float64, stage int) string {
	what := fmt.Sprintf("at %s worse than %s at each of its %d conditions on %d paired replicates: worst case %s against %s, %s worse",
		r.g.Conditions[at], r.name(by), r.m, stage, num(r.sign*r.worst(s)), num(r.sign*r.worst(by)), num(gap))
	if gap >= r.delta {
		return what + fmt.Sprintf(", beyond the indifference (%s)", num(r.delta))
	}
	return what + fmt.Sprintf(", within the indifference (%s): dropped as no better, either would be a correct answer", num(r.delta))
}

// resolved: every survivor could be the answer and every cell pair of the survivors
// has its verdict.
func (r *worstReplay) resolved(stage int) bool {
	if !r.started {
		return false
	}
	for _, s := range r.alive {
		if !r.selectable(s, stage) {
			return false
		}
	}
	for x, s := range r.alive {
		for _, l := range r.alive[x+1:] {
			for c := range r.m {
				for c2 := range r.m {
					if r.verdict[r.cell(s, c)][r.cell(l, c2)] == verdictOpen {
						return false
					}
				}
			}
		}
	}
	return true
}

// ahead is kn.go's: while no survivor can be selectable before a later stage, the next
// stages' jobs are asked for at once (at most maxAhead stages, within the budget).
func (r *worstReplay) ahead(need []Need, stage int) []Need {
	ready := math.MaxInt
	for _, s := range r.alive {
		ready = min(ready, r.readyStage(s))
	}
	last := min(ready, stage-1+maxAhead)
	if n := len(r.alive) * r.m; n > 0 {
		last = min(last, stage-1+(r.cfg.MaxJobs-r.jobs())/n)
	}
	for _, s := range r.alive {
		for j := stage; j < last; j++ {
			for _, i := range r.g.Cell[s] {
				if cellObs(r.p, i, j).State == Missing {
					need = append(need, Need{Point: i, Replicate: j})
				}
			}
		}
	}
	return need
}

// readyStage is the earliest stage at which setting s could be selectable.
func (r *worstReplay) readyStage(s int) int {
	settle := 0
	for c := range r.m {
		if r.mass[s][c] {
			settle = max(settle, min(r.d.RareRunsPair, 2*r.modal[s][c]+1))
		}
	}
	return max(settle, r.feas[s].readyStage(r.cons, r.used[s], r.shim))
}

func (r *worstReplay) leave(s, stage int, cause Cause, reason string, by int, gap float64) {
	r.alive = slices.DeleteFunc(r.alive, func(x int) bool { return x == s })
	round := 0
	if r.started {
		round = stage - r.n0
	}
	r.d.Eliminated = append(r.d.Eliminated, Elimination{Point: s, Round: round, Cause: cause, Reason: reason, By: by, Gap: gap})
}

func (r *worstReplay) jobs() int {
	n := 0
	for s := range r.k {
		if r.failed[s] {
			n += r.extra[s] + (r.used[s] * r.m)
			continue
		}
		n += r.used[s] * r.m
	}
	return n
}

func (r *worstReplay) name(s int) string { return r.g.Settings[s] }

func (r *worstReplay) whyNone() string {
	var infeasible, failed, screened int
	for _, e := range r.d.Eliminated {
		switch e.Cause {
		case CauseScreened:
			screened++
		case CauseFailed:
			failed++
		default:
			infeasible++
		}
	}
	why := fmt.Sprintf("every setting is infeasible or failed (%d infeasible, %d failed or without a value", infeasible, failed)
	if screened > 0 {
		why += fmt.Sprintf(", %d screened out by settings that failed later", screened)
	}
	return why + ")"
}

// best is the survivor with the smallest measured worst case among the selectable ones
// (onlySelectable), else the known-feasible ones, else all survivors.
func (r *worstReplay) best(stage int, onlySelectable bool) int {
	for _, level := range []int{2, 1, 0} {
		b := -1
		for _, s := range r.alive {
			if r.used[s] == 0 || level == 2 && !r.selectable(s, stage) || level == 1 && !r.feasible(s) {
				continue
			}
			if b == -1 || r.worst(s) < r.worst(b) {
				b = s
			}
		}
		if b >= 0 || onlySelectable {
			return b
		}
	}
	return -1
}

func (r *worstReplay) finish(st State, stage int, why string) Decision {
	d := r.d
	d.State, d.Why = st, why
	if stage > 0 && r.started {
		d.Stage, d.Round = stage, stage-r.n0
	}
	d.Survivors = append(d.Survivors, r.alive...)
	d.Jobs = r.jobs()
	// A setting that left with a failed job used the replicates of the stage it failed
	// in, as far as they were committed.
	d.Used = slices.Clone(r.used)
	for s := range r.k {
		if r.failed[s] {
			d.Used[s] += (r.extra[s] + r.m - 1) / r.m
		}
	}
	switch st {
	case Decided:
		d.Best = r.best(stage, true)
	case Running, Budget:
		d.Best = r.best(stage, false)
	}
	for s := range r.k {
		d.Means[s] = math.NaN()
		if r.used[s] > 0 && !r.failed[s] {
			d.Means[s] = r.sign * r.worst(s)
		}
		d.Feasible[s] = r.feas[s].state()
		d.PointMass[s] = slices.Contains(r.mass[s], true)
	}
	if st == Decided && d.Best >= 0 {
		d.Equivalent, d.Flat = equivalentOf(r.k, r.alive, d.Eliminated, r.delta, func(s int) float64 { return r.worst(s) - r.worst(d.Best) })
	}
	return d
}
