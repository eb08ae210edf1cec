package compare_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// A comparison whose pairing matches nothing is an error, not a table of zeros: it says
// so and names the other pairing when that one matches.
func TestNoPairs(t *testing.T) {
	base := writeGrid(t) // 2 x 2 points x 2 replicates, j0001..j0008
	edited := func(renameJobs, moveAlpha bool) string {
		dir := filepath.Join(t.TempDir(), "new")
		err := resultstest.Copy(base, dir, func(tb *resultsdir.Table) {
			if tb.Name != "jobs" {
				return
			}
			for i := range tb.Rows {
				if renameJobs {
					tb.Col("job_id").Str[i] = "k" + tb.Col("job_id").Str[i]
				}
				if moveAlpha {
					tb.Col("switch_LossyAlpha").Num[i] += 8
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	renamed, moved, both := edited(true, false), edited(false, true), edited(true, true)
	for _, tt := range []struct {
		name     string
		nw       string
		byParams bool
		want     string // "": pairs, no error
	}{
		{"job ids differ, by job", renamed, false, "no job of " + renamed + " has a job_id of " + base + " (8 and 8 jobs): nothing to compare; their job ids differ (a job id names its whole configuration): --by params pairs 8 jobs of 4 points by switch.LossyAlpha × switch.StaticPoolXoffThreshold and replicate"},
		{"job ids differ, by params", renamed, true, ""},
		{"points differ, by params", moved, true, "no point of " + moved + " (swept values) is a point of " + base + " (8 and 8 jobs): nothing to compare; --by job_id pairs 8 jobs"},
		{"points differ, by job", moved, false, ""},
		{"both differ", both, false, "nothing to compare; neither job ids nor swept values (switch.LossyAlpha × switch.StaticPoolXoffThreshold) match: the two directories are different studies"},
		{"both differ, by params", both, true, "nothing to compare; neither job ids nor swept values"},
	} {
		var err error
		if tt.byParams {
			_, err = compare.DirsByParams(base, tt.nw, compare.Options{})
		} else {
			_, err = compare.Dirs(base, tt.nw, compare.Options{})
		}
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want a comparison", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
