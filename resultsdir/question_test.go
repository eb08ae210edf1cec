package resultsdir

import (
	"testing"

	"github.com/rocesweep/rocesweep/question"
)

func TestRunQuestion(t *testing.T) {
	minDrops := &question.Objective{Metric: "drops_total", Goal: question.Min}
	maxGood := &question.Objective{Metric: "goodput_gbps", Goal: question.Max}
	for _, tc := range []struct {
		name string
		run  Run
		want string
	}{
		{"no objective", Run{}, ""},
		{"min", Run{Objective: minDrops}, "min drops_total"},
		{"max", Run{Objective: maxGood}, "max goodput_gbps"},
		{"selection", Run{Objective: minDrops, Select: &question.Config{}}, "select min drops_total"},
		{"a sim", Run{Objective: minDrops, Sim: true}, ""},
	} {
		if got := tc.run.Question(); got != tc.want {
			t.Errorf("%s: Question() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
