package selection

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/rocesweep/rocesweep/internal/constraint"
)

// maxN caps N_il = ⌊h² S²_il / δ²⌋ (a tiny δ or a huge variance would overflow an int):
// 2^40 replicates is beyond any budget, so the cap never changes a decision.
const maxN = 1 << 40

// Validate reports what makes p unusable by Decide: no points, a goal other than min or
// max, a confidence outside [0.5, 1), fewer than 2 first-stage replicates, no positive
// indifference, a budget smaller than the first stage (k × n0), or a constraint of an
// unknown sense. Config is checked with its defaults applied (Config.WithDefaults), as
// Decide applies them. These are properties of the study's spec, not of its results:
// a spec loader calls Validate once, before the first job runs.
func (p Problem) Validate() error {
	k := len(p.Points)
	if k == 0 {
		return errors.New("no points to select from")
	}
	if p.Goal != Min && p.Goal != Max {
		return fmt.Errorf("goal %q is neither %q nor %q", p.Goal, Min, Max)
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
	switch {
	case math.IsNaN(p.DeltaPercent) || math.IsInf(p.DeltaPercent, 0) || p.DeltaPercent < 0:
		return fmt.Errorf("indifference percent %g is not a positive number", p.DeltaPercent)
	case p.DeltaPercent == 0 && !(p.Delta > 0 && !math.IsInf(p.Delta, 0)):
		return fmt.Errorf("indifference %g is not a positive number (and no percent is given)", p.Delta)
	}
	for _, c := range p.Constraints {
		if c.Sense < constraint.Holds || c.Sense > constraint.NE {
			return fmt.Errorf("constraint %q has an unknown sense %d", c.Text, int(c.Sense))
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
// not: a failed job, a null value, a missing or non-finite margin make that point leave
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
	p      Problem
	cfg    Config
	k, n0  int
	alpha  float64
	sign   float64
	alive  []int       // survivors, plan order
	sum    []float64   // Σ y over the used replicates
	used   []int       // replicates consumed (committed ones, up to the stage the point reached)
	cfeas  [][]int     // per point and constraint: 1 known feasible, -1 infeasible, 0 unknown
	failed []bool      // left with a failed job or without a value
	s2     [][]float64 // S²_il of the first stage
	h2     float64
	delta  float64
	tq     map[int]float64 // t quantile by degrees of freedom
	d      Decision
}

func newReplay(p Problem) *replay {
	k := len(p.Points)
	cfg := p.Config.WithDefaults(k)
	r := &replay{
		p: p, cfg: cfg, k: k, n0: cfg.Initial, alpha: 1 - cfg.Confidence, sign: 1,
		sum: make([]float64, k), used: make([]int, k), cfeas: make([][]int, k),
		failed: make([]bool, k), tq: map[int]float64{},
	}
	if p.Goal == Max {
		r.sign = -1
	}
	r.d = Decision{
		Best:       -1,
		Survivors:  []int{},
		Eliminated: []Elimination{},
		Need:       []Need{},
		Confidence: cfg.Confidence,
		Means:      make([]float64, k),
		Used:       r.used,
		Feasible:   make([]int, k),
		Labels:     make([]string, k),
	}
	if p.DeltaPercent == 0 {
		r.delta = p.Delta
		r.d.Delta = p.Delta
	}
	for i, pt := range p.Points {
		r.alive = append(r.alive, i)
		r.cfeas[i] = make([]int, len(p.Constraints))
		r.d.Labels[i] = pt.Label
	}
	return r
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
func (r *replay) leave(i, stage int, reason string, by int) {
	r.alive = slices.DeleteFunc(r.alive, func(x int) bool { return x == i })
	r.d.Eliminated = append(r.d.Eliminated, Elimination{Point: i, Round: stage - r.n0, Reason: reason, By: by})
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
					bad = r.badness(o)
				}
			}
			if bad != "" {
				r.failed[i] = true
				r.used[i] += committed
				r.leave(i, stage, bad, -1)
				continue
			}
			need = append(need, miss...)
		}
		if len(need) > 0 {
			r.d.Need = need
			what := "the first stage"
			if stage > r.n0 {
				what = "round " + strconv.Itoa(stage-r.n0)
			}
			return r.finish(Running, lo, fmt.Sprintf("waiting for %s of %s", plural(len(need), "job"), what))
		}

		// The stage is complete.
		for _, i := range r.alive {
			for j := lo; j < stage; j++ {
				r.sum[i] += r.sign * r.obs(i, j).X
			}
			r.used[i] = stage
		}
		if stage == r.n0 {
			r.firstStage()
		}
		r.feasibility(stage)
		r.screen(stage)

		// Stop?
		switch {
		case len(r.alive) == 0:
			return r.finish(Infeasible, stage, r.whyNone())
		case len(r.alive) == 1 && r.feasible(r.alive[0]):
			why := "one point survived"
			if r.k == 1 {
				why = "there is only one point"
			}
			return r.finish(Decided, stage, why)
		case r.allFeasible() && float64(stage) >= r.maxN()+1:
			return r.finish(Decided, stage, fmt.Sprintf("the %d remaining points are within the indifference of each other", len(r.alive)))
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

// badness says why observation o gives its point no value to compare ("" when it has one).
func (r *replay) badness(o Obs) string {
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
	if !finite(o.X) {
		if r.p.Metric != "" {
			return "no value of " + r.p.Metric
		}
		return "no value (null)"
	}
	for c, con := range r.p.Constraints {
		if c >= len(o.Margins) || !finite(o.Margins[c]) {
			return "no value for " + con.Text
		}
	}
	return ""
}

// firstStage resolves δ and computes S²_il, N_il, N_i, h² and FixedJobs over the points
// that came through the first stage with values (r.alive).
func (r *replay) firstStage() {
	if len(r.alive) == 0 {
		return
	}
	if r.p.DeltaPercent > 0 {
		r.delta = r.percentDelta()
		r.d.Delta = r.delta
	}
	if r.k >= 2 {
		eta := 0.5 * (math.Pow(2*r.alpha/float64(r.k-1), -2/float64(r.n0-1)) - 1)
		r.h2 = 2 * eta * float64(r.n0-1)
	}
	r.d.H2 = r.h2
	r.s2 = make([][]float64, r.k)
	for i := range r.s2 {
		r.s2[i] = make([]float64, r.k)
	}
	maxNil := 0.0
	for a, i := range r.alive {
		for _, l := range r.alive[a+1:] {
			var m float64
			for j := range r.n0 {
				m += r.y(i, j) - r.y(l, j)
			}
			m /= float64(r.n0)
			var ss float64
			for j := range r.n0 {
				e := r.y(i, j) - r.y(l, j) - m
				ss += e * e
			}
			s2 := ss / float64(r.n0-1)
			r.s2[i][l], r.s2[l][i] = s2, s2
			n := math.Floor(r.ratio(s2))
			if !(n <= maxN) { // NaN too (differences that overflow)
				n = maxN
			}
			maxNil = max(maxNil, n)
		}
	}
	r.d.FixedJobs = len(r.alive) * max(r.n0, int(maxNil)+1)
}

// ratio is h² S² / δ²: 0 when S² is 0 (or h² is, for one point), whatever δ.
func (r *replay) ratio(s2 float64) float64 {
	if s2 == 0 || r.h2 == 0 {
		return 0
	}
	return r.h2 * s2 / (r.delta * r.delta)
}

func (r *replay) y(i, j int) float64 { return r.sign * r.obs(i, j).X }

// percentDelta is DeltaPercent of |the best first-stage mean| of the points with values;
// when that mean is 0, of the largest |mean|; when every mean is 0, of the largest |X| of
// the first stage. When every first-stage value is 0, every S² is 0 and every mean ties,
// so any δ > 0 gives the same decision: it is 1.
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

// feasibility updates every survivor's constraints over its replicates 0..stage-1; a
// point found infeasible leaves.
func (r *replay) feasibility(stage int) {
	if len(r.p.Constraints) == 0 {
		return
	}
	for _, i := range slices.Clone(r.alive) {
		for c, con := range r.p.Constraints {
			if r.cfeas[i][c] != 0 {
				continue
			}
			ms := make([]float64, stage)
			for j := range stage {
				ms[j] = r.obs(i, j).Margins[c]
			}
			r.cfeas[i][c] = judge(con.Sense, ms, r.tQuantile(stage-1))
			if r.cfeas[i][c] == -1 {
				r.leave(i, stage, "infeasible: "+con.Text, -1)
				break
			}
		}
	}
}

// tQuantile is t_{1−α/2, df}, cached.
func (r *replay) tQuantile(df int) float64 {
	q, ok := r.tq[df]
	if !ok {
		q = tQuantile(1-r.alpha/2, df)
		r.tq[df] = q
	}
	return q
}

// judge places the interval mean ± tq·s/√n of the margins ms against zero for sense:
// -1 wholly on the wrong side (infeasible), 1 wholly on the right side (known feasible),
// 0 not yet known. Margins that are all equal have a zero half-width.
func judge(sense constraint.Sense, ms []float64, tq float64) int {
	n := float64(len(ms))
	lo, hi := slices.Min(ms), slices.Max(ms)
	m, h := lo, 0.0
	if lo != hi {
		m = 0
		for _, x := range ms {
			m += x
		}
		m /= n
		var ss float64
		for _, x := range ms {
			ss += (x - m) * (x - m)
		}
		h = tq * math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	}
	var bad, good bool
	switch sense {
	case constraint.Holds: // margin 1 where the expression holds, 0 where not
		bad, good = hi == 0 && lo == 0, lo == 1 && hi == 1
	case constraint.LE:
		bad, good = m-h > 0, m+h <= 0
	case constraint.LT:
		bad, good = m-h >= 0, m+h < 0
	case constraint.GE:
		bad, good = m+h < 0, m-h >= 0
	case constraint.GT:
		bad, good = m+h <= 0, m-h > 0
	case constraint.EQ:
		bad, good = m-h > 0 || m+h < 0, m == 0 && h == 0
	case constraint.NE:
		bad, good = m == 0 && h == 0, m-h > 0 || m+h < 0
	}
	switch {
	case bad:
		return -1
	case good:
		return 1
	}
	return 0
}

// feasible reports whether point i is known to be feasible (all its constraints are).
func (r *replay) feasible(i int) bool {
	for _, f := range r.cfeas[i] {
		if f != 1 {
			return false
		}
	}
	return true
}

func (r *replay) allFeasible() bool {
	for _, i := range r.alive {
		if !r.feasible(i) {
			return false
		}
	}
	return true
}

func (r *replay) unknown() (n int) {
	for _, i := range r.alive {
		if !r.feasible(i) {
			n++
		}
	}
	return n
}

// screen is KN's screening at stage r over the survivors at its start (I_old): point i
// leaves when a known-feasible l in I_old has a mean better by more than W_il(r). Its
// eliminator is the best such l (ties: the earliest).
func (r *replay) screen(stage int) {
	old := slices.Clone(r.alive)
	rr := float64(stage)
	for _, i := range old {
		by := -1
		for _, l := range old {
			if l == i || !r.feasible(l) {
				continue
			}
			w := max(0, r.delta/(2*rr)*(r.ratio(r.s2[i][l])-rr))
			if r.mean(i) > r.mean(l)+w && (by == -1 || r.mean(l) < r.mean(by)) {
				by = l
			}
		}
		if by >= 0 {
			r.leave(i, stage, "worse than "+r.name(by)+" beyond the noise of their paired differences", by)
		}
	}
}

// name is a point's label, or "point i" when it has none.
func (r *replay) name(i int) string {
	if l := r.p.Points[i].Label; l != "" {
		return l
	}
	return "point " + strconv.Itoa(i)
}

// maxN is the largest N_il over the pairs of survivors. Once the stage passes it, every
// pair still in contention has reached the end of its continuation region (W_il = 0) and
// is resolved by its means, so the procedure stops; KN's rule takes N_i over every other
// point, eliminated ones too, which keeps sampling survivors against points that already
// left. A pair's screening is all that its part of the guarantee rests on (KN's proof
// bounds the chance that the best point leaves against each other point separately), so
// stopping at the survivors' pairs keeps the guarantee and spends fewer jobs: a study
// whose best points tie exactly (Xoff values that never pause) stops as soon as the
// noisy points have left.
func (r *replay) maxN() float64 {
	var n float64
	for a, i := range r.alive {
		for _, l := range r.alive[a+1:] {
			pair := math.Floor(r.ratio(r.s2[i][l]))
			if !(pair <= maxN) { // NaN too, as in firstStage
				pair = maxN
			}
			n = max(n, pair)
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

// best is the survivor with the best mean among the known-feasible ones, else among all
// survivors (ties: the earliest); -1 before the first stage is complete.
func (r *replay) best() int {
	for _, feasibleOnly := range []bool{true, false} {
		b := -1
		for _, i := range r.alive {
			if r.used[i] == 0 || (feasibleOnly && !r.feasible(i)) {
				continue
			}
			if b == -1 || r.mean(i) < r.mean(b) {
				b = i
			}
		}
		if b >= 0 {
			return b
		}
	}
	return -1
}

// whyNone says why no point is left.
func (r *replay) whyNone() string {
	var infeasible, failed, screened int
	for _, e := range r.d.Eliminated {
		switch {
		case e.By >= 0:
			screened++
		case r.failed[e.Point]:
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
	if stage > 0 {
		d.Stage, d.Round = stage, stage-r.n0
	}
	d.Survivors = append(d.Survivors, r.alive...)
	d.Jobs = r.jobs()
	switch s {
	case Decided, Running, Budget:
		d.Best = r.best()
	}
	for i := range r.k {
		d.Means[i] = math.NaN()
		if r.used[i] > 0 && !r.failed[i] {
			d.Means[i] = r.sign * r.mean(i)
		}
		switch {
		case r.feasible(i):
			d.Feasible[i] = 1
		case slices.Contains(r.cfeas[i], -1):
			d.Feasible[i] = -1
		}
	}
	return d
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
