package selection

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// A bisection (docs/statistics.md §12) answers the engineer's sizing question for every
// condition of a study (each grid point: a cable delay, a lane count): the smallest
// value of an attribute in a range, to a resolution, at which subject_to holds (a
// headroom), or the largest (a NIC Xoff). It is not a grid: for each condition it probes
// the safe end of the range, then halves the interval between the last value that held
// and the first that failed, 1 + ⌈log2(K + 1)⌉ probes for the K + 1 values of the
// range's lattice, then probes `checks` values the halving skipped, where the answer's
// monotonicity is taken on trust, and reports any probe that contradicts another.
//
// A probe is one configuration judged on its constraints: one run when the jobs are
// deterministic (Bisect.Deterministic), else a ProbeTest, each of its tests wrong with
// probability at most α / (conditions × probes per condition × tests per probe), so
// that every verdict of every condition is right with probability at least 1 − α
// (Bonferroni). The answer's two statements, "holds at the answer" and "fails one
// resolution step beyond it", are verdicts of probes, so they hold with that
// confidence whatever the response's shape; that every value on the answer's safe side
// holds too is the monotonicity the checks test.
//
// BisectDecide is a pure function of the observations, replayed from the first probe on
// every call, as Decide is: a killed and resumed run, any -j and any shards reach the
// same probes, the same jobs and the same answers.

// BisectMaxJobs is the default budget of a bisection over c conditions: every probe's
// jobs at their most, for deterministic jobs (a bound never reached); else
// max(2 × RareRuns, 10 × initial) jobs per probe (a plain condition's test never needs
// more than RareRuns; Wald's and Batur and Kim's tests have no fixed bound).
func BisectMaxJobs(b *question.Bisect, cfg question.Config, c, tests int) int {
	p := b.BisectProbes()
	if b.Deterministic {
		return c * p
	}
	beta := (1 - cfg.Confidence) / float64(c*p*max(tests, 1)) // split's per-test share
	return c * p * max(2*question.RareRuns(cfg.Rare, beta), 10*cfg.Initial)
}

// BisectProblem is everything BisectDecide needs.
type BisectProblem struct {
	Bisect      question.Bisect
	Constraints []Constraint
	// Config: Confidence, Rare, Initial (a stochastic probe's first batch, and the runs
	// before a mean bound is judged) and MaxJobs, with defaults applied
	// (Config.WithDefaults; MaxJobs 0 means BisectMaxJobs).
	Config question.Config
	// Conditions label the conditions (the grid points), in plan order.
	Conditions []string
	// Obs returns condition c's run at lattice step k, replicate r (Missing when it is
	// not committed). It must be a pure function during one BisectDecide call.
	Obs func(c, k, r int) Obs
	// Format writes a value of the attribute for the reasons ("750KB"); nil: a number of
	// four significant digits.
	Format func(v float64) string
}

// val writes lattice step k's value (Format).
func (p *BisectProblem) val(k int) string {
	v := p.Bisect.Value(k)
	if p.Format != nil {
		return p.Format(v)
	}
	return num(v)
}

// split is the confidence split of a stochastic bisection (Bonferroni): each probe's
// share of α = 1 − confidence over the conditions × the most probes a condition takes,
// and each test's share of that over the tests a probe makes.
func (p *BisectProblem) split(cfg question.Config) (perProbe, perTest float64) {
	perProbe = (1 - cfg.Confidence) / float64(len(p.Conditions)*p.Bisect.BisectProbes())
	return perProbe, perProbe / float64(TestsPerProbe(p.Constraints))
}

// CondState is where one condition's bisection stands.
type CondState string

const (
	CondRunning     CondState = "running"      // probes still to run
	CondAnswered    CondState = "answered"     // Answer (and Fails, unless the range's end) found
	CondNoneSafe    CondState = "none-safe"    // the range's safe end fails: no answer in the range
	CondNonMonotone CondState = "non-monotone" // a probe contradicts another: Contradiction says which
	CondFailed      CondState = "failed"       // a job failed (Why): no verdict
	CondBudget      CondState = "budget"       // stopped by select.max_jobs
)

// Probe is one value a condition's bisection judged.
type Probe struct {
	Step    int     `json:"step"`
	Value   float64 `json:"value"`
	Verdict int     `json:"verdict"` // 1 holds, -1 fails, 0 open (waiting for jobs)
	Runs    int     `json:"runs"`    // runs its verdict used
	Jobs    int     `json:"jobs"`    // jobs it asked for and has committed (≥ Runs: a batch's tail)
	Reason  string  `json:"reason,omitempty"`
	Check   bool    `json:"check,omitempty"` // a monotonicity check, not a halving
}

