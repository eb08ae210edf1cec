// Package selection decides a study: which grid point is best for the study's objective,
// among the points that meet its constraints, with a stated confidence (studies.md
// "Selecting the best point"; docs/statistics.md says how and why, with references).
//
// Decide is a pure function of the observations: given what has been run so far, it
// says which points are still in contention, which left (in which round, why), and
// which jobs must run before the next decision. It is replayed from the first stage on
// every call, so a killed and resumed sweep, any number of workers and any number of
// shards reach the same decisions from the same committed results.
//
// The procedure, for k points, confidence 1 − α and indifference δ:
//
//   - The confidence is split before any data (Split): without constraints, α goes to
//     the comparison; with them, half to feasibility, spread over the k points and each
//     point's tests (Bonferroni), and half to the comparison. The comparison's share is
//     split again between Kim and Nelson's screening and the rare-event rule below.
//   - Feasibility (feasibility.go), per point: the plain conditions (drops_lossless == 0)
//     together must hold in every run: a point is refused at its first violation and
//     accepted once it has held in n_rare runs, enough that a point violating them in a
//     share `rare` of runs or more would have been refused; a probability bound
//     P(condition) <= p is Wald's sequential probability ratio test of p/2 against p; a
//     mean bound mean(x) <= c ± ε is Batur and Kim's fully sequential feasibility test.
//   - Comparison (kn.go): Kim and Nelson's fully sequential procedure KN over common
//     random numbers, with the variance of every pair's paired differences updated at
//     every stage from all its replicates (as KN++ does), screening only by points
//     known to be feasible. No decision rests on a variance of exactly zero: a pair
//     whose paired differences have all been equal is resolved neither way before
//     n_rare replicates, and a point whose values sit on one value for at least half
//     its replicates (a point mass: a pause time that is mostly 0) neither screens
//     others out nor is selected before n_rare replicates.
//   - The first stage is `initial` replicates (default 10), doubled up to four times
//     `initial` while the paired differences look heavy-tailed (an excess kurtosis
//     above 3 in some pair).
//
// A point whose job failed, or whose objective value is null (no message of that kind
// completed), leaves at once with that reason: it has no value to compare.
package selection

import (
	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/question"
)

// ObsState says what is known of one job (one point, one replicate).
type ObsState int

const (
	Missing ObsState = iota // not run, or not committed yet
	OK                      // committed with status ok: X and Margins hold its values
	Failed                  // committed with status failed, timeout or invalid: Err says why
)

// Obs is one job's outcome, as the procedure sees it.
type Obs struct {
	State ObsState
	// X is the objective metric's value; NaN when the job's cell is null (nothing of
	// that kind completed).
	X float64
	// Values holds one value per Problem.Constraints entry (constraint.Requirement
	// Observe): for a condition that must hold in every run, 1 where it held and 0 where
	// not; for a probability bound, 1 where its condition held, 0 where not, NaN where
	// unknown; for a mean bound, the number (NaN where null).
	Values []float64
	Err    string // Failed: the job's status and error; OK with a null X: why it is null
	// Near is the primary metric's value when the selection is on a secondary one
	// (Problem.Near); NaN when null.
	Near float64
	// Vec holds the Pareto objective's metrics (Problem.Pareto), in its order; NaN
	// where null.
	Vec []float64
}

// Point is one grid point: its label for people and its jobs by replicate number
// (Reps[j] is replicate j; a slice shorter than a stage needs means Missing).
type Point struct {
	Label string
	Reps  []Obs
}

// Constraint is one SubjectTo entry as the procedure needs it (constraint.Requirement
// without its expression, which the caller evaluates into Obs.Values).
type Constraint struct {
	Text      string
	Kind      constraint.Kind
	Sense     constraint.Sense // Probability and Mean: LE, LT, GE, GT
	Bound     float64          // Probability: a fraction; Mean: c
	Tolerance float64          // Mean: ε > 0
}

