package resultsdir

import (
	"strings"
	"testing"
)

// Findings lists every problem once, in a fixed order (journals sorted), and names a
// line's job only when its problem does not already.
func TestVerifyFindings(t *testing.T) {
	v := &VerifyReport{
		Lines: []LineProblem{
			{Journal: "journal-1.jsonl", Line: 3, JobID: "ab12", Problem: "checksum mismatch"},
			{Journal: "journal-1.jsonl", Line: 4, JobID: "cd34", Problem: "job cd34 is not of the plan"},
		},
		Unverifiable: map[string]int{"journal-2.jsonl": 2, "journal-1.jsonl": 5},
		Strays:       []string{"jobs/x.parquet"},
		Links:        []string{"jobs"},
		PlanNote:     "no spec",
	}
	want := []string{
		"verify: journal-1.jsonl line 3 (job ab12): checksum mismatch",
		"verify: journal-1.jsonl line 4: job cd34 is not of the plan",
		"verify: journal-1.jsonl: 5 lines have no checksum",
		"verify: journal-2.jsonl: 2 lines have no checksum",
		"verify: stray jobs/x.parquet: no complete commit names it",
		"verify: jobs is a symbolic link",
		"note: no spec",
	}
	got := v.Findings()
	if len(got) != len(want) {
		t.Fatalf("%d findings, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("finding %d = %q, want it to start %q", i, got[i], want[i])
		}
	}
	if f := (&VerifyReport{}).Findings(); len(f) != 0 {
		t.Errorf("no problem: %q", f)
	}
}