// BisectCondition is one condition's bisection.
type BisectCondition struct {
	Label string    `json:"label"`
	State CondState `json:"state"`
	Why   string    `json:"why"`
	// Answer is the lattice step of the answer (-1 without one): the smallest (largest)
	// value that held. Fails is the step one resolution beyond it towards the range's
	// unsafe end, which failed; -1 when the answer is the unsafe end itself (the whole
	// range holds) or there is no answer.
	Answer int     `json:"answer_step"`
	Fails  int     `json:"fails_step"`
	Probes []Probe `json:"probes"`
	Jobs   int     `json:"jobs"`
	// Contradiction names the probes that disagree with monotonicity (CondNonMonotone).
	Contradiction string `json:"contradiction,omitempty"`
}

// ProbeNeed is one job a bisection waits for: condition Cond's run at lattice step Step,
// replicate Replicate; Seq is the job's place in its condition's sequence of jobs (from
// 0), which the planner turns into a plan index (shards split by it).
type ProbeNeed struct{ Cond, Step, Replicate, Seq int }

// BisectDecision is what BisectDecide concludes.
type BisectDecision struct {
	State State  `json:"state"` // Running, Decided (every condition ended), Budget
	Why   string `json:"why"`
	// Round is the probes of the condition furthest along (the rounds a deterministic
	// bisection has run).
	Round      int               `json:"round"`
	Conditions []BisectCondition `json:"conditions"`
	Need       []ProbeNeed       `json:"-"`
	// Jobs is the jobs asked for and committed, over every condition; MaxJobs the budget.
	Jobs          int     `json:"jobs"`
	MaxJobs       int     `json:"max_jobs"`
	Confidence    float64 `json:"confidence"`
	Deterministic bool    `json:"deterministic"`
	// Steps is K; Probes the most probes per condition (BisectProbes).
	Steps  int `json:"steps"`
	Probes int `json:"probes_per_condition"`
	// PerProbe is each probe's share of α (α / (conditions × Probes)); PerTest one of its
	// tests' (PerProbe / Tests). Zero for deterministic jobs.
	PerProbe float64 `json:"per_probe,omitempty"`
	PerTest  float64 `json:"per_test,omitempty"`
	Tests    int     `json:"tests_per_probe"`
	// Rare is the rare-event resolution; RareRunsOK the clean runs after which a probe's
	// plain conditions are accepted (stochastic jobs).
	Rare       float64 `json:"rare,omitempty"`
	RareRunsOK int     `json:"rare_runs,omitempty"`
}

// Validate reports what makes p unusable: no conditions, a direction other than
// smallest or largest, an empty range or a resolution that is not above 0, no
// constraint, a confidence outside [0.5, 1), a rare-event share outside (0, 0.5], fewer
// than 2 initial runs, or a constraint that is not well formed. A spec loader calls it
// once, before the first job runs.
func (p BisectProblem) Validate() error {
	b := p.Bisect
	switch {
	case len(p.Conditions) == 0:
		return errors.New("no conditions to bisect over")
	case b.Direction != question.Smallest && b.Direction != question.Largest:
		return fmt.Errorf("direction %q is neither %q nor %q", b.Direction, question.Smallest, question.Largest)
	case !finite(b.From) || !finite(b.To) || !(b.To > b.From):
		return fmt.Errorf("range [%g, %g] is empty: its second value must be above its first", b.From, b.To)
	case !(b.Resolution > 0) || !finite(b.Resolution):
		return fmt.Errorf("resolution %g is not above 0", b.Resolution)
	case b.Checks < 0:
		return fmt.Errorf("checks %d is below 0", b.Checks)
	case len(p.Constraints) == 0:
		return errors.New("a bisection needs subject_to: the constraint that makes a value safe")
	case p.Obs == nil:
		return errors.New("no observations (Obs is nil)")
	}
	q := Problem{Goal: question.Min, Delta: 1, Constraints: p.Constraints, Config: p.Config, Points: make([]Point, len(p.Conditions))}
	cfg := p.config()
	q.Config.MaxJobs = max(cfg.MaxJobs, len(p.Conditions)*cfg.Initial)
	return q.Validate()
}

