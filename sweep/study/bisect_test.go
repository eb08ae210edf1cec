package study_test

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/study"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// bisectSpec asks for the smallest headroom with no lossless drops per NIC Delay, as
// configs/headroom.yaml does; thresholdJob is its fake job.
const bisectSpec = `name: bis
seed: 3
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
objective:
  smallest: switch.HeadRoomPerPortLimit
  range: [0, 128KB]
  resolution: 4KB
  subject_to: [drops_lossless == 0]
  deterministic: true
sweep:
  grid:
    nic.Delay: [100ns, 1us]
`

// thresholdJob drops lossless packets below a headroom of 100 B per ns of NIC Delay plus
// 2,345 B (12,345 B at 100 ns, 102,345 B at 1 µs): a pure function of the configuration.
func thresholdJob(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error) {
	res := sweeptest.Result(cfg, jobID, 1000)
	need := 100*cfg.NIC.NetworkInterface.TransmissionMedium.Delay.Nanos() + 2345
	if h := float64(cfg.Switch.SharedBufferManager.HeadRoomPerPortLimit); h < need {
		res.Summary.DropsLossless = int64(math.Ceil((need - h) / 1000))
	}
	return res, nil
}

// noisyThresholdJob is thresholdJob with a violation in a share of runs that falls with
// the headroom (5% per KB below the threshold, from the job's seed: replicate r of every
// probe draws the same number, common random numbers).
func noisyThresholdJob(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error) {
	res := sweeptest.Result(cfg, jobID, 1000)
	need := 100*cfg.NIC.NetworkInterface.TransmissionMedium.Delay.Nanos() + 2345
	short := (need - float64(cfg.Switch.SharedBufferManager.HeadRoomPerPortLimit)) / 1000
	if u := rand.New(rand.NewPCG(cfg.Seed, 9)).Float64(); u < 0.05*short {
		res.Summary.DropsLossless = 1
	}
	return res, nil
}

func bisectPlan(t testing.TB, spec string, sets ...string) *sweep.Plan {
	t.Helper()
	s, err := specfile.Parse("spec.yaml", []byte(spec), sets)
	if err != nil {
		t.Fatal(err)
	}
	if sel, w := s.ChooseSelection(false, false); !sel || w != "" {
		t.Fatalf("a bisection runs as one: %v, %q", sel, w)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The bisection finds each condition's threshold to 4 KB in 6 probes and a check, and
// the same spec reaches the same probes, jobs and answers whatever the worker count,
// after kills and resumes, and split in shards; its stochastic form too.
func TestBisectDeterministicRuns(t *testing.T) {
	t.Parallel()
	stochastic := strings.Replace(bisectSpec, "  deterministic: true\n", "select: {rare: 50%, initial: 5}\n", 1)
	stochastic = strings.Replace(stochastic, "range: [0, 128KB]", "range: [0, 32KB]", 1)
	stochastic = strings.Replace(stochastic, "[100ns, 1us]", "[200ns]", 1)
	for _, tc := range []struct {
		name, spec string
		job        launch.JobFunc
	}{{"deterministic", bisectSpec, thresholdJob}, {"stochastic", stochastic, noisyThresholdJob}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			run := func(dir string, o launch.Options) *study.SelectReport {
				t.Helper()
				o.Dir = dir
				sr, err := study.Select(context.Background(), bisectPlan(t, tc.spec), tc.job, o)
				if err != nil {
					t.Fatal(err)
				}
				return sr
			}
			base := t.TempDir()
			one := run(filepath.Join(base, "j1"), launch.Options{Workers: 1})
			d := one.Bisection
			if d == nil || d.State != selection.Decided {
				t.Fatalf("not decided: %+v", d)
			}
			want := jobsOf(t, filepath.Join(base, "j1"))
			if len(want) != d.Jobs {
				t.Fatalf("%d jobs in the table, the bisection counts %d", len(want), d.Jobs)
			}
			if tc.name == "deterministic" {
				p := bisectPlan(t, tc.spec)
				for c, wantKB := range []string{"16KB", "104KB"} {
					dc := d.Conditions[c]
					if got := p.ProbeLabel(dc.Answer); dc.State != selection.CondAnswered || got != wantKB || dc.Fails != dc.Answer-1 || len(dc.Probes) != 7 {
						t.Errorf("condition %s: %s, answer %s (want %s), fails step %d, %d probes", dc.Label, dc.State, got, wantKB, dc.Fails, len(dc.Probes))
					}
				}
				if d.Jobs != 14 || one.Rounds != 7 {
					t.Errorf("%d jobs in %d rounds, want 14 in 7", d.Jobs, one.Rounds)
				}
			} else if d.Jobs <= 5*2 {
				t.Fatalf("%d jobs: the stochastic test wants several batches", d.Jobs)
			}

			two := run(filepath.Join(base, "j2"), launch.Options{Workers: 2})
			if !reflect.DeepEqual(two.Bisection, d) {
				t.Fatalf("-j 2 decided %+v, -j 1 %+v", two.Bisection, d)
			}
			if got := jobsOf(t, filepath.Join(base, "j2")); !reflect.DeepEqual(got, want) {
				t.Fatalf("-j 2 rows differ from -j 1:\n%v\n%v", got, want)
			}

			// Killed after every 5 jobs, then resumed, until decided.
			dir := filepath.Join(base, "killed")
			if sr := selectKilled(t, func() *sweep.Plan { return bisectPlan(t, tc.spec) }, tc.job, dir, 5); !reflect.DeepEqual(sr.Bisection, d) {
				t.Fatalf("killed and resumed: decided %+v, want %+v", sr.Bisection, d)
			}
			if got := jobsOf(t, dir); !reflect.DeepEqual(got, want) {
				t.Fatalf("killed and resumed: rows differ:\n%v\n%v", got, want)
			}

			// Two shards, each run in turn without waiting, until decided.
			dir = filepath.Join(base, "shards")
			if last := selectShards(t, dir, run); !reflect.DeepEqual(last.Bisection, d) {
				t.Fatalf("shards decided %+v, want %+v", last.Bisection, d)
			}
			if got := jobsOf(t, dir); !reflect.DeepEqual(got, want) {
				t.Fatalf("shards: rows differ:\n%v\n%v", got, want)
			}

			// BisectDir replays the answers from the directory alone.
			st, p, err := study.BisectDir(filepath.Join(base, "j1"))
			if err != nil || st == nil || !reflect.DeepEqual(st, p.BisectionStatus(d)) {
				t.Fatalf("BisectDir: %+v, %v", st, err)
			}
		})
	}
}

