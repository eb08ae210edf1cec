// Package question is the question a study asks, as manifest.json records it and every
// reader of a results directory reads it: the objective (Objective, with its Goal,
// secondary metrics Then, conditions Combine and bisection Bisect) and the settings of a
// sequential selection (Config). Package selection answers the question; package
// results records it; neither needs the other for that. It knows no model and no
// results directory.
package question

import "math"

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
	// first-stage mean (5 means 5%): selection.Problem.Delta resolves it.
	IndifferencePercent float64 `json:"indifference_percent,omitempty"`
	// SubjectTo are constraint expressions (package constraint) over jobs columns that
	// an acceptable point must satisfy, e.g. "drops_lossless == 0".
	SubjectTo []string `json:"subject_to,omitempty"`
	// Also are secondary metrics the closing table and the report show beside Metric.
	Also []string `json:"also,omitempty"`
	// Then, when set, asks for the best point on a second metric among the points within
	// Indifference of the best on Metric (selection.Problem.Near; docs/statistics.md §9).
	Then *Then `json:"then,omitempty"`
	// Pareto, when set (2 or 3 metrics, absolute indifferences), asks for the Pareto
	// front over them instead of one point (selection.Problem.Pareto); Metric is then the first.
	Pareto []Then `json:"pareto,omitempty"`
	// Default, when the spec states no objective, says why rocesweep chose this one
	// ("the workload's lossless incast: its p99 FCT"); "" when the spec states it.
	Default string `json:"default,omitempty"`
	// Conditions are the jobs columns of the swept axes that are conditions (the spec's
	// sweep.conditions), not settings; Combine says how they make one answer (each, the
	// default with conditions; mean; worst), Weights weigh them for mean, one per
	// condition in plan order (package selection, conditions.go).
	Conditions []string  `json:"conditions,omitempty"`
	Combine    Combine   `json:"combine,omitempty"`
	Weights    []float64 `json:"weights,omitempty"`
	// Bisect, when set, makes the objective a bisection (package selection, bisect.go): the smallest (or
	// largest) value of an attribute at which SubjectTo holds, per condition. Metric is
	// then the metric the report charts (the first SubjectTo reads, unless stated);
	// Goal, Indifference and IndifferencePercent are unused.
	Bisect *Bisect `json:"bisect,omitempty"`
}

// Then is a secondary objective: a metric, its goal and its indifference (absolute, or
// a percent of the best first-stage mean).
type Then struct {
	Metric              string  `json:"metric"`
	Goal                Goal    `json:"goal"`
	Indifference        float64 `json:"indifference,omitempty"`
	IndifferencePercent float64 `json:"indifference_percent,omitempty"`
}

// Config are the settings of the procedure (the spec's `select:` block). The zero
// value of each field means its default.
type Config struct {
	Confidence float64 `json:"confidence"` // probability of a correct selection; default 0.95
	// Initial is n0, the first stage's replicates per point (>= 2); default 10. The
	// procedure may extend the first stage to 4 × Initial (package doc).
	Initial int `json:"initial"`
	// MaxJobs bounds the jobs the whole selection may spend (first stage included);
	// default k × max(10 × Initial, 2 × n_rare) for k points (RareRuns).
	MaxJobs int `json:"max_jobs"`
	// Rare is the rare-event resolution: the smallest share of runs in which an event
	// (a violation of a plain condition, a difference between two points' outputs that
	// are otherwise equal) must have had its chance to show before the procedure
	// decides without it; default 0.01 (1%). Smaller is surer and dearer: about
	// ln(1/β)/Rare replicates where it applies.
	Rare float64 `json:"rare,omitempty"`
}

// Defaults of Config.
const (
	DefaultConfidence = 0.95
	DefaultInitial    = 10
	DefaultBudget     = 10 // MaxJobs >= DefaultBudget × points × Initial
	DefaultRare       = 0.01
)

// WithDefaults returns c with its zero fields set to their defaults for k points.
func (c Config) WithDefaults(k int) Config {
	if c.Confidence == 0 {
		c.Confidence = DefaultConfidence
	}
	if c.Initial == 0 {
		c.Initial = DefaultInitial
	}
	if c.Rare == 0 {
		c.Rare = DefaultRare
	}
	if c.MaxJobs == 0 {
		// n_rare at the smallest share a test can get: α/4 over k points.
		n := RareRuns(c.Rare, (1-c.Confidence)/float64(4*max(k, 1)))
		c.MaxJobs = k * max(DefaultBudget*c.Initial, 2*n)
	}
	return c
}