// config is p.Config with its defaults, MaxJobs BisectMaxJobs's when unset.
func (p BisectProblem) config() question.Config {
	maxJobs := p.Config.MaxJobs
	c := p.Config.WithDefaults(len(p.Conditions)) // a selection's MaxJobs default ...
	c.MaxJobs = maxJobs                           // ... is not a bisection's
	if c.MaxJobs == 0 {
		c.MaxJobs = BisectMaxJobs(&p.Bisect, c, len(p.Conditions), TestsPerProbe(p.Constraints))
	}
	return c
}

// BisectDecide replays the bisection of every condition from its first probe and says
// where it stands (see above). A Problem that fails Validate is a programming error and
// makes it panic; a failed job, a null or a missing value are not.
func BisectDecide(p BisectProblem) BisectDecision {
	if err := p.Validate(); err != nil {
		panic("selection.BisectDecide: " + err.Error())
	}
	cfg := p.config()
	b := p.Bisect
	d := BisectDecision{State: Decided, Confidence: cfg.Confidence, Deterministic: b.Deterministic, Steps: b.Steps(),
		Probes: b.BisectProbes(), Tests: TestsPerProbe(p.Constraints), MaxJobs: cfg.MaxJobs, Conditions: []BisectCondition{}, Need: []ProbeNeed{}}
	if !b.Deterministic {
		d.PerProbe, d.PerTest = p.split(cfg)
		d.Rare, d.RareRunsOK = cfg.Rare, question.RareRuns(cfg.Rare, d.PerTest)
	}
	for c := range p.Conditions {
		cr := condReplay{p: &p, cfg: cfg, d: &d, c: c}
		cond, need := cr.run()
		d.Conditions = append(d.Conditions, cond)
		d.Need = append(d.Need, need...)
		d.Jobs += cond.Jobs
		d.Round = max(d.Round, len(cond.Probes))
	}
	running := 0
	for _, c := range d.Conditions {
		if c.State == CondRunning {
			running++
		}
	}
	switch {
	case len(d.Need) > 0 && d.Jobs+len(d.Need) > cfg.MaxJobs:
		d.State = Budget
		d.Why = fmt.Sprintf("select.max_jobs %s would be exceeded: %s used, the next probes need %s more", thousands(cfg.MaxJobs), plural(d.Jobs, "job"), thousands(len(d.Need)))
		d.Need = []ProbeNeed{}
		for i := range d.Conditions {
			if c := &d.Conditions[i]; c.State == CondRunning {
				c.State, c.Why = CondBudget, "stopped by the budget (select.max_jobs) before its answer"
			}
		}
	case len(d.Need) > 0:
		d.State = Running
		d.Why = fmt.Sprintf("waiting for %s of %s still open", plural(len(d.Need), "job"), plural(running, "condition"))
	default:
		d.Why = d.summary()
	}
	return d
}

// summary says how the conditions ended: "every condition answered", or the counts of
// each state.
func (d *BisectDecision) summary() string {
	count := map[CondState]int{}
	for _, c := range d.Conditions {
		count[c.State]++
	}
	if count[CondAnswered] == len(d.Conditions) {
		if len(d.Conditions) == 1 {
			return "the condition is answered"
		}
		return fmt.Sprintf("all %d conditions answered", len(d.Conditions))
	}
	var parts []string
	for _, s := range []struct {
		st   CondState
		what string
	}{{CondAnswered, "answered"}, {CondNoneSafe, "with no safe value in the range"}, {CondNonMonotone, "non-monotone"}, {CondFailed, "stopped by a failed job"}} {
		if n := count[s.st]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s.what))
		}
	}
	return fmt.Sprintf("of %s: %s", plural(len(d.Conditions), "condition"), strings.Join(parts, ", "))
}

// condReplay is one condition's bisection, replayed. Steps are handled in t, the
// distance from the range's safe end (t = 0 is the safe end, t = K the other).
type condReplay struct {
	p    *BisectProblem
	cfg  question.Config
	d    *BisectDecision
	c    int
	seq  int // jobs asked so far, in order
	cond BisectCondition
}

// step is the lattice step of t.
func (r *condReplay) step(t int) int {
	if r.p.Bisect.Direction == question.Smallest {
		return r.p.Bisect.Steps() - t
	}
	return t
}