// A probe is a job like any other: its id hashes its configuration, so the probe at
// 64KB for a 1 µs Delay is the grid job of the same values, and the plan is the range's
// safe end of every condition.
func TestBisectProbeIsAGridJob(t *testing.T) {
	t.Parallel()
	p := bisectPlan(t, bisectSpec)
	if len(p.Jobs) != 2 || p.Jobs[0].Values[1].Text != "128KB" || len(p.Axes) != 2 || p.Axes[1].Column != "switch_HeadRoomPerPortLimit" {
		t.Fatalf("plan: %d jobs, first at %v, axes %d", len(p.Jobs), p.Jobs[0].Values, len(p.Axes))
	}
	grid := strings.Replace(bisectSpec, "    nic.Delay: [100ns, 1us]", "    nic.Delay: [100ns, 1us]\n    switch.HeadRoomPerPortLimit: [64KB]", 1)
	grid = grid[:strings.Index(grid, "objective:")] + grid[strings.Index(grid, "sweep:"):]
	s, err := specfile.Parse("grid.yaml", []byte(grid), nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	probe := p.ProbeJob(selection.ProbeNeed{Cond: 1, Step: 16, Replicate: 0, Seq: 3})
	if probe.ID != g.Jobs[1].ID || probe.Index != 2+2*2+1 {
		t.Errorf("probe %s (index %d), grid job %s (%s); want the same id, index 7", probe.ID, probe.Index, g.Jobs[1].ID, g.Label(g.Jobs[1]))
	}
	if again := p.ProbeJob(selection.ProbeNeed{Cond: 1, Step: 16, Replicate: 0, Seq: 3}); again != probe {
		t.Error("the same probe is a new *Job")
	}
}

// Bad bisection specs are refused before anything runs, naming file:line:column, the
// field and the value.
func TestBisectSpecErrors(t *testing.T) {
	t.Parallel()
	objective := func(lines string) string {
		return strings.Replace(bisectSpec, `objective:
  smallest: switch.HeadRoomPerPortLimit
  range: [0, 128KB]
  resolution: 4KB
  subject_to: [drops_lossless == 0]
  deterministic: true
`, "objective:\n"+lines, 1)
	}
	for _, tc := range []struct {
		name, spec string
		sets       []string
		want       string
	}{
		{"both ends", objective("  smallest: switch.HeadRoomPerPortLimit\n  largest: switch.HeadRoomPerPortLimit\n  range: [0, 1MB]\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:8:3: objective.largest: a bisection asks for the smallest or the largest safe value, not both (smallest is at spec.yaml:7:3)"},
		{"range alone", objective("  metric: drops_lossless\n  range: [0, 1MB]\n"),
			nil, "spec.yaml:8:3: objective.range: belongs to a bisection: add smallest: ATTRIBUTE (or largest:) to the objective"},
		{"unknown attribute", objective("  smallest: switch.HeadRoomPerPortLimt\n  range: [0, 1MB]\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:7:13: objective.smallest: "},
		{"vector", objective("  largest: nic.PfcStaticXoffThreshold\n  range: [0.5, 1]\n  resolution: 0.01\n  subject_to: [nic_rx_drops == 0]\n"),
			nil, "spec.yaml:7:12: objective.largest: nic.PfcStaticXoffThreshold is a vector of 8 traffic classes: bisect one element, e.g. nic.PfcStaticXoffThreshold[0]"},
		{"element of a scalar", objective("  smallest: switch.HeadRoomPerPortLimit[0]\n  range: [0, 1MB]\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:7:13: objective.smallest: switch.HeadRoomPerPortLimit is a bytes, not a vector: drop the [0]"},
		{"not a number", objective("  smallest: global.EnablePFCECNStatsLogging\n  range: [0, 1]\n  resolution: 1\n  subject_to: [drops_lossless == 0]\n"),
			nil, "a bisection needs a number"},
		{"empty range", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [1MB, 1KB]\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:8:10: objective.range: [1MB, 1KB] is empty: TO must be above FROM"},
		{"one end", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [1MB]\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:8:10: objective.range: want [FROM, TO], two values of switch.HeadRoomPerPortLimit (value [1MB])"},
		{"bad end", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [0, 1 parsec]\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:8:14: objective.range: switch.SharedBufferManager.HeadRoomPerPortLimit: unknown unit \"parsec\" for a size"},
		{"coarse resolution", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [0, 1MB]\n  resolution: 2MB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:9:15: objective.resolution: 2MB: want a step above 0 and at most the range's width 1MB"},
		{"no range", objective("  smallest: switch.HeadRoomPerPortLimit\n  resolution: 1KB\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:7:3: objective: a bisection needs range: [FROM, TO], in switch.HeadRoomPerPortLimit's units"},
		{"no subject_to", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [0, 1MB]\n  resolution: 1KB\n"),
			nil, "spec.yaml:7:13: objective.smallest: a bisection needs subject_to, the constraint that makes a value safe (e.g. subject_to: [drops_lossless == 0])"},
		{"indifference", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [0, 1MB]\n  resolution: 1KB\n  indifference: 1\n  subject_to: [drops_lossless == 0]\n"),
			nil, "spec.yaml:10:17: objective.indifference: a bisection has no indifference: objective.resolution says how finely it finds its value"},
		{"checks", objective("  smallest: switch.HeadRoomPerPortLimit\n  range: [0, 1MB]\n  resolution: 1KB\n  checks: -1\n  subject_to: [drops_lossless == 0]\n"),
			nil, `spec.yaml:10:11: objective.checks: want a whole number of monotonicity checks per condition from 0 to 100 (value "-1")`},
		{"also an axis", strings.Replace(bisectSpec, "    nic.Delay: [100ns, 1us]", "    nic.Delay: [100ns, 1us]\n    switch.HeadRoomPerPortLimit: [64KB, 1MB]", 1),
			nil, "spec.yaml:7:13: objective.smallest: switch.HeadRoomPerPortLimit is also swept at spec.yaml:15:5; a bisection chooses its values itself: drop the axis (the other axes are its conditions)"},
		{"constraint reads it", strings.Replace(bisectSpec, "sweep:\n", "sweep:\n  constraint: switch.HeadRoomPerPortLimit > 0\n", 1),
			nil, "spec.yaml:13:15: sweep.constraint: reads switch.HeadRoomPerPortLimit, which is bisected (spec.yaml:7:13): a condition cannot depend on the value being found"},
	} {
		_, err := specfile.Parse("spec.yaml", []byte(tc.spec), tc.sets)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, tc.want)
		}
	}
	_, err := specfile.ParseOverrides("spec.yaml", []byte(bisectSpec), specfile.Overrides{Grids: []string{"switch.HeadRoomPerPortLimit=64KB,1MB"}})
	if err == nil || !strings.Contains(err.Error(), "objective.smallest: switch.HeadRoomPerPortLimit is also swept at --grid switch.HeadRoomPerPortLimit=64KB,1MB") {
		t.Errorf("--grid of the bisected attribute: %v", err)
	}
	// A --set of the bisected attribute is refused by the plan (sim may pin it).
	s, err := specfile.Parse("spec.yaml", []byte(bisectSpec), []string{"switch.HeadRoomPerPortLimit=64KB"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Expand(s, nil); err == nil || err.Error() != "--set switch.HeadRoomPerPortLimit=64KB: switch.HeadRoomPerPortLimit is bisected (spec.yaml:7:13): its values are the bisection's; change objective.range instead" {
		t.Errorf("--set of the bisected attribute: %v", err)
	}
	if p, err := launch.SimPlan("spec.yaml", []byte(bisectSpec), []string{"switch.HeadRoomPerPortLimit=64KB", "nic.Delay=1us"}); err != nil ||
		p.Jobs[0].Config.Switch.SharedBufferManager.HeadRoomPerPortLimit != 64000 {
		t.Errorf("sim of one probe: %v", err)
	}
	// A range end that breaks a rule of the model makes every condition invalid before
	// anything runs, naming the value.
	s, err = specfile.Parse("spec.yaml", []byte(strings.Replace(bisectSpec, "[0, 128KB]", "[0, 100MB]", 1)), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := p.Invalid()
	if len(bad) != 2 || !strings.Contains(bad[0].Invalid.Error(), "headroom 100,000,000 B × 8 ports = 800,000,000 B exceeds TotalSharedBufferSize 256,000,000 B (value 100MB)") {
		t.Errorf("invalid range end: %d invalid conditions (%v)", len(bad), bad[0].Invalid)
	}
}
