package main

import (
	"os"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// TestSlurmSelftestCheck is the independent check of scripts/slurm-selftest.sh; it skips
// unless the script sets ROCESWEEP_SELFTEST_DIR. It expands the plan of
// ROCESWEEP_SELFTEST_SPEC itself and reads the Parquet files of the results directory
// (not the journals `rocesweep status` reads):
//
//   - ROCESWEEP_SELFTEST_EXPECT=complete: every planned job is in `jobs` exactly once with
//     status ok, nothing else is there, and every job has the same number of rows in
//     `topology` and `tier_hop` (a job committed twice would have twice as many);
//   - ROCESWEEP_SELFTEST_EXPECT=partial: some planned jobs are missing, the others are
//     there once, nothing else is there.
func TestSlurmSelftestCheck(t *testing.T) {
	t.Parallel()
	dir := os.Getenv("ROCESWEEP_SELFTEST_DIR")
	if dir == "" {
		t.Skip("run by scripts/slurm-selftest.sh")
	}
	p := expand(t, os.Getenv("ROCESWEEP_SELFTEST_SPEC"))
	expect := os.Getenv("ROCESWEEP_SELFTEST_EXPECT")
	planned := map[string]bool{}
	for _, j := range p.Jobs {
		planned[j.ID] = true
	}
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	ids, status := jobs.Col("job_id").Str, jobs.Col("status").Str
	for i, id := range ids {
		count[id]++
		if !planned[id] {
			t.Errorf("jobs holds job %s, which is not in the plan", id)
		}
		if status[i] != "ok" {
			t.Errorf("job %s has status %s", id, status[i])
		}
	}
	missing := 0
	for _, j := range p.Jobs {
		switch count[j.ID] {
		case 0:
			missing++
		case 1:
		default:
			t.Errorf("job %d (%s) is %d times in jobs", j.Index, j.ID, count[j.ID])
		}
	}
	switch expect {
	case "complete":
		if missing > 0 {
			t.Errorf("%d of %d planned jobs are missing from jobs", missing, len(p.Jobs))
		}
		for _, table := range []string{"topology", "tier_hop"} {
			tab, err := resultsdir.ReadTable(dir, table, nil)
			if err != nil {
				t.Fatal(err)
			}
			per := map[string]int{}
			for _, id := range tab.Col("job_id").Str {
				per[id]++
			}
			want := per[p.Jobs[0].ID]
			for _, j := range p.Jobs {
				if per[j.ID] != want || want == 0 {
					t.Errorf("%s: job %s has %d rows, job %s has %d", table, j.ID, per[j.ID], p.Jobs[0].ID, want)
				}
			}
			if len(per) != len(p.Jobs) {
				t.Errorf("%s holds rows of %d jobs, the plan has %d", table, len(per), len(p.Jobs))
			}
		}
	case "partial":
		if missing == 0 || missing == len(p.Jobs) {
			t.Errorf("%d of %d planned jobs are missing; want some, not all", missing, len(p.Jobs))
		}
	default:
		t.Fatalf("ROCESWEEP_SELFTEST_EXPECT=%q: want complete or partial", expect)
	}
	t.Logf("%s: %d of %d planned jobs in jobs, each once; %d missing", dir, len(p.Jobs)-missing, len(p.Jobs), missing)
}
