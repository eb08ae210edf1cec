package selection

import "github.com/rocesweep/rocesweep/question"

// The study's question is package question's, so that results records it without
// linking the procedures; selection answers it under the same names.
type (
	Goal      = question.Goal
	Objective = question.Objective
	Then      = question.Then
	Config    = question.Config
	Combine   = question.Combine
	Direction = question.Direction
	Bisect    = question.Bisect
)

const (
	Min = question.Min
	Max = question.Max

	CombineEach  = question.CombineEach
	CombineMean  = question.CombineMean
	CombineWorst = question.CombineWorst

	Smallest = question.Smallest
	Largest  = question.Largest

	DefaultChecks     = question.DefaultChecks
	DefaultConfidence = question.DefaultConfidence
	DefaultInitial    = question.DefaultInitial
	DefaultBudget     = question.DefaultBudget
	DefaultRare       = question.DefaultRare
)

// Combines are the values of `combine:`, in the order the docs list them.
var Combines = question.Combines

// RareRuns is question.RareRuns: the runs after which an event of probability at least
// rare per run has shown with probability at least 1 − beta.
func RareRuns(rare, beta float64) int { return question.RareRuns(rare, beta) }
