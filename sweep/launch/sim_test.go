package launch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

func TestSimPlanRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, file, spec string
		sets             []string
		want             string
	}{
		{"a sweep", "g.yaml", sweeptest.GridSpec("g", 1, 1, "10us"), nil, "sim: g.yaml sweeps 2 axes; sim runs one job"},
		{"an invalid job", specfile.DefaultsFile, "", []string{"topology.hosts=1"}, "hosts"},
	} {
		_, err := launch.SimPlan(tc.file, []byte(tc.spec), tc.sets)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: SimPlan error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// Sim replaces an earlier sim's results once complete and refuses a sweep's directory.
func TestSimReplacesOnlyASim(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := filepath.Join(t.TempDir(), "one")
	opts := func(d string) launch.SimOptions {
		return launch.SimOptions{Dir: d, Format: resultsdir.Parquet, CommandLine: []string{"rocesweep", "sim"}}
	}
	for seed := 1; seed <= 2; seed++ {
		p, err := launch.SimPlan(specfile.DefaultsFile, nil, []string{fmt.Sprintf("seed=%d", seed), "duration=10us"})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := launch.Sim(context.Background(), p, sweeptest.Job(0), opts(dir))
		if err != nil || rep.OK != 1 {
			t.Fatalf("sim %d: %v, report %+v", seed, err, rep)
		}
		m, err := resultsdir.ReadManifest(dir)
		if err != nil || !m.IsSim() {
			t.Fatalf("sim %d: manifest %+v, %v", seed, m, err)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".one.sim-*")); len(left) > 0 {
		t.Errorf("temporary directories left: %v", left)
	}

	sweepDir := filepath.Join(t.TempDir(), "sweep")
	p, err := sweep.Expand(mustSpec(t, sweeptest.GridSpec("g", 1, 1, "10us")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := launch.Run(context.Background(), p, sweeptest.Job(0), launch.Options{Dir: sweepDir, Workers: 1, Format: resultsdir.Parquet}); err != nil {
		t.Fatal(err)
	}
	one, _ := launch.SimPlan(specfile.DefaultsFile, nil, []string{"duration=10us"})
	_, err = launch.Sim(context.Background(), one, sweeptest.Job(0), opts(sweepDir))
	var se *launch.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "holds the results of a sweep") {
		t.Errorf("sim into a sweep's directory: %v, want a SetupError", err)
	}
	if _, err := os.Stat(filepath.Join(sweepDir, "manifest.json")); err != nil {
		t.Errorf("the sweep's results are gone: %v", err)
	}
}

func mustSpec(t *testing.T, text string) *specfile.Spec {
	t.Helper()
	s, err := specfile.Parse("g.yaml", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
