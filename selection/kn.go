package selection

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// maxN caps N_il = ⌊h² S²_il / δ²⌋ (a tiny δ or a huge variance would overflow an int):
// 2^40 replicates is beyond any budget, so the cap never changes a decision.
const maxN = 1 << 40

// heavyKurtosis is the sample excess kurtosis of a pair's first-stage paired
// differences above which the first stage is extended (package doc). A normal sample
// of 10 exceeds it with a probability well under 1%; one value 6 standard deviations
// out among 10 reaches it.
const heavyKurtosis = 3

// Validate reports what makes p unusable by Decide: no points, a goal other than min or
// max, a confidence outside [0.5, 1), fewer than 2 first-stage replicates, no positive
// indifference, a budget smaller than the first stage (k × n0), a rare-event resolution
// outside (0, 0.5], or a constraint that is not well formed. Config is checked with its
// defaults applied (Config.WithDefaults), as Decide applies them. These are properties
// of the study's spec, not of its results: a spec loader calls Validate once, before
// the first job runs.
func (p Problem) Validate() error {
	k := len(p.Points)
	if k == 0 {
		return errors.New("no points to select from")
	}
	if p.Goal != question.Min && p.Goal != question.Max {
		return fmt.Errorf("goal %q is neither %q nor %q", p.Goal, question.Min, question.Max)
	}
	cfg := p.Config.WithDefaults(k)
	// Below 0.5 the KN constant η is negative for two points, and a "selection" less
	// likely right than a coin is no selection.
	if !(cfg.Confidence >= 0.5 && cfg.Confidence < 1) {
		return fmt.Errorf("confidence %g is outside [0.5, 1)", cfg.Confidence)
	}
	if cfg.Initial < 2 {
		return fmt.Errorf("initial %d: the first stage needs at least 2 replicates per point for a variance", cfg.Initial)
	}
	if first := k * cfg.Initial; cfg.MaxJobs < first {
		return fmt.Errorf("max_jobs %d is less than the first stage's %d jobs (%d points × %d replicates)", cfg.MaxJobs, first, k, cfg.Initial)
	}
	if !(cfg.Rare > 0 && cfg.Rare <= 0.5) {
		return fmt.Errorf("rare %g is outside (0, 0.5]: it is a share of runs, such as 0.01 for 1%%", cfg.Rare)
	}
	switch {
	case p.Pareto != nil:
		if err := validPareto(p.Pareto); err != nil {
			return err
		}
	case math.IsNaN(p.DeltaPercent) || math.IsInf(p.DeltaPercent, 0) || p.DeltaPercent < 0:
		return fmt.Errorf("indifference percent %g is not a positive number", p.DeltaPercent)
	case p.DeltaPercent == 0 && !(p.Delta > 0 && !math.IsInf(p.Delta, 0)):
		return fmt.Errorf("indifference %g is not a positive number (and no percent is given)", p.Delta)
	}
	if err := validNear(p.Near); err != nil {
		return err
	}
	for _, c := range p.Constraints {
		switch c.Kind {
		case constraint.EveryRun:
		case constraint.Probability:
			if c.Sense < constraint.LE || c.Sense > constraint.GT || !(c.Bound >= 0 && c.Bound <= 1) {
				return fmt.Errorf("constraint %q: a probability bound needs <=, <, >= or > and a probability (sense %v, bound %g)", c.Text, c.Sense, c.Bound)
			}
		case constraint.Mean:
			if c.Sense < constraint.LE || c.Sense > constraint.GT || !finite(c.Bound) || !(c.Tolerance > 0 && finite(c.Tolerance)) {
				return fmt.Errorf("constraint %q: a mean bound needs <=, <, >= or >, a finite bound and a tolerance above 0 (sense %v, bound %g, tolerance %g)", c.Text, c.Sense, c.Bound, c.Tolerance)
			}
		default:
			return fmt.Errorf("constraint %q has an unknown kind %d", c.Text, int(c.Kind))
		}
	}
	return nil
}