// Combine is how a study's conditions combine into one answer (the objective's
// `combine:`).
type Combine string

const (
	CombineEach  Combine = "each"  // one decision per condition
	CombineMean  Combine = "mean"  // best on the (weighted) average over the conditions
	CombineWorst Combine = "worst" // best worst condition
)

// Combines are the values of `combine:`, in the order the docs list them.
var Combines = []Combine{CombineEach, CombineMean, CombineWorst}

// Direction says which end of a bisection's range is safe.
type Direction string

const (
	// Smallest: larger values are safer (a headroom); the answer is the smallest value
	// at which the constraints hold.
	Smallest Direction = "smallest"
	// Largest: smaller values are safer (a NIC Xoff, which pauses earlier when smaller);
	// the answer is the largest value at which they hold.
	Largest Direction = "largest"
)

// Bisect is a bisection's question (the spec's objective: {smallest: ATTR, range:
// [FROM, TO], resolution: RES, subject_to: [...]}), as manifest.json records it.
type Bisect struct {
	Direction Direction `json:"direction"`
	// Attr is the attribute as the spec names it, with [i] for element i of a vector
	// (nic.PfcStaticXoffThreshold[0]); Column is its jobs column, Element the vector
	// element (-1 for a scalar attribute).
	Attr    string `json:"attr"`
	Column  string `json:"column"`
	Element int    `json:"element"`
	// From, To and Resolution are in the column's unit (B, bit/s, s, or a number); the
	// texts are as the spec wrote them.
	From           float64 `json:"from"`
	To             float64 `json:"to"`
	Resolution     float64 `json:"resolution"`
	FromText       string  `json:"from_text"`
	ToText         string  `json:"to_text"`
	ResolutionText string  `json:"resolution_text"`
	// Deterministic says the jobs draw no random number that depends on the replicate:
	// one run per probe decides, exactly. Without it each probe is a selection.ProbeTest.
	Deterministic bool `json:"deterministic,omitempty"`
	// Checks is the number of monotonicity checks per condition after the halving
	// (the spec's `checks`, default DefaultChecks).
	Checks int `json:"checks"`
}

// DefaultChecks is Bisect.Checks when the spec states none: one probe in the widest
// interval the halving skipped on the answer's safe side.
const DefaultChecks = 1

// Steps is K: the lattice From, From + Resolution, ..., To has K + 1 values (the last
// step may be shorter, ending at To).
func (b *Bisect) Steps() int {
	if !(b.Resolution > 0) || !(b.To > b.From) {
		return 0
	}
	return int(math.Ceil((b.To-b.From)/b.Resolution - 1e-9))
}

// Value is the value of lattice step k (0 ≤ k ≤ Steps()), in the column's unit.
func (b *Bisect) Value(k int) float64 {
	if k >= b.Steps() {
		return b.To
	}
	return b.From + float64(k)*b.Resolution
}

// SafeStep is the step of the range's safe end: To for Smallest, From for Largest.
func (b *Bisect) SafeStep() int {
	if b.Direction == Smallest {
		return b.Steps()
	}
	return 0
}

// BisectProbes is the most probes a condition can take: the safe end, ⌈log2(K + 1)⌉
// halvings and the checks.
func (b *Bisect) BisectProbes() int { return 1 + ceilLog2(b.Steps()+1) + b.Checks }

// ceilLog2 is ⌈log2 n⌉ for n ≥ 1.
func ceilLog2(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// RareRuns is the number of runs after which an event with probability at least rare
// per run has shown at least once with probability at least 1 − beta:
// ⌈ln beta / ln(1 − rare)⌉ (at least 1).
func RareRuns(rare, beta float64) int {
	if !(rare > 0 && rare < 1) || !(beta > 0 && beta < 1) {
		return 1
	}
	n := math.Ceil(math.Log(beta) / math.Log1p(-rare))
	if !(n <= maxN) {
		return maxN
	}
	return max(1, int(n))
}

// maxN caps a replicate count (selection's N_il): 2^40 replicates is beyond any budget.
const maxN = 1 << 40
