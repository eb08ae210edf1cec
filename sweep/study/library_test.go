package study_test

// The study library: every spec in configs/ and configs/bench/ parses, states its
// objective, plans to the size its comment states (a selection's plan is its first
// stage), and every job passes the rules that stop a simulation before it starts
// (config.Validate and fabric.Validate). The tests live here, beside the planner they
// run the specs through, so that configs (the embedded specs) has no test binary of its
// own to link the sink and Parquet for.

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
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