// Decide replays the procedure (package doc) over p from its first stage and returns
// where it stands. It is a pure function of p: no I/O, no randomness, no clock.
//
// p.Config is used with its defaults applied (Config.WithDefaults). A Problem that
// fails Validate is a programming error (the spec should have been refused before any
// job ran) and makes Decide panic with Validate's error. Anything in the observations is
// not: a failed job, a null value, a missing or non-finite value make that point leave
// with a reason, a replicate beyond what the procedure uses is ignored.
func Decide(p Problem) Decision {
	if err := p.Validate(); err != nil {
		panic("selection.Decide: " + err.Error())
	}
	r := newReplay(p)
	return r.run()
}

// replay is one run of the procedure over a Problem. Objective values are kept in a
// min orientation (y = sign·X, sign = -1 for a max goal): smaller is better throughout.
type replay struct {
	p       Problem
	cfg     question.Config
	k, n0   int // n0: the first stage, as extended
	alpha   float64
	sign    float64
	started bool      // the first stage is complete: screening is on
	alive   []int     // survivors, plan order
	sum     []float64 // Σ y over the used replicates
	used    []int     // replicates consumed (committed ones, up to the stage the point reached)
	feas    []feasibility
	failed  []bool // left with a failed job or without a value
	modes   []map[float64]int
	modal   []int        // the count of each point's most frequent value
	pairs   [][]pairStat // [i][l], i < l: paired differences y_i − y_l
	h2      float64      // h² at the stage being screened (h2At)
	// A selection on a secondary objective (near.go): the primary's paired differences,
	// each ordered pair's test (1 accepted, -1 refused), each point's state and sums.
	nearPairs [][]pairStat
	nearDec   [][]int8
	nearState []int
	nearSum   []float64
	// A Pareto objective (pareto.go): each metric's paired differences and sums, and
	// which points have joined the front.
	pPairs [][][]pairStat
	pSum   [][]float64
	front  []bool
	delta  float64
	tq     tCache
	d      Decision
}

// pairStat accumulates one pair's paired differences (shifted by the first one, so
// that the sums of squares do not cancel).
type pairStat struct {
	n        int
	shift    float64
	s1, s2   float64 // Σ (d − shift), Σ (d − shift)²
	allEqual bool
}

func (s *pairStat) add(d float64) {
	if s.n == 0 {
		s.shift, s.allEqual = d, true
	}
	e := d - s.shift
	if e != 0 {
		s.allEqual = false
	}
	s.n++
	s.s1 += e
	s.s2 += e * e
}

// variance is the sample variance of the differences so far (0 for fewer than 2).
func (s *pairStat) variance() float64 {
	if s.n < 2 || s.allEqual {
		return 0
	}
	n := float64(s.n)
	return max(0, (s.s2-s.s1*s.s1/n)/(n-1))
}

func newReplay(p Problem) *replay {
	k := len(p.Points)
	cfg := p.Config.WithDefaults(k)
	r := &replay{
		p: p, cfg: cfg, k: k, n0: cfg.Initial, alpha: 1 - cfg.Confidence, sign: 1,
		sum: make([]float64, k), used: make([]int, k), feas: make([]feasibility, k),
		failed: make([]bool, k), modes: make([]map[float64]int, k), modal: make([]int, k),
		pairs: make([][]pairStat, k), tq: tCache{},
	}
	if p.Goal == question.Max {
		r.sign = -1
	}
	r.d = Decision{
		Best:       -1,
		Survivors:  []int{},
		Eliminated: []Elimination{},
		Need:       []Need{},
		Confidence: cfg.Confidence,
		Rare:       cfg.Rare,
		Means:      make([]float64, k),
		Used:       r.used,
		Feasible:   make([]int, k),
		PointMass:  make([]bool, k),
		Labels:     make([]string, k),
	}
	r.initNear()
	r.initPareto()
	r.split()
	if p.DeltaPercent == 0 {
		r.delta = p.Delta
		r.d.Delta = p.Delta
	}
	for i, pt := range p.Points {
		r.alive = append(r.alive, i)
		r.feas[i] = newFeasibility(p.Constraints)
		r.modes[i] = map[float64]int{}
		r.pairs[i] = make([]pairStat, k)
		r.d.Labels[i] = pt.Label
	}
	return r
}