// Problem is everything Decide needs.
type Problem struct {
	Goal question.Goal
	// Delta is the indifference in the metric's unit (> 0), or, when DeltaPercent > 0,
	// resolved by Decide from the first stage: DeltaPercent / 100 × |the best first-stage
	// mean| of the points with values (the largest |mean| if that is 0; the largest
	// |value| of the first stage if every mean is 0; 1 if every value is 0, when every
	// point ties and any δ decides the same).
	Delta        float64
	DeltaPercent float64
	// Metric names the objective's column, for reasons ("no value of fct_p99_usec");
	// optional: without it a null value is "no value (null)".
	Metric      string
	Constraints []Constraint
	Config      question.Config // with defaults applied (Config.WithDefaults)
	// Near, when set, makes this a selection on a secondary objective: Goal, Delta and
	// the observations' X are the secondary metric's, and only points within Near.Delta
	// of the best on the primary metric (Obs.Near) are acceptable (near.go).
	Near *Near
	// Pareto, when set (2 or 3 metrics), makes this the identification of a Pareto front
	// (pareto.go) instead of a selection: Goal, Delta and X are unused, Obs.Vec holds the
	// metrics, and the Decision's Front is the answer.
	Pareto []Objective2
	// Points in plan order; ties (equal means) go to the earlier point.
	Points []Point
}

// Near is the primary objective of a selection on a secondary one (objective.then):
// a point is acceptable when its primary mean is within Delta of the best point's,
// judged with Tolerance (default Delta/2) as a mean bound is (docs/statistics.md §9).
type Near struct {
	Metric    string
	Goal      question.Goal
	Delta     float64 // > 0, in the primary metric's unit
	Tolerance float64 // > 0; 0 means Delta/2
}

// State is where a selection stands.
type State string

const (
	Running State = "running" // more jobs must run: Decision.Need lists them
	Decided State = "decided" // one point is best (Best), with the stated confidence
	Budget  State = "budget"  // Config.MaxJobs would be exceeded; Best is the best so far
	// Infeasible: every point left, as infeasible or failed (or screened out by a point
	// that failed in a later round): no answer.
	Infeasible State = "infeasible"
)

