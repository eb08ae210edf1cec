package study_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/study"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// selectSpec is a 6-point study whose fake job (noisyJob) gives fct_p99_usec_lossless a
// mean per point (the point's LossyAlpha × 10 + 100, so the lowest alpha is best) and
// noise with a common part per replicate (common random numbers) and a part of its own.
const selectSpec = `name: sel
seed: 3
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
objective: {metric: fct_p99_usec_lossless, goal: min, indifference: 3us}
select: {confidence: 0.9, initial: 4, max_jobs: 400}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1, 1.5, 2, 3, 4]
`

// noisyJob is the fake job of selectSpec. Its value depends on the job's configuration
// and seed only, so every run of a job gives the same rows.
func noisyJob(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error) {
	res := sweeptest.Result(cfg, jobID, 1000)
	alpha := cfg.Switch.SharedBufferManager.LossyAlpha
	common := rand.New(rand.NewPCG(cfg.Seed, 1)).NormFloat64() * 20 // same for every point
	own := rand.New(rand.NewPCG(cfg.Seed, math.Float64bits(alpha))).NormFloat64() * 2
	res.Summary.FctP99UsecLossless = 100 + 10*alpha + common + own
	return res, nil
}

func selectPlan(t testing.TB, sets ...string) *sweep.Plan {
	t.Helper()
	s, err := specfile.Parse("spec.yaml", []byte(selectSpec), sets)
	if err != nil {
		t.Fatal(err)
	}
	s.UseSelection()
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// jobsOf returns the sorted (job_id, replicate, value) lines of dir's jobs table.
func jobsOf(t testing.TB, dir string) []string {
	t.Helper()
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ids, rep, v := jobs.Col("job_id"), jobs.Col("replicate"), jobs.Col("fct_p99_usec_lossless")
	for i := 0; i < jobs.Rows; i++ {
		out = append(out, fmt.Sprintf("%s %s %s", ids.Str[i], rep.Text(i), v.Text(i)))
	}
	sort.Strings(out)
	return out
}

// A selection decides, and the same spec reaches the same rounds, the same jobs and the
// same decision whatever the worker count, after kills and resumes, and split in shards.
func TestSelectDeterministic(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	run := func(dir string, o launch.Options) *study.SelectReport {
		t.Helper()
		o.Dir = dir
		sr, err := study.Select(context.Background(), selectPlan(t), noisyJob, o)
		if err != nil {
			t.Fatal(err)
		}
		return sr
	}
	base := t.TempDir()
	one := run(filepath.Join(base, "j1"), launch.Options{Workers: 1})
	d := one.Decision
	if d.State != selection.Decided || d.Best != 0 {
		t.Fatalf("decision %s (%s), best %d; want decided, the point of LossyAlpha 0.5", d.State, d.Why, d.Best)
	}
	if d.Round == 0 || d.Jobs <= 24 {
		t.Fatalf("decided in round %d with %d jobs: the test wants a selection of several rounds", d.Round, d.Jobs)
	}
	want := jobsOf(t, filepath.Join(base, "j1"))
	if len(want) != d.Jobs {
		t.Fatalf("%d jobs in the table, the decision used %d", len(want), d.Jobs)
	}

	two := run(filepath.Join(base, "j2"), launch.Options{Workers: 2})
	if !reflect.DeepEqual(two.Decision, d) {
		t.Fatalf("-j 2 decided %+v, -j 1 %+v", two.Decision, d)
	}
	if got := jobsOf(t, filepath.Join(base, "j2")); !reflect.DeepEqual(got, want) {
		t.Fatalf("-j 2 rows differ from -j 1:\n%v\n%v", got, want)
	}

	// Killed after every 7 jobs, then resumed, until decided.
	dir := filepath.Join(base, "killed")
	if sr := selectKilled(t, func() *sweep.Plan { return selectPlan(t) }, noisyJob, dir, 7); !reflect.DeepEqual(sr.Decision, d) {
		t.Fatalf("killed and resumed: decided %+v, want %+v", sr.Decision, d)
	}
	if got := jobsOf(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("killed and resumed: rows differ:\n%v\n%v", got, want)
	}

	// Two shards, each run in turn without waiting, until decided.
	dir = filepath.Join(base, "shards")
	if last := selectShards(t, dir, run); !reflect.DeepEqual(last.Decision, d) {
		t.Fatalf("shards decided %+v, want %+v", last.Decision, d)
	}
	if got := jobsOf(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("shards: rows differ:\n%v\n%v", got, want)
	}

	// DecideDir replays the decision from the directory alone.
	again, _, err := study.DecideDir(filepath.Join(base, "j1"))
	if err != nil || again == nil || !reflect.DeepEqual(*again, d) {
		t.Fatalf("DecideDir: %+v, %v; want %+v", again, err, d)
	}
}

// condSpec is selectSpec's study with the incast degree as a condition: LossyAlpha 0.5,
// 1, 2 are the settings, 3 and 7 senders the conditions. condJob's means:
//
//	           senders 3   senders 7   mean    worst
//	α 0.5      105         140         122.5   140
//	α 1        110         122         116     122
//	α 2        120         118         119     120
//
// so each selects α 0.5 at 3 senders and α 2 at 7, mean α 1, worst α 2.
const condSpec = `name: cond
seed: 3
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
objective: {metric: fct_p99_usec_lossless, goal: min, indifference: 1us, combine: worst}
select: {confidence: 0.9, initial: 4, max_jobs: 2000}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1, 2]
    workload.senders: [3, 7]
  conditions: [workload.senders]
`

func condJob(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error) {
	res := sweeptest.Result(cfg, jobID, 1000)
	alpha := cfg.Switch.SharedBufferManager.LossyAlpha
	mu := map[[2]float64]float64{{0.5, 3}: 105, {0.5, 7}: 140, {1, 3}: 110, {1, 7}: 122, {2, 3}: 120, {2, 7}: 118}[[2]float64{alpha, float64(cfg.Workload.Senders)}]
	common := rand.New(rand.NewPCG(cfg.Seed, 1)).NormFloat64() * 20
	own := rand.New(rand.NewPCG(cfg.Seed, math.Float64bits(alpha)^uint64(cfg.Workload.Senders))).NormFloat64() * 2
	res.Summary.FctP99UsecLossless = mu + common + own
	return res, nil
}

// A study with conditions runs its rounds to the combined decision, the same with -j 1
// and -j 2 and after kills, and each combine answers its own question.
func TestSelectConditions(t *testing.T) {
	t.Parallel()
	plan := func(sets ...string) *sweep.Plan {
		s, err := specfile.Parse("cond.yaml", []byte(condSpec), sets)
		if err != nil {
			t.Fatal(err)
		}
		s.UseSelection()
		p, err := sweep.Expand(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := t.TempDir()
	for _, c := range []struct {
		combine string
		want    []string // the selected setting per condition (each) or overall
	}{
		{"each", []string{"LossyAlpha=0.5", "LossyAlpha=2"}},
		{"mean", []string{"LossyAlpha=1"}},
		{"worst", []string{"LossyAlpha=2"}},
	} {
		set := "objective.combine=" + c.combine
		dir := filepath.Join(base, c.combine)
		sr, err := study.Select(context.Background(), plan(set), condJob, launch.Options{Dir: dir, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		d := sr.Decision
		if d.State != selection.Decided || d.Conditions == nil {
			t.Fatalf("%s: %s (%s)", c.combine, d.State, d.Why)
		}
		cd := d.Conditions
		var got []string
		if cd.Over != nil {
			got = []string{cd.Settings[cd.Over.Best]}
		} else {
			for k, sub := range cd.PerCondition {
				got = append(got, cd.Settings[cd.SettingsAt[k][sub.Best]])
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s selected %v, want %v (%s)", c.combine, got, c.want, d.Why)
		}
		two, err := study.Select(context.Background(), plan(set), condJob, launch.Options{Dir: filepath.Join(base, c.combine+"-j2"), Workers: 2})
		if err != nil || !reflect.DeepEqual(two.Decision, d) {
			t.Fatalf("%s: -j 2 decided differently (%v)", c.combine, err)
		}
		st, err := study.ReadStatus(dir, time.Now(), false, "")
		if err != nil {
			t.Fatal(err)
		}
		cs := st.Selection.Conditions
		if cs == nil || cs.Combine != c.combine || len(cs.Conditions) != 2 || cs.Conditions[1].Values["workload_senders"] != "7" {
			t.Fatalf("%s: status conditions %+v", c.combine, cs)
		}
		if c.combine == "each" && cs.Conditions[1].Best.Values["switch_LossyAlpha"] != "2" || c.combine != "each" && cs.Selected.Label != c.want[0] {
			t.Errorf("%s: status %+v", c.combine, cs)
		}
	}

	// Killed after every 5 jobs and resumed: the same decision (worst).
	dir := filepath.Join(base, "killed")
	want, _, err := study.DecideDir(filepath.Join(base, "worst"))
	if err != nil {
		t.Fatal(err)
	}
	if sr := selectKilled(t, func() *sweep.Plan { return plan() }, condJob, dir, 5); !reflect.DeepEqual(sr.Decision, *want) {
		t.Fatalf("killed and resumed: decided %+v, want %+v", sr.Decision, *want)
	}
}