// split divides α (Split): half to feasibility when there are constraints, the rest
// to the comparison, whose share goes half to KN's screening and half to the
// rare-event rule; each spread over its tests (Bonferroni).
func (r *replay) split() {
	s := Split{Tests: testsPerPoint(r.p.Constraints)}
	if r.p.Near != nil {
		s.Tests += r.k - 1 // one nearness test per other point (near.go)
	}
	cmp := r.alpha
	if s.Tests > 0 {
		s.Feasibility = r.alpha / 2
		cmp = r.alpha / 2
		s.PerTest = s.Feasibility / float64(r.k*s.Tests)
	}
	if r.k >= 2 {
		s.Screening, s.Rare = cmp/2, cmp/2
		s.PerPair = s.Rare / float64(r.k-1)
	} else {
		// One point: nothing to compare; its feasibility takes the whole α.
		if s.Tests > 0 {
			s.Feasibility = r.alpha
			s.PerTest = r.alpha / float64(s.Tests)
		}
	}
	r.d.Split = s
	if s.PerPair > 0 {
		r.d.RareRunsPair = question.RareRuns(r.cfg.Rare, s.PerPair)
	}
	if s.PerTest > 0 {
		r.d.RareRunsOK = question.RareRuns(r.cfg.Rare, s.PerTest)
	}
}

