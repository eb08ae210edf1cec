package launch_test

import (
	"sort"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// seedBaseRow is the part of a jobs table of a sweep over seed that the test reads.
type seedBaseRow struct {
	JobID     string `parquet:"job_id"`
	Status    string `parquet:"status"`
	Replicate int64  `parquet:"replicate"`
	Seed      int64  `parquet:"seed"`
	SeedBase  int64  `parquet:"seed_base"`
}

// seed as an axis (issue 38: `run --grid seed=1,2` panicked at the first commit, its
// column repeating the jobs table's seed): each value is a seed base, the job's seed is
// derived from it and the replicate as from the spec's seed, and the jobs table holds
// the value as seed_base beside the derived seed.
func TestSeedAsAnAxis(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		text  string
		grids []string
	}{
		{"--grid", spec, []string{"seed=3,4"}},
		{"sweep.grid", spec + "    seed: [3, 4]\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, err := specfile.ParseOverrides("spec.yaml", []byte(tc.text), specfile.Overrides{Grids: tc.grids})
			if err != nil {
				t.Fatal(err)
			}
			p, err := sweep.Expand(s, nil)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			rep, err := run(t, p, testJob, launch.Options{Dir: dir, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK != len(p.Jobs) || len(p.Jobs) != 48 {
				t.Fatalf("%d jobs planned, %d ok; want 48 ok", len(p.Jobs), rep.OK)
			}
			rows := readTable[seedBaseRow](t, dir, "jobs")
			sort.Slice(rows, func(i, j int) bool { return rows[i].JobID < rows[j].JobID })
			// The seed of replicate r under seed base b is the seed of replicate r of a
			// sweep whose spec says seed: b.
			want := map[[2]int64]int64{}
			for _, b := range []int64{3, 4} {
				for _, j := range plan(t, spec, "seed="+string(rune('0'+b))).Jobs {
					want[[2]int64{b, int64(j.Replicate)}] = int64(j.Seed)
				}
			}
			for _, r := range rows {
				if r.Status != "ok" {
					t.Errorf("job %s: status %s", r.JobID, r.Status)
				}
				if w := want[[2]int64{r.SeedBase, r.Replicate}]; r.Seed != w {
					t.Errorf("job %s: seed_base %d replicate %d has seed %d, want %d", r.JobID, r.SeedBase, r.Replicate, r.Seed, w)
				}
			}
		})
	}
}
