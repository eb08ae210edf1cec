// Package configs_test checks the study library: every spec in configs/ and
// configs/bench/ parses, plans to the size its comment states, and every job passes the
// rules that stop a simulation before it starts (config.Validate and fabric.Validate).
package configs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/sweep"
)

// planSize is the number of jobs each library spec is documented to expand to; a spec
// not listed here only has to parse and validate (quickstart.yaml belongs to the sweep).
var planSize = map[string]int{
	"lossyalpha-xoff.yaml":              126, // 7 alpha x 6 Xoff x 3 replicates
	"ci.yaml":                           6,
	"headroom.yaml":                     60,
	"headroom-per-tier.yaml":            10, // 2 cable lengths x 5 headroom limits
	"ai-allreduce.yaml":                 12, // 4 rack LossyAlpha x 3 spine Xoff
	"pcie-gen3.yaml":                    9,
	"dcqcn.yaml":                        18,
	"bench/star-incast.yaml":            1,
	"bench/leaf-spine-permutation.yaml": 1,
	"bench/fat-tree-load.yaml":          1,
}

func TestLibrarySpecsPlan(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	bench, _ := filepath.Glob("bench/*.yaml")
	files = append(files, bench...)
	seen := map[string]bool{}
	for _, f := range files {
		seen[f] = true
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s, err := sweep.ParseSpec(f, data, nil)
			if err != nil {
				t.Fatal(err)
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

// The quickstart sweep shares pool 0 between a lossless and a lossy class (explain warns,
// sizing condition 3), but its pauses lift: no job of it reports a stuck pause.
func TestQuickstartHasNoStuckPause(t *testing.T) {
	data, err := os.ReadFile("quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := sweep.ParseSpec("quickstart.yaml", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, fabric.Validate)
	if err != nil {
		t.Fatal(err)
	}
	var pauses int64
	for _, j := range p.Jobs {
		res, err := fabric.Run(context.Background(), j.Config, fabric.Options{JobID: j.ID})
		if err != nil {
			t.Fatal(err)
		}
		if n := res.Summary.StuckPausePorts; n != 0 {
			t.Errorf("%s: stuck_pause_ports %d, want 0", p.Label(j), n)
		}
		pauses += res.Summary.PfcPauseTx
	}
	if pauses == 0 {
		t.Error("no job of the quickstart pauses: the check above proves nothing")
	}
}
