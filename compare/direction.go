package compare

import (
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/question"
)

// Direction says which way a move of metric is better for a study asking objective obj:
// -1 when lower is better, +1 when higher is better, 0 when neither is. The objective's
// metric goes by its goal; other metrics by what they measure (stats.Better).
func Direction(metric string, obj *question.Objective) int {
	if obj != nil && metric == obj.Metric {
		if obj.Goal == question.Max {
			return 1
		}
		return -1
	}
	return stats.Better(metric)
}

// verdict labels a move of diff (new − base) of a metric with direction dir: "better",
// "worse", or "" when the metric has no better direction or the move is not a number.
func verdict(dir int, diff float64) string {
	switch {
	case dir == 0 || diff != diff || diff == 0:
		return ""
	case (diff > 0) == (dir > 0):
		return "better"
	}
	return "worse"
}
