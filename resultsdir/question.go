package resultsdir

import "github.com/rocesweep/rocesweep/question"

// Question is the study's question in a few words: "select min pfc_paused_usec".
func (r Run) Question() string {
	if r.Objective == nil || r.Sim {
		return "" // a sim's one job answers no question
	}
	if b := r.Objective.Bisect; b != nil {
		return "bisect " + string(b.Direction) + " " + b.Attr // "bisect smallest switch.HeadRoomPerPortLimit"
	}
	goal := "min"
	if r.Objective.Goal == question.Max {
		goal = "max"
	}
	q := goal + " " + r.Objective.Metric
	if r.Select != nil {
		q = "select " + q
	}
	return q
}