func (r *condReplay) run() (BisectCondition, []ProbeNeed) {
	b := &r.p.Bisect
	K := b.Steps()
	r.cond = BisectCondition{Label: r.p.Conditions[r.c], State: CondRunning, Answer: -1, Fails: -1, Probes: []Probe{}}
	// lo: the furthest t known to hold (-1: none yet); hi: the nearest known to fail
	// (K + 1: none, the range's end holds as far as known).
	lo, hi := -1, K+1
	for lo < 0 || hi-lo > 1 {
		t := 0
		if lo >= 0 {
			t = (lo + hi) / 2
		}
		v, need := r.probe(t, false)
		if need != nil || r.cond.State != CondRunning {
			return r.cond, need
		}
		if v < 0 && lo < 0 {
			r.cond.State = CondNoneSafe
			r.cond.Why = fmt.Sprintf("fails at the range's safe end, %s (%s): no value of the range is safe", r.p.val(r.cond.Probes[0].Step), r.cond.Probes[0].Reason)
			return r.cond, nil
		}
		if v > 0 {
			lo = t
		} else {
			hi = t
		}
	}
	r.cond.Answer = r.step(lo)
	if hi <= K {
		r.cond.Fails = r.step(hi)
	}
	for range b.Checks {
		t, ok := r.checkPoint(lo, hi)
		if !ok {
			break
		}
		_, need := r.probe(t, true)
		if need != nil || r.cond.State != CondRunning {
			return r.cond, need
		}
	}
	r.cond.State = CondAnswered
	switch {
	case r.cond.Fails < 0:
		r.cond.Why = "holds across the whole range: the answer is the range's end"
	default:
		r.cond.Why = "holds at the answer, fails one resolution step beyond it"
	}
	return r.cond, nil
}

// checkPoint is the next monotonicity check: the middle of the widest run of unprobed
// steps between two probes on the answer's safe side (t in [0, lo]), the one nearest
// the answer among equals; when every step there is probed, the same on the failing
// side (t in [hi, K], the range's end counting as probed one step beyond it).
func (r *condReplay) checkPoint(lo, hi int) (int, bool) {
	var safe, unsafe []int
	for _, pr := range r.cond.Probes {
		switch t := r.tOf(pr.Step); {
		case t <= lo:
			safe = append(safe, t)
		case t >= hi:
			unsafe = append(unsafe, t)
		}
	}
	if t, ok := widestGap(safe, true); ok {
		return t, true
	}
	return widestGap(append(unsafe, r.p.Bisect.Steps()+1), false)
}

// widestGap returns the middle of the widest gap of at least 2 between consecutive
// values of ts (sorted here): among gaps of equal width the last one when last is set,
// else the first.
func widestGap(ts []int, last bool) (int, bool) {
	slices.Sort(ts)
	best, at := 1, -1
	for i := 1; i < len(ts); i++ {
		if g := ts[i] - ts[i-1]; g > best || last && g == best && g >= 2 {
			best, at = g, i
		}
	}
	if at < 0 {
		return 0, false
	}
	return (ts[at-1] + ts[at]) / 2, true
}

// tOf is the t of lattice step k.
func (r *condReplay) tOf(k int) int {
	if r.p.Bisect.Direction == question.Smallest {
		return r.p.Bisect.Steps() - k
	}
	return k
}

// probe judges t: its verdict (1 holds, -1 fails), or the jobs it waits for. A failed
// job ends the condition (CondFailed); a verdict that contradicts an earlier one ends it
// as CondNonMonotone.
func (r *condReplay) probe(t int, check bool) (int, []ProbeNeed) {
	k := r.step(t)
	pr := Probe{Step: k, Value: r.p.Bisect.Value(k), Check: check}
	var need []ProbeNeed
	if r.p.Bisect.Deterministic {
		need = r.probeOnce(&pr)
	} else {
		need = r.probeTest(&pr)
	}
	r.cond.Probes = append(r.cond.Probes, pr)
	r.cond.Jobs += pr.Jobs
	if need != nil || r.cond.State != CondRunning {
		return 0, need
	}
	if why := r.contradiction(len(r.cond.Probes) - 1); why != "" {
		r.cond.State, r.cond.Contradiction = CondNonMonotone, why
		r.cond.Why = "non-monotone response: " + why + "; the answer bisection found is not the " + string(r.p.Bisect.Direction) + " safe value to trust"
	}
	return pr.Verdict, nil
}

