package launch_test

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/study"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// planOv plans text with the overrides ov (a selection's first stage, as run does).
func planOv(t *testing.T, text string, ov specfile.Overrides) (*sweep.Plan, error) {
	t.Helper()
	s, err := specfile.ParseOverrides("spec.yaml", []byte(text), ov)
	if err != nil {
		return nil, err
	}
	if s.Select != nil {
		s.UseSelection()
	}
	return sweep.Expand(s, nil)
}

// The manifest records --grid as it records --set: a resume with the same --grid
// continues, one with another (or none) is another plan and is refused, --extend with a
// longer --grid runs only the new points, and Replan gives the plan that ran.
func TestGridRecordedForResume(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	grid := sweeptest.GridSpec("t", 1, 1, "200us")
	mustPlan := func(grids ...string) *sweep.Plan {
		t.Helper()
		p, err := planOv(t, grid, specfile.Overrides{Grids: grids})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	dir := filepath.Join(t.TempDir(), "out")
	small := mustPlan("switch.LossyAlpha=0.5,1")
	if _, err := run(t, small, testJob, launch.Options{Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	again, err := run(t, mustPlan("switch.LossyAlpha=0.5,1"), testJob, launch.Options{Dir: dir, Resume: true})
	if err != nil || again.Skipped != 6 || again.OK != 0 {
		t.Fatalf("resume with the same --grid: %+v, %v; want its 6 jobs kept", again, err)
	}
	var se *launch.SetupError
	for _, p := range []*sweep.Plan{mustPlan("switch.LossyAlpha=0.5,2"), mustPlan()} {
		if _, err := run(t, p, testJob, launch.Options{Dir: dir, Resume: true}); !errors.As(err, &se) || !strings.Contains(err.Error(), "a plan of 6 jobs") {
			t.Errorf("resume with another --grid: %v, want the plan-differs refusal", err)
		}
	}
	big := mustPlan("switch.LossyAlpha=0.5,1,2")
	rep, err := run(t, big, testJob, launch.Options{Dir: dir, Resume: true, Extend: true})
	if err != nil || rep.Skipped != 6 || rep.OK != 3 {
		t.Fatalf("--extend with a third alpha: %+v, %v; want 6 kept, 3 run", rep, err)
	}
	p, m, err := study.Replan(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Grids, []string{"switch.LossyAlpha=0.5,1,2"}) || p.Hash() != big.Hash() {
		t.Errorf("replanned from the manifest: grids %q, plan %s; want the --grid and plan %s", m.Grids, p.Hash(), big.Hash())
	}
}
