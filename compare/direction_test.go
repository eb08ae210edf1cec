package compare_test

import (
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// A move is better or worse by the objective's goal for its metric, and by what the
// metric measures for the others; with FailOnWorse only a worse move fails.
func TestVerdicts(t *testing.T) {
	dir := writeGrid(t)
	cp := filepath.Join(t.TempDir(), "new")
	// j0003: fct_p99_usec down 10% (better for min), goodput up (better), drops_total +5
	// (worse), ecn_marked +3 (no better direction).
	err := resultstest.Copy(dir, cp, func(tb *resultsdir.Table) {
		if tb.Name != "jobs" {
			return
		}
		for i, id := range tb.Col("job_id").Str {
			if id == "j0003" {
				tb.Col("fct_p99_usec").Num[i] *= 0.9
				tb.Col("goodput_gbps").Num[i] += 10
				tb.Col("drops_total").Num[i] += 5
				tb.Col("ecn_marked").Num[i] += 3
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	obj := &question.Objective{Metric: "fct_p99_usec", Goal: question.Min}
	for _, tc := range []struct {
		name   string
		opts   compare.Options
		want   map[string]string // metric -> verdict
		failed bool
	}{
		{"any", compare.Options{RTol: 1e-9, Objective: obj},
			map[string]string{"fct_p99_usec": "better", "goodput_gbps": "better", "drops_total": "worse", "ecn_marked": ""}, true},
		{"max goal flips the objective", compare.Options{RTol: 1e-9, Objective: &question.Objective{Metric: "fct_p99_usec", Goal: question.Max}},
			map[string]string{"fct_p99_usec": "worse"}, true},
		{"fail on worse: drops fail", compare.Options{RTol: 1e-9, Objective: obj, FailOnWorse: true, Metrics: []string{"fct_p99_usec", "drops_total"}},
			map[string]string{"fct_p99_usec": "better", "drops_total": "worse"}, true},
		{"fail on worse: improvements pass", compare.Options{RTol: 1e-9, Objective: obj, FailOnWorse: true, Metrics: []string{"fct_p99_usec", "goodput_gbps"}},
			map[string]string{"fct_p99_usec": "better", "goodput_gbps": "better"}, false},
		{"fail on worse: no direction fails", compare.Options{RTol: 1e-9, Objective: obj, FailOnWorse: true, Metrics: []string{"ecn_marked"}},
			map[string]string{"ecn_marked": ""}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := compare.Dirs(dir, cp, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, d := range r.Beyond() {
				if d.JobID == "j0003" {
					got[d.Metric] = d.Verdict
				}
			}
			for m, v := range tc.want {
				if g, ok := got[m]; !ok || g != v {
					t.Errorf("%s: verdict %q (beyond: %v), want %q", m, g, ok, v)
				}
			}
			if r.Failed() != tc.failed {
				t.Errorf("Failed() = %v, want %v", r.Failed(), tc.failed)
			}
		})
	}
}