// probeOnce judges a deterministic probe on its one run (replicate 0).
func (r *condReplay) probeOnce(pr *Probe) []ProbeNeed {
	seq := r.seq
	r.seq++
	o := r.p.Obs(r.c, pr.Step, 0)
	if o.State == Missing {
		return []ProbeNeed{{Cond: r.c, Step: pr.Step, Replicate: 0, Seq: seq}}
	}
	pr.Jobs, pr.Runs = 1, 1
	if o.State == Failed {
		r.fail(pr, o, 0)
		return nil
	}
	if why := HoldsOnce(r.p.Constraints, o.Values); why != "" {
		pr.Verdict, pr.Reason = -1, why
		return nil
	}
	pr.Verdict = 1
	return nil
}

// probeTest judges a stochastic probe by a ProbeTest over its replicates in order, asked
// for in batches: Initial first (a bisection's plan is that batch of every condition's
// first probe, known before the conditions are counted), then as many again as it has
// (doubling), never past the runs at which it could accept (ProbeTest.ReadyRuns). A
// batch is taken only when all of it is committed, so the replay does not depend on
// which of its jobs finished first.
func (r *condReplay) probeTest(pr *Probe) []ProbeNeed {
	test := NewProbeTest(r.p.Constraints, r.d.PerTest, r.cfg.Rare, r.cfg.Initial)
	n := 0
	for test.State() == 0 {
		size := max(r.cfg.Initial, n)
		if ready := test.ReadyRuns(); ready > n && n > 0 {
			size = min(size, ready-n)
		}
		var need []ProbeNeed
		for j := n; j < n+size; j++ {
			if o := r.p.Obs(r.c, pr.Step, j); o.State == Missing {
				need = append(need, ProbeNeed{Cond: r.c, Step: pr.Step, Replicate: j, Seq: r.seq + j - n})
			} else {
				pr.Jobs++
			}
		}
		if need != nil {
			r.seq += size
			return need
		}
		for j := n; j < n+size && test.State() == 0; j++ {
			o := r.p.Obs(r.c, pr.Step, j)
			if o.State == Failed {
				pr.Runs = test.Runs()
				r.fail(pr, o, j)
				r.seq += size
				return nil
			}
			test.Add(o.Values)
		}
		r.seq += size
		n += size
	}
	pr.Verdict, pr.Runs = test.State(), test.Runs()
	if pr.Verdict < 0 {
		pr.Reason = strings.TrimPrefix(test.Reason(), "infeasible: ")
	}
	return nil
}

// fail ends the condition at a failed job (replicate j of pr).
func (r *condReplay) fail(pr *Probe, o Obs, j int) {
	why := "failed"
	if o.Err != "" {
		why += ": " + o.Err
	}
	pr.Reason = why
	r.cond.State = CondFailed
	r.cond.Why = fmt.Sprintf("the job at %s, replicate %d, %s", r.p.val(pr.Step), j, why)
}

// contradiction says how probe i disagrees with an earlier probe of the condition: a
// value that fails nearer the range's safe end than one that holds. "" when it agrees.
// It names the nearest probe it contradicts.
func (r *condReplay) contradiction(i int) string {
	pi := r.cond.Probes[i]
	ti := r.tOf(pi.Step)
	other := -1
	for j, pj := range r.cond.Probes[:i] {
		tj := r.tOf(pj.Step)
		bad := pi.Verdict < 0 && pj.Verdict > 0 && ti < tj || pi.Verdict > 0 && pj.Verdict < 0 && ti > tj
		if bad && (other < 0 || abs(tj-ti) < abs(r.tOf(r.cond.Probes[other].Step)-ti)) {
			other = j
		}
	}
	if other < 0 {
		return ""
	}
	po := r.cond.Probes[other]
	if pi.Verdict < 0 {
		return fmt.Sprintf("fails at %s (%s) though it holds at %s, further from the range's safe end", r.p.val(pi.Step), pi.Reason, r.p.val(po.Step))
	}
	return fmt.Sprintf("holds at %s though it fails at %s (%s), nearer the range's safe end", r.p.val(pi.Step), r.p.val(po.Step), po.Reason)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// ConstraintsOf turns a spec's subject_to into the procedure's constraints.
func ConstraintsOf(subjectTo []string) ([]Constraint, []*constraint.Requirement, error) {
	var cs []Constraint
	var reqs []*constraint.Requirement
	for _, text := range subjectTo {
		c, err := constraint.ParseRequirement(text)
		if err != nil {
			return nil, nil, err
		}
		reqs = append(reqs, c)
		cs = append(cs, Constraint{Text: text, Kind: c.Kind, Sense: c.Sense, Bound: c.Bound, Tolerance: c.Tolerance})
	}
	return cs, reqs, nil
}