func (r *replay) obs(i, j int) Obs {
	if reps := r.p.Points[i].Reps; j < len(reps) {
		return reps[j]
	}
	return Obs{State: Missing}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// mean is point i's mean of y over its used replicates.
func (r *replay) mean(i int) float64 { return r.sum[i] / float64(r.used[i]) }

// leave removes point i from the survivors.
func (r *replay) leave(i, stage int, cause Cause, reason string, by int, gap float64) {
	r.alive = slices.DeleteFunc(r.alive, func(x int) bool { return x == i })
	round := 0
	if r.started {
		round = stage - r.n0
	}
	r.d.Eliminated = append(r.d.Eliminated, Elimination{Point: i, Round: round, Cause: cause, Reason: reason, By: by, Gap: gap})
}

func (r *replay) run() Decision {
	lo, stage := 0, r.n0 // the stage needs replicates lo..stage-1 of every survivor
	for {
		// Read the stage: a point with a failed job or no value leaves now; the others
		// may wait for jobs.
		var need []Need
		for _, i := range slices.Clone(r.alive) {
			var miss []Need
			bad, committed := "", 0
			for j := lo; j < stage; j++ {
				o := r.obs(i, j)
				if o.State == Missing {
					miss = append(miss, Need{Point: i, Replicate: j})
					continue
				}
				committed++
				if bad == "" {
					bad = r.badness(o, j)
				}
			}
			if bad != "" {
				r.failed[i] = true
				r.used[i] += committed
				r.leave(i, stage, CauseFailed, bad, -1, 0)
				continue
			}
			need = append(need, miss...)
		}
		if len(need) > 0 {
			if r.started {
				need = r.ahead(need, stage)
			}
			r.d.Need = need
			return r.finish(Running, lo, waitingFor(need, r.started, stage, r.n0))
		}

		// The stage is complete: take its replicates in order.
		for j := lo; j < stage; j++ {
			r.take(j, stage)
		}
		if !r.started && stage == r.n0 {
			if r.heavy() && r.n0 < 4*r.cfg.Initial && len(r.alive) > 1 {
				// Extend the first stage before any screening (package doc).
				r.d.HeavyTails = true
				lo, stage, r.n0 = stage, min(2*r.n0, 4*r.cfg.Initial), min(2*r.n0, 4*r.cfg.Initial)
				continue
			}
			r.firstStage()
		}
		for _, i := range slices.Clone(r.alive) {
			if why := r.feas[i].means(r.p.Constraints, stage, r); why != "" {
				r.leave(i, stage, CauseInfeasible, why, -1, 0)
			}
		}
		r.nearStage(stage)
		if r.p.Pareto != nil {
			if r.paretoStage(stage) {
				return r.finish(Decided, stage, fmt.Sprintf("every point left is on the front: %s", plural(len(r.alive), "point")))
			}
		} else {
			r.screen(stage)
		}

		// Stop?
		switch {
		case len(r.alive) == 0:
			return r.finish(Infeasible, stage, r.whyNone())
		case r.p.Pareto != nil:
		case len(r.alive) == 1 && r.selectable(r.alive[0], stage):
			why := "one point survived"
			if r.k == 1 {
				why = "there is only one point"
			}
			return r.finish(Decided, stage, why)
		case len(r.alive) > 1 && r.resolved(stage):
			why := fmt.Sprintf("the %d remaining points are within the indifference of each other", len(r.alive))
			if r.anyEqualPair() {
				why += fmt.Sprintf(" (some gave equal results in all %d paired replicates: they differ, if at all, in fewer than %s of runs)", stage, percent(r.cfg.Rare))
			}
			return r.finish(Decided, stage, why)
		}
		if jobs := r.jobs(); jobs+len(r.alive) > r.cfg.MaxJobs {
			why := fmt.Sprintf("the budget of %s jobs would be exceeded by round %d (%s", thousands(r.cfg.MaxJobs), stage+1-r.n0, plural(len(r.alive), "survivor"))
			if u := r.unknown(); u > 0 {
				why += fmt.Sprintf(", %d of unknown feasibility", u)
			}
			return r.finish(Budget, stage, why+")")
		}
		lo, stage = stage, stage+1
	}
}

// maxAhead is the most stages a round asks for at once (ahead).
const maxAhead = 64

// ahead adds to need, the jobs of the stage the procedure waits for, the next stages'
// jobs of every survivor while nothing can change but refusals: no survivor can be
// selectable (known feasible and settled) before a later stage, so none can screen
// another out, be selected or end the selection before it. Asking for those stages in
// one round spends the same jobs in fewer rounds (a refused point's jobs past its
// refusal are the only waste); the decisions are the same, since the procedure takes
// the stages one by one whatever has been committed ahead. At most maxAhead stages,
// within the budget.
func (r *replay) ahead(need []Need, stage int) []Need {
	ready := math.MaxInt
	for _, i := range r.alive {
		ready = min(ready, r.readyStage(i))
	}
	last := min(ready, stage-1+maxAhead)
	if n := len(r.alive); n > 0 {
		last = min(last, stage-1+(r.cfg.MaxJobs-r.jobs())/n)
	}
	if last <= stage {
		return need
	}
	for _, i := range r.alive {
		for j := stage; j < last; j++ {
			if r.obs(i, j).State == Missing {
				need = append(need, Need{Point: i, Replicate: j})
			}
		}
	}
	slices.SortFunc(need, func(a, b Need) int {
		if a.Point != b.Point {
			return a.Point - b.Point
		}
		return a.Replicate - b.Replicate
	})
	return need
}

// readyStage is the earliest stage at which point i could be selectable, at best: its
// feasibility tests accepting it with every further run clean, and its values no longer
// a point mass, or past RareRunsPair.
func (r *replay) readyStage(i int) int {
	n := r.used[i]
	settle := 0
	if r.d.PointMass[i] {
		settle = min(r.d.RareRunsPair, 2*r.modal[i]+1)
	}
	ready := max(settle, r.feas[i].readyStage(r.p.Constraints, n, r))
	if r.p.Near != nil && r.nearState[i] == 0 {
		ready = max(ready, n) // a nearness test may accept at any stage
	}
	return ready
}

// take consumes replicate j of every survivor: means, modes, paired differences and
// the per-run feasibility tests (a point refused by one leaves at once).
func (r *replay) take(j, stage int) {
	for _, i := range r.alive {
		y := r.y(i, j)
		r.sum[i] += y
		r.used[i] = j + 1
		if r.p.Pareto != nil {
			continue // no objective X: the rare-event rule is per pair and metric
		}
		r.modes[i][y]++
		r.modal[i] = max(r.modal[i], r.modes[i][y])
		r.d.PointMass[i] = 2*r.modal[i] >= r.used[i] && r.used[i] >= 2
	}
	for a, i := range r.alive {
		for _, l := range r.alive[a+1:] {
			r.pairs[i][l].add(r.y(i, j) - r.y(l, j))
		}
	}
	r.takeNear(j)
	r.takePareto(j)
	for _, i := range slices.Clone(r.alive) {
		if why := r.feas[i].run(r.p.Constraints, r.obs(i, j).Values, j, r); why != "" {
			r.leave(i, stage, CauseInfeasible, why, -1, 0)
		}
	}
}

// pair is the statistics of the paired differences of i and l (either order).
func (r *replay) pair(i, l int) *pairStat {
	if i > l {
		i, l = l, i
	}
	return &r.pairs[i][l]
}

// badness says why observation o, replicate j, gives its point no value to compare (""
// when it has one).
func (r *replay) badness(o Obs, j int) string {
	switch o.State {
	case OK:
	case Failed:
		if o.Err == "" {
			return "failed"
		}
		return "failed: " + o.Err
	default:
		return fmt.Sprintf("failed: observation state %d", int(o.State))
	}
	if r.p.Pareto != nil {
		for m, po := range r.p.Pareto {
			if m >= len(o.Vec) || !finite(o.Vec[m]) {
				return fmt.Sprintf("no value of %s in replicate %d", po.Metric, j)
			}
		}
	} else if !finite(o.X) {
		why := "no value (null)"
		if r.p.Metric != "" {
			why = "no value of " + r.p.Metric
		}
		if o.Err != "" {
			why += fmt.Sprintf(" in replicate %d (%s)", j, o.Err)
		}
		return why
	}
	if r.p.Near != nil && !finite(o.Near) {
		return fmt.Sprintf("no value of %s in replicate %d", r.p.Near.Metric, j)
	}
	for c, con := range r.p.Constraints {
		if c >= len(o.Values) {
			return "no value for " + con.Text
		}
		if con.Kind == constraint.Mean && !finite(o.Values[c]) {
			return "no value for " + con.Text
		}
	}
	return ""
}

// heavy reports whether some pair of survivors has first-stage paired differences with
// a sample excess kurtosis above heavyKurtosis.
func (r *replay) heavy() bool {
	for a, i := range r.alive {
		for _, l := range r.alive[a+1:] {
			var ds []float64
			for j := range r.n0 {
				ds = append(ds, r.y(i, j)-r.y(l, j))
			}
			if excessKurtosis(ds) > heavyKurtosis {
				return true
			}
		}
	}
	return false
}

// excessKurtosis is n Σe⁴ / (Σe²)² − 3 over the deviations e from the mean (0 when
// every value is equal).
func excessKurtosis(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	var s2, s4 float64
	for _, x := range xs {
		e := (x - m) * (x - m)
		s2 += e
		s4 += e * e
	}
	if s2 == 0 {
		return 0
	}
	return float64(len(xs))*s4/(s2*s2) - 3
}

// firstStage resolves δ, computes h² and FixedJobs over the points that came through
// the first stage (r.alive), and turns screening on.
func (r *replay) firstStage() {
	r.started = true
	r.d.FirstStage = r.n0
	if len(r.alive) == 0 {
		return
	}
	if r.p.Pareto != nil {
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

// h2At is h² = 2η(n − 1), η = ½[(2β)^(−2/(n − 1)) − 1] for n replicates and the
// screening's share per pair β = Split.Screening / (k − 1): KN's constant at the first
// stage, recomputed at every later stage with the variances as KN++ does (0 for one
// point). As n grows it falls to 2 ln(1/(2β)).
func (r *replay) h2At(n int) float64 {
	if r.k < 2 {
		return 0
	}
	return hSquared(r.d.Split.Screening/float64(r.k-1), n)
}

// hSquared is (n − 1)[(2β)^(−2/(n − 1)) − 1]: KN's h² for a pair's error β (Batur and
// Kim's for one constraint's) with n − 1 degrees of freedom.
func hSquared(beta float64, n int) float64 {
	df := float64(n - 1)
	return df * (math.Pow(2*beta, -2/df) - 1)
}

// fixedJobs is the two-stage Bonferroni design of equal confidence from the first
// stage (Decision.FixedJobs).
func (r *replay) fixedJobs() int {
	kk := len(r.alive)
	n := float64(r.n0)
	if kk >= 2 {
		var s2max float64
		degenerate := false
		for a, i := range r.alive {
			if r.d.PointMass[i] {
				degenerate = true
			}
			for _, l := range r.alive[a+1:] {
				s := r.pair(i, l)
				s2max = max(s2max, s.variance())
				degenerate = degenerate || s.allEqual
			}
		}
		t := r.tq.quantile(1-(r.d.Split.Screening+r.d.Split.Rare)/float64(r.k-1), r.n0-1)
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
	return kk * int(n)
}

func (r *replay) y(i, j int) float64 { return r.sign * r.obs(i, j).X }

// percentDelta is DeltaPercent of |the best first-stage mean| of the points with values;
// when that mean is 0, of the largest |mean|; when every mean is 0, of the largest |X| of
// the first stage. When every first-stage value is 0, every difference is 0 and every
// mean ties, so any δ > 0 gives the same decision: it is 1.
func (r *replay) percentDelta() float64 {
	best, largest, largestX := math.Inf(1), 0.0, 0.0
	for _, i := range r.alive {
		m := r.mean(i)
		best = min(best, m)
		largest = max(largest, math.Abs(m))
		for j := range r.n0 {
			largestX = max(largestX, math.Abs(r.obs(i, j).X))
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
	return math.SmallestNonzeroFloat64 // a percent so small that it underflows
}

// tCache holds the t quantiles a replay has asked for, by probability and degrees of
// freedom: a stage asks every pair (and every metric of a Pareto objective) for the
// same quantile, and each costs a bisection.
type tCache map[struct {
	p  float64
	df int
}]float64

// quantile is t_{p, df} (tQuantile), computed once per cache.
func (c tCache) quantile(p float64, df int) float64 {
	k := struct {
		p  float64
		df int
	}{p, df}
	q, ok := c[k]
	if !ok {
		q = tQuantile(p, df)
		c[k] = q
	}
	return q
}

// ratio is h² S² / δ²: 0 when S² is 0 (or h² is, for one point), whatever δ.
func (r *replay) ratio(s2 float64) float64 {
	if s2 == 0 || r.h2 == 0 {
		return 0
	}
	return r.h2 * s2 / (r.delta * r.delta)
}

// nil_ is N_il at the stage: ⌊h² S²_il / δ²⌋ with the variance of all the pair's
// replicates so far, capped at maxN.
func (r *replay) nil_(i, l int) float64 {
	n := math.Floor(r.ratio(r.pair(i, l).variance()))
	if !(n <= maxN) { // NaN too (differences that overflow)
		return maxN
	}
	return n
}

// comparable reports whether the pair may be decided at the stage: not while its
// paired differences have all been equal and the stage is short of RareRunsPair.
func (r *replay) comparable(i, l, stage int) bool {
	return !r.pair(i, l).allEqual || stage >= r.d.RareRunsPair
}

// settled reports whether point i's values may be relied on at the stage: not while
// they are a point mass and the stage is short of RareRunsPair.
func (r *replay) settled(i, stage int) bool {
	return !r.d.PointMass[i] || stage >= r.d.RareRunsPair
}

// selectable reports whether point i could be the answer at the stage: known feasible,
// and settled.
func (r *replay) selectable(i, stage int) bool {
	return r.feasible(i) && r.settled(i, stage) && r.near(i)
}

// screen is KN's screening at the stage over the survivors at its start: point i
// leaves when a survivor l that may screen (known feasible, settled) has a mean better
// by more than W_il = max(0, δ/(2r)·(h² S²_il/δ² − r)), S²_il over all the pair's
// replicates so far. Its eliminator is the best such l (ties: the earliest).
func (r *replay) screen(stage int) {
	if !r.started || len(r.alive) < 2 || !r.nearDone() {
		return
	}
	r.h2 = r.h2At(stage)
	old := slices.Clone(r.alive)
	rr := float64(stage)
	for _, i := range old {
		by := -1
		for _, l := range old {
			if l == i || !r.selectable(l, stage) || !r.comparable(i, l, stage) {
				continue
			}
			w := max(0, r.delta/(2*rr)*(r.ratio(r.pair(i, l).variance())-rr))
			if r.mean(i) > r.mean(l)+w && (by == -1 || r.mean(l) < r.mean(by)) {
				by = l
			}
		}
		if by >= 0 {
			gap := r.mean(i) - r.mean(by)
			r.leave(i, stage, CauseScreened, r.screenReason(by, gap, stage), by, gap)
		}
	}
}

// screenReason words a screening as what it proves: beyond the indifference, a point
// worse than δ; within it, a point that may be as good as the best to within δ.
func (r *replay) screenReason(by int, gap float64, stage int) string {
	g := num(gap)
	if gap >= r.delta {
		return fmt.Sprintf("worse than %s by %s on %d paired replicates, beyond the indifference (%s)", r.name(by), g, stage, num(r.delta))
	}
	return fmt.Sprintf("within the indifference (%s) of %s, %s worse on %d paired replicates: dropped as no better, either would be a correct answer", num(r.delta), r.name(by), g, stage)
}

// resolved reports whether every pair of survivors has reached the end of its
// continuation region at the stage (stage > N_il, and past RareRunsPair for a pair
// whose differences have all been equal) and every survivor could be the answer
// (selectable): a survivor that may not screen yet could still be the best.
func (r *replay) resolved(stage int) bool {
	if !r.started {
		return false
	}
	r.h2 = r.h2At(stage)
	for _, i := range r.alive {
		if !r.selectable(i, stage) {
			return false
		}
	}
	for a, i := range r.alive {
		for _, l := range r.alive[a+1:] {
			if !r.comparable(i, l, stage) || float64(stage) < r.nil_(i, l)+1 {
				return false
			}
		}
	}
	return true
}

func (r *replay) anyEqualPair() bool {
	for a, i := range r.alive {
		for _, l := range r.alive[a+1:] {
			if r.pair(i, l).allEqual {
				return true
			}
		}
	}
	return false
}

// name is a point's label, or "point i" when it has none.
func (r *replay) name(i int) string {
	if l := r.p.Points[i].Label; l != "" {
		return l
	}
	return "point " + strconv.Itoa(i)
}

// feasible reports whether point i is known to be feasible (all its tests accept it).
func (r *replay) feasible(i int) bool { return r.feas[i].state() == 1 }

func (r *replay) unknown() (n int) {
	for _, i := range r.alive {
		if !r.feasible(i) {
			n++
		}
	}
	return n
}

func (r *replay) jobs() (n int) {
	for _, u := range r.used {
		n += u
	}
	return n
}

// best is the survivor with the best mean among the selectable ones (onlySelectable),
// else among the known-feasible ones, else among all survivors (ties: the earliest);
// -1 before the first stage is complete, or, with onlySelectable, when none is.
func (r *replay) best(stage int, onlySelectable bool) int {
	for _, level := range []int{2, 1, 0} {
		b := -1
		for _, i := range r.alive {
			if r.used[i] == 0 || level == 2 && !r.selectable(i, stage) || level == 1 && !r.feasible(i) {
				continue
			}
			if b == -1 || r.mean(i) < r.mean(b) {
				b = i
			}
		}
		if b >= 0 || onlySelectable {
			return b
		}
	}
	return -1
}

// whyNone says why no point is left.
func (r *replay) whyNone() string {
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
	why := fmt.Sprintf("every point is infeasible or failed (%d infeasible, %d failed or without a value", infeasible, failed)
	if screened > 0 {
		why += fmt.Sprintf(", %d screened out by points that failed later", screened)
	}
	return why + ")"
}

// finish fills the Decision after the last complete stage.
func (r *replay) finish(s State, stage int, why string) Decision {
	d := r.d
	d.State, d.Why = s, why
	if stage > 0 && r.started {
		d.Stage, d.Round = stage, stage-r.n0
	}
	d.Survivors = append(d.Survivors, r.alive...)
	d.Jobs = r.jobs()
	switch {
	case r.p.Pareto != nil:
		r.finishPareto(&d)
	case s == Decided:
		d.Best = r.best(stage, true)
		r.equivalent(&d)
	case s == Running || s == Budget:
		d.Best = r.best(stage, false)
	}
	for i := range r.k {
		d.Means[i] = math.NaN()
		if r.used[i] > 0 && !r.failed[i] {
			d.Means[i] = r.sign * r.mean(i)
		}
		d.Feasible[i] = r.feas[i].state()
	}
	return d
}

// equivalent fills d.Equivalent and d.Flat for the decided d.
func (r *replay) equivalent(d *Decision) {
	if d.Best < 0 {
		return
	}
	d.Equivalent, d.Flat = equivalentOf(r.k, r.alive, r.d.Eliminated, r.delta, func(i int) float64 { return r.mean(i) - r.mean(d.Best) })
}

// equivalentOf returns, in index order, the points of a decided selection as good as
// its best to within delta: the survivors and the points screened out at a gap below
// delta whose mean (behind(i): how much worse than the best, in the metric's
// orientation) is also within it; and whether that is every point not refused or failed
// and more than one (flat). A point far on the primary of a secondary objective
// (CauseFar) was told apart, so a study with one is not flat.
func equivalentOf(k int, alive []int, eliminated []Elimination, delta float64, behind func(int) float64) (eq []int, flat bool) {
	in := map[int]bool{}
	for _, i := range alive {
		in[i] = true
	}
	flat = true
	for _, e := range eliminated {
		if e.Cause == CauseFar {
			flat = false
		}
		if e.Cause != CauseScreened {
			continue
		}
		if e.Gap < delta && behind(e.Point) < delta {
			in[e.Point] = true
		} else {
			flat = false
		}
	}
	for i := range k {
		if in[i] {
			eq = append(eq, i)
		}
	}
	return eq, flat && len(eq) > 1
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}

// thousands writes n with a comma between groups of three digits: 2,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// num writes x with at most four significant digits (spec.md "Replicates as statistics").
func num(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// percent writes a share as a percent: 0.01 as "1%".
func percent(p float64) string { return strconv.FormatFloat(100*p, 'g', 4, 64) + "%" }

// waitingFor says which jobs a running selection waits for: "waiting for 12 jobs of
// round 3" (or "of rounds 3 to 9" when it asks ahead, "of the first stage" before its
// first screening), stage being the replicates the round needs and n0 the first stage.
func waitingFor(need []Need, started bool, stage, n0 int) string {
	what := "the first stage"
	if started {
		what = "round " + strconv.Itoa(stage-n0)
		if last := slices.MaxFunc(need, func(a, b Need) int { return a.Replicate - b.Replicate }).Replicate + 1; last > stage {
			what = fmt.Sprintf("rounds %d to %d", stage-n0, last-n0)
		}
	}
	return fmt.Sprintf("waiting for %s of %s", plural(len(need), "job"), what)
}
