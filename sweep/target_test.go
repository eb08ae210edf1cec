package sweep_test

import (
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// SweepPlan expands a spec that sweeps, every job of it, and gives no plan for one job.
func TestSweepPlan(t *testing.T) {
	p, err := sweep.SweepPlan("g.yaml", []byte(sweeptest.GridSpec("g", 1, 2, "10us")), nil)
	if err != nil || p == nil || len(p.Jobs) != p.Points*2 || p.Points < 2 {
		t.Fatalf("grid: plan %v, err %v; want every point twice", p, err)
	}
	j, err := p.Pick("1")
	if err != nil || j.Index != 1 {
		t.Errorf("Pick(1) = %+v, %v", j, err)
	}
	one, err := sweep.SweepPlan("one.yaml", []byte("name: one\n"), []string{"seed=3"})
	if err != nil || one != nil {
		t.Errorf("one job: plan %v, err %v; want none", one, err)
	}
	if _, err := sweep.SweepPlan("bad.yaml", []byte("nosuchkey: 1\n"), nil); err == nil {
		t.Errorf("an unknown key: no error")
	}
}
