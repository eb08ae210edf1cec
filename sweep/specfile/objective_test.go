package specfile

import (
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/question"
)

const objBase = `name: q
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1]
`

// The objective block is read with its units, and every mistake names file:line:col,
// the key and the value.
func TestParseObjective(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		sets       []string
		want       question.Objective
		err        string
	}{
		{"absolute in µs", "objective: {metric: fct_p99_usec_lossless, indifference: 5us}\n", nil,
			question.Objective{Metric: "fct_p99_usec_lossless", Goal: "min", Indifference: 5}, ""},
		{"ns converts to µs", "objective: {metric: fct_p99_usec, indifference: 500ns, goal: min}\n", nil,
			question.Objective{Metric: "fct_p99_usec", Goal: "min", Indifference: 0.5}, ""},
		{"percent", "objective: {metric: goodput_gbps, goal: max, indifference: 2%}\n", nil,
			question.Objective{Metric: "goodput_gbps", Goal: "max", IndifferencePercent: 2}, ""},
		{"rate", "objective: {metric: busbw_gbps, goal: max, indifference: 10Gbps}\n", nil,
			question.Objective{Metric: "busbw_gbps", Goal: "max", Indifference: 10}, ""},
		{"count, constraint, also", "objective:\n  metric: drops_lossy\n  indifference: 100\n  subject_to: drops_lossless == 0\n  also: [pfc_paused_usec]\n", nil,
			question.Objective{Metric: "drops_lossy", Goal: "min", Indifference: 100, SubjectTo: []string{"drops_lossless == 0"}, Also: []string{"pfc_paused_usec"}}, ""},
		{"default: the lossless incast", "", nil,
			question.Objective{Metric: "fct_p99_usec_lossless", Goal: "min", IndifferencePercent: 5, Default: "the workload's lossless traffic: its p99 FCT"}, ""},
		{"--set", "", []string{"objective.metric=drops_lossless", "objective.indifference=1"},
			question.Objective{Metric: "drops_lossless", Goal: "min", Indifference: 1}, ""},
		{"a subject_to on a swept column", "objective: {metric: drops_total, subject_to: [switch_LossyAlpha < 1]}\n", nil,
			question.Objective{Metric: "drops_total", Goal: "min", IndifferencePercent: 5, SubjectTo: []string{"switch_LossyAlpha < 1"}}, ""},

		{"unknown metric", "objective: {metric: fct_p99}\n", nil, question.Objective{}, `spec.yaml:8:21: objective.metric: "fct_p99" is not a jobs metric`},
		{"machine metric", "objective: {metric: wall_sec}\n", nil, question.Objective{}, "wall_sec measures this machine's speed"},
		{"bad goal", "objective: {metric: drops_total, goal: least}\n", nil, question.Objective{}, `spec.yaml:8:40: objective.goal: want min or max (value "least")`},
		{"count with a unit", "objective: {metric: drops_total, indifference: 5us}\n", nil, question.Objective{}, "drops_total is a count"},
		{"wrong unit", "objective: {metric: fct_p99_usec, indifference: 5KB}\n", nil, question.Objective{}, `objective.indifference: "5KB": want a µs value`},
		{"zero", "objective: {metric: fct_p99_usec, indifference: 0}\n", nil, question.Objective{}, "want a difference above 0"},
		{"unknown key", "objective: {metric: drops_total, indiference: 1}\n", nil, question.Objective{}, "objective.indiference: unknown key"},
		{"no metric", "objective: {goal: max}\n", nil, question.Objective{}, "objective: metric is required"},
		{"subject_to on an attribute", "objective: {metric: drops_total, subject_to: switch.LossyAlpha < 1}\n", nil, question.Objective{}, `"switch.LossyAlpha" is not a jobs column`},
		{"subject_to syntax", "objective: {metric: drops_total, subject_to: 'drops_lossless =='}\n", nil, question.Objective{}, "objective.subject_to: column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("spec.yaml", []byte(objBase+tc.yaml), tc.sets)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := *s.Objective
			if got.Metric != tc.want.Metric || got.Goal != tc.want.Goal || got.Indifference != tc.want.Indifference ||
				got.IndifferencePercent != tc.want.IndifferencePercent || got.Default != tc.want.Default ||
				strings.Join(got.SubjectTo, ";") != strings.Join(tc.want.SubjectTo, ";") || strings.Join(got.Also, ";") != strings.Join(tc.want.Also, ";") {
				t.Fatalf("objective %+v, want %+v", got, tc.want)
			}
		})
	}
}

// Without an objective, the workload decides the question.
func TestDefaultObjective(t *testing.T) {
	for _, tc := range []struct{ workload, want string }{
		{"{kind: incast, senders: 7, message_size: 64KB}", "fct_p99_usec_lossless"},
		{"{kind: incast, senders: 7, message_size: 64KB, data_tc: 2}", "fct_p99_usec_lossy"},
		{"{kind: mix, mix: [{kind: allreduce, message_size: 1MiB}, {kind: load, load: 0.2, data_tc: 2}]}", "cct_p50_usec"},
		{"{kind: none}", "drops_total"},
	} {
		s, err := Parse("spec.yaml", []byte("topology: {kind: star, hosts: 8}\nworkload: "+tc.workload+"\n"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Objective.Metric != tc.want || s.Objective.Default == "" {
			t.Errorf("%s: objective %+v, want %s by default", tc.workload, s.Objective, tc.want)
		}
	}
}

// The select block and its --set overrides, with their ranges.
func TestParseSelect(t *testing.T) {
	s, err := Parse("spec.yaml", []byte(objBase+"select: {confidence: 0.9, initial: 4, max_jobs: 100}\n"), []string{"select.initial=6"})
	if err != nil {
		t.Fatal(err)
	}
	if c := *s.Select; c.Confidence != 0.9 || c.Initial != 6 || c.MaxJobs != 100 {
		t.Fatalf("select %+v", c)
	}
	for _, bad := range []struct{ yaml, err string }{
		{"select: {confidence: 1}\n", "select.confidence: want a probability"},
		{"select: {initial: 1}\n", "select.initial: want a whole number of first-stage replicates from 2"},
		{"select: {budget: 10}\n", "select.budget: unknown key"},
		{"select: 5\n", "select: want a mapping"},
	} {
		if _, err := Parse("spec.yaml", []byte(objBase+bad.yaml), nil); err == nil || !strings.Contains(err.Error(), bad.err) {
			t.Errorf("%q: err = %v, want %q", bad.yaml, err, bad.err)
		}
	}
	// UseSelection runs select.initial replicates in the plan and says when that drops
	// the spec's replicates.
	s, _ = Parse("spec.yaml", []byte(objBase+"replicates: 3\n"), nil)
	if w := s.UseSelection(); s.Replicates != question.DefaultInitial || !strings.Contains(w, "replicates: 3 is not used") {
		t.Errorf("UseSelection: replicates %d, warning %q", s.Replicates, w)
	}
}