// Decision is what Decide concludes from a Problem.
type Decision struct {
	State State
	Why   string // one sentence: why it stopped, or what it waits for
	// Stage is the number of replicates each surviving point has been screened on
	// (FirstStage after the first stage); Round = Stage − FirstStage is the rounds after
	// it. Both are 0 while the first stage is incomplete; while Running, the stage
	// waited for is Stage + 1 (the first stage at first).
	Stage, Round int
	// FirstStage is the first stage's replicates per point: Config.Initial, or more
	// when the procedure extended it (HeavyTails says why); 0 until known.
	FirstStage int
	// HeavyTails is set when the first stage was extended because some pair's paired
	// differences looked heavy-tailed.
	HeavyTails bool
	// Best is the index of the selected point (Decided), or of the best survivor so far
	// (Running, Budget); -1 when there is none.
	Best int
	// Survivors are the points still in contention, Best among them, in plan order.
	Survivors []int
	// Equivalent (Decided) are the points as good as Best to within the indifference, as
	// measured, in plan order: the survivors and the points screened out with a mean
	// less than δ worse than Best's. Flat is set when that is every point that was not
	// refused or failed, and more than one: nothing the study swept matters at this
	// indifference.
	Equivalent []int
	Flat       bool
	// Eliminated are the points that left, in the order they left.
	Eliminated []Elimination
	// Need are the jobs that must be committed before the procedure can go on
	// (State Running), in point order.
	Need []Need
	// Jobs is the number of jobs the procedure has used so far (observations of its
	// complete stages, and the committed jobs of a point that left with a failed job or
	// no value); the budget counts these. It is the sum of Used, and never exceeds
	// Config.MaxJobs.
	Jobs int
	// Delta is the indifference in the metric's unit (resolved from DeltaPercent when
	// that was given, from the first stage's means: then it is itself an estimate; 0
	// until the first stage is complete in that case).
	Delta      float64
	Confidence float64
	// Split is how the confidence was divided between the procedure's statements.
	Split Split
	// H2 is h² of the first stage (0 until it is complete, and for a single point, which
	// has nothing to be compared with).
	H2 float64
	// Rare is the rare-event resolution (Config.Rare); RareRuns the replicates after
	// which an event at least that frequent would have shown, for a pair (Split.PerPair)
	// and for a point's plain conditions (Split.PerTest).
	Rare                     float64
	RareRunsPair, RareRunsOK int
	// FixedJobs is the number of jobs a fixed design of equal confidence would run,
	// computed from the same first stage: the two-stage Bonferroni procedure for common
	// random numbers (Clark and Yang 1986; Nelson and Matejcik 1995, procedure B), every
	// point run N = max(n0, ⌈(t S / δ)²⌉) times with t the 1 − α_c/(k − 1) quantile of
	// Student's t on n0 − 1 degrees of freedom and S² the largest variance of paired
	// differences, and no fewer than the replicates the feasibility tests and the
	// rare-event rule need (0 until the first stage is complete).
	FixedJobs int
	// Means and Used are per point: the mean of the objective over the replicates the
	// procedure used (through the last complete stage the point took part in), and how
	// many it used. Means is NaN for a point without any (the first stage incomplete)
	// and for a point that left with a failed job or no value (its Used counts the
	// committed jobs of the stages it took part in).
	Means []float64
	Used  []int
	// Feasible is per point: 1 known feasible, -1 infeasible, 0 not yet known (always 1
	// without constraints).
	Feasible []int
	// Near is per point, for a selection on a secondary objective (Problem.Near): 1 known
	// to be within the indifference of the best on the primary, -1 far from it, 0 not
	// yet known; nil otherwise.
	Near []int
	// Front (a Pareto objective) are the points of the Pareto front, in plan order, and
	// ParetoMeans the means of each metric (ParetoMeans[m][i]) over the replicates used.
	Front       []int
	ParetoMeans [][]float64
	// PointMass is per point: its objective values sat on one value for at least half
	// of its replicates (the rare-event rule applies to it).
	PointMass []bool
	// Labels are the points' labels (Problem.Points[i].Label), for whoever renders the
	// decision.
	Labels []string
	// Conditions is the combined answer of a study whose axes are settings and
	// conditions (DecideConditions, conditions.go); nil for a plain selection. With it,
	// Best is -1 and the answer is in Conditions.
	Conditions *ConditionsDecision
}

// Split is how the error probability α = 1 − confidence is divided (Bonferroni): a
// correct selection needs every statement below to be right, so their errors add up
// to at most α.
type Split struct {
	Feasibility float64 // every feasibility test of every point; 0 without constraints
	Screening   float64 // KN's screening, over the k − 1 pairs with the best
	Rare        float64 // the rare-event rule, over the same pairs
	// PerTest is one point's one feasibility test's error (each way): Feasibility over k
	// points × Tests tests; PerPair is one pair's share of Rare.
	PerTest float64
	PerPair float64
	Tests   int // feasibility tests per point: one for every-run conditions, one per bound
}

// Cause is why a point left.
type Cause int

const (
	CauseScreened   Cause = iota // a better point, known feasible, screened it out
	CauseInfeasible              // a feasibility test refused it
	CauseFailed                  // a job failed, or gave no value
	// CauseFar: with a secondary objective (then, near.go), more than the primary's
	// indifference worse than the best on the primary. It was acceptable; the primary
	// set it apart, so a study with such a point is not flat.
	CauseFar
)

// Elimination is a point that left the selection.
type Elimination struct {
	Point int
	// Round it left in: 0 right after the first stage (or during it), t after the first
	// stage plus t more replicates.
	Round  int
	Cause  Cause
	Reason string // one sentence, for people
	By     int    // the point that eliminated it by screening; -1 for other reasons
	// Gap is how much worse its mean was than By's when it left, in the metric's unit
	// (Screened only). Below the indifference, KN may drop a point that is as good as
	// the best to within δ: either would have been a correct answer.
	Gap float64
}

// Need is one job the procedure waits for.
type Need struct{ Point, Replicate int }
