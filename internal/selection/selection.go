// Package selection decides a study: which grid point is best for the study's objective,
// with a stated confidence. It implements a fully sequential indifference-zone
// ranking-and-selection procedure, Kim and Nelson's KN ("A fully sequential procedure for
// indifference-zone selection in simulation", ACM TOMACS 11(3), 2001), with feasibility
// screening for the objective's constraints.
//
// The procedure is a pure function of the observations (Decide): given what has been
// run so far, it says which points are still in contention, which left (and in which
// round), and which jobs must run before the next decision. It is replayed from the
// first stage on every call, so a killed and resumed sweep, any number of workers and
// any number of shards reach the same decisions from the same committed results.
//
// How it decides (README "Selecting the best point"), for k points, confidence 1 − α,
// indifference δ and n0 first-stage replicates per point:
//
//   - Every point runs n0 replicates. From them, for every pair (i, l), S²_il is the
//     sample variance of the paired differences X_ij − X_lj over the replicates j:
//     replicate j of every point draws the same random numbers (common random
//     numbers), so S²_il measures how differently two points respond to the same
//     dice, which is much less than the variance of either.
//   - η = ½ [(2α / (k − 1))^(−2 / (n0 − 1)) − 1], h² = 2 η (n0 − 1).
//   - Screening at stage r (r replicates per surviving point; r = n0 first): with
//     W_il(r) = max(0, δ / (2r) · (h² S²_il / δ² − r)), point i leaves when another
//     survivor l that is known to be feasible has a better mean by more than W_il(r)
//     (for a min goal: X̄_i(r) > X̄_l(r) + W_il(r)).
//   - The survivors each run one more replicate (round r − n0 + 1), until one survives,
//     or r reaches N + 1 with N = max over pairs of survivors (i, l) of
//     N_il = ⌊h² S²_il / δ²⌋
//     (every remaining pair is then resolved within δ), or the budget is spent.
//
// Constraints (the objective's subject_to): per point and constraint, a two-sided
// Student t interval at the study's confidence around the mean margin (constraint.Expr
// Margin). A point leaves as infeasible when the interval lies wholly on the wrong side
// (drops_lossless == 0 with every replicate dropping), and is known feasible when it
// lies wholly on the right side (every replicate 0 drops). Only known-feasible points
// eliminate others, so an infeasible point can never push out a feasible one; both
// findings are final.
//
// A point whose job failed, or whose objective value is null (no message of that kind
// completed), leaves at once with that reason: it has no value to compare.
package selection

import "github.com/rocesweep/rocesweep/internal/constraint"

// Goal is the direction of an objective: "min" (lower is better) or "max".
type Goal string

const (
	Min Goal = "min"
	Max Goal = "max"
)

// Objective is the question a study asks (the spec's `objective:` block, design.md
// "Sweep spec"): which point has the lowest (or highest) Metric, among the points that
// satisfy SubjectTo, to within Indifference. manifest.json records it as resolved (the
// default filled in), so every reader of a results directory sees the same question.
type Objective struct {
	Metric string `json:"metric"` // a column of the jobs table
	Goal   Goal   `json:"goal"`
	// Indifference is the smallest difference worth acting on, in the metric's unit
	// (µs for an _usec column). Zero when IndifferencePercent is set instead.
	Indifference float64 `json:"indifference,omitempty"`
	// IndifferencePercent states the indifference as a percent of the best point's
	// first-stage mean (5 means 5%): Problem.Delta resolves it.
	IndifferencePercent float64 `json:"indifference_percent,omitempty"`
	// SubjectTo are constraint expressions (package constraint) over jobs columns that
	// an acceptable point must satisfy, e.g. "drops_lossless == 0".
	SubjectTo []string `json:"subject_to,omitempty"`
	// Also are secondary metrics the closing table and the report show beside Metric.
	Also []string `json:"also,omitempty"`
	// Default, when the spec states no objective, says why rocesweep chose this one
	// ("the workload's lossless incast: its p99 FCT"); "" when the spec states it.
	Default string `json:"default,omitempty"`
}

// Config are the settings of the procedure (the spec's `select:` block). The zero
// value of each field means its default.
type Config struct {
	Confidence float64 `json:"confidence"` // probability of a correct selection; default 0.95
	Initial    int     `json:"initial"`    // n0, first-stage replicates per point (>= 2); default 5
	// MaxJobs bounds the jobs the whole selection may spend (first stage included);
	// default 10 × points × Initial.
	MaxJobs int `json:"max_jobs"`
}

// Defaults of Config.
const (
	DefaultConfidence = 0.95
	DefaultInitial    = 5
	DefaultBudget     = 10 // MaxJobs = DefaultBudget × points × Initial
)

// WithDefaults returns c with its zero fields set to their defaults for k points.
func (c Config) WithDefaults(k int) Config {
	if c.Confidence == 0 {
		c.Confidence = DefaultConfidence
	}
	if c.Initial == 0 {
		c.Initial = DefaultInitial
	}
	if c.MaxJobs == 0 {
		c.MaxJobs = DefaultBudget * k * c.Initial
	}
	return c
}

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
	// Margins holds one value per Problem.Constraints entry: the constraint's margin in
	// this job (constraint.Expr.Margin).
	Margins []float64
	Err     string // Failed: the job's status and error
}

// Point is one grid point: its label for people and its jobs by replicate number
// (Reps[j] is replicate j; a slice shorter than a stage needs means Missing).
type Point struct {
	Label string
	Reps  []Obs
}

// Constraint is one SubjectTo entry as the procedure needs it: its text (for reasons)
// and how its margin must compare with zero (constraint.Sense: Holds means the margin is
// 1 where the expression holds and 0 where not; a comparison's margin is x − y).
type Constraint struct {
	Text  string
	Sense constraint.Sense
}

// Problem is everything Decide needs.
type Problem struct {
	Goal Goal
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
	Config      Config // with defaults applied (Config.WithDefaults)
	// Points in plan order; ties (equal means) go to the earlier point.
	Points []Point
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
	// (n0 after the first stage); Round = Stage − n0 is the rounds after it. Both are 0
	// while the first stage is incomplete; while Running, the stage waited for is
	// Stage + 1 (n0 at first).
	Stage, Round int
	// Best is the index of the selected point (Decided), or of the best survivor so far
	// (Running, Budget); -1 when there is none.
	Best int
	// Survivors are the points still in contention, Best among them, in plan order.
	Survivors []int
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
	// that was given; 0 until the first stage is complete in that case).
	Delta      float64
	Confidence float64
	// H2 is h² of the first stage (0 until it is complete, and for a single point, which
	// has nothing to be compared with). Its k is len(Points), failed points included.
	H2 float64
	// FixedJobs is the number of jobs a fixed design of equal confidence would run: every
	// point run to the procedure's last stage without screening, k × max(n0, max_il
	// N_il + 1) over the k points that came through the first stage with values (0 until
	// the first stage is complete).
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
	// Labels are the points' labels (Problem.Points[i].Label), for whoever renders the
	// decision.
	Labels []string
}

// Elimination is a point that left the selection.
type Elimination struct {
	Point int
	// Round it left in: 0 right after the first stage, t after the first stage plus t
	// more replicates.
	Round  int
	Reason string // "worse than LossyAlpha=0.5, StaticPoolXoffThreshold=300KB beyond the noise of their paired differences", "infeasible: drops_lossless == 0", "failed: ..."
	By     int    // the point that eliminated it by screening; -1 for other reasons
}

// Need is one job the procedure waits for.
type Need struct{ Point, Replicate int }
