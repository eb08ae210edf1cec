package study_test

// The study library: every spec in configs/ and configs/bench/ parses, states its
// objective, plans to the size its comment states (a selection's plan is its first
// stage), and every job passes the rules that stop a simulation before it starts
// (config.Validate and fabric.Validate). The tests live here, beside the planner they
// run the specs through, so that configs (the embedded specs) has no test binary of its
// own to link the sink and Parquet for.

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// libraryDir is the folder of the study library, configs/.
const libraryDir = "../../configs"

// planSize is the number of jobs each library spec is documented to expand to (a
// selection: its first stage); a spec not listed here only has to parse and validate.
var planSize = map[string]int{
	"quickstart.yaml":                   60, // 4 alpha x 3 Xoff x 5 first-stage replicates
	"lossyalpha-xoff.yaml":              60, // 3 alpha x 2 Xoff x 2 loads x 5
	"ci.yaml":                           6,
	"headroom.yaml":                     5,  // a bisection's first probes: 1MB for each of 5 delays
	"headroom-per-tier.yaml":            2,  // 4MB for each of 2 cable lengths
	"ai-allreduce.yaml":                 60, // 3 rack LossyAlpha x 2 rack Xoff x 2 uplink rates x 5
	"pcie-gen3.yaml":                    3,  // Xoff 0.5 for each of 3 lane counts
	"dcqcn.yaml":                        90, // 3 x 2 x 3 x 5
	"bench/star-incast.yaml":            1,
	"bench/leaf-spine-permutation.yaml": 1,
	"bench/fat-tree-load.yaml":          1,
}

func TestLibrarySpecsPlan(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	files, _ := filepath.Glob(filepath.Join(libraryDir, "*.yaml"))
	bench, _ := filepath.Glob(filepath.Join(libraryDir, "bench", "*.yaml"))
	files = append(files, bench...)
	seen := map[string]bool{}
	for _, path := range files {
		f, _ := filepath.Rel(libraryDir, path)
		f = filepath.ToSlash(f)
		seen[f] = true
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := specfile.Parse(f, data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Objective.Default != "" {
				t.Errorf("states no objective (the default would be %s, %s)", s.Objective.Metric, s.Objective.Default)
			}
			if s.Select != nil {
				s.UseSelection()
			}
			p, err := sweep.Expand(s, fabric.Validate)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range p.Invalid() {
				t.Errorf("%s: %v", p.Label(j), j.Invalid)
			}
			if want, ok := planSize[f]; ok && len(p.Jobs) != want {
				t.Errorf("plan has %d jobs, the spec's comment says %d", len(p.Jobs), want)
			}
		})
	}
	for f := range planSize {
		if !seen[f] {
			t.Errorf("%s is missing from configs/", f)
		}
	}
}

// The quickstart shares pool 1 between a lossless and a lossy class (sizing condition 3)
// to show its trap: some points hold lossless senders paused with an empty buffer
// (stuck_pause_ports), so not every lossless message completes; the selection rules them
// out by its subject_to, and the point it selects has no stuck pause.
func TestQuickstartDecidesAroundTheTrap(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	data, err := os.ReadFile(filepath.Join(libraryDir, "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := specfile.Parse("quickstart.yaml", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.UseSelection()
	p, err := sweep.Expand(s, fabric.Validate)
	if err != nil {
		t.Fatal(err)
	}
	var stuck, best int64 = 0, -1
	job := func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		return fabric.Run(ctx, cfg, fabric.Options{JobID: id})
	}
	sr, err := study.Select(context.Background(), p, job, launch.Options{Dir: filepath.Join(t.TempDir(), "qs"), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := sr.Decision
	if d.State != selection.Decided {
		t.Fatalf("quickstart: %s (%s), want decided", d.State, d.Why)
	}
	for j, sum := range sr.Summaries {
		stuck += sum.StuckPausePorts
		if j.Point == d.Best {
			best = max(best, sum.StuckPausePorts)
			if sum.MsgsCompletedLossless != 120 || sum.DropsLossless != 0 {
				t.Errorf("%s: %d lossless messages completed, %d dropped; want 120, 0", p.Label(j), sum.MsgsCompletedLossless, sum.DropsLossless)
			}
		}
	}
	if stuck == 0 {
		t.Error("no job of the quickstart has a stuck pause: it no longer shows the trap its comment describes")
	}
	if best != 0 {
		t.Errorf("the selected point %s has stuck pauses (%d)", d.Labels[d.Best], best)
	}
}
