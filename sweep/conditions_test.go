package sweep

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

const condSpec = `name: conds
duration: 100us
workload:
  kind: mix
  mix:
    - {kind: incast, senders: 6, message_size: 64KiB, data_tc: 1, control_tc: 2}
    - {kind: incast, senders: 4, message_size: 512KiB, data_tc: 0, control_tc: 2}
sweep:
  grid:
    switch.LossyAlpha: [1, 4]
    workload.mix.0.senders: [3, 6]
    switch.StaticPoolXoffThreshold: [200KB, 400KB]
  conditions: [workload.mix.0.senders]
objective:
  metric: fct_p99_usec_lossless
  combine: mean
  weights: [1, 3]
`

// The grid of settings × conditions: settings and conditions in plan order of first
// appearance, labelled by short names, cell (s, c) the plan point.
func TestConditionsGrid(t *testing.T) {
	s, err := specfile.Parse("c.yaml", []byte(condSpec), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := s.Objective
	if o.Combine != question.CombineMean || !slices.Equal(o.Conditions, []string{"workload_mix_0_senders"}) || !slices.Equal(o.Weights, []float64{1, 3}) {
		t.Errorf("objective %+v", o)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Grid()
	if err != nil {
		t.Fatal(err)
	}
	// Plan order: alpha, senders, Xoff (the last fastest): points 0..7.
	wantSettings := []string{"LossyAlpha=1, StaticPoolXoffThreshold=200KB", "LossyAlpha=1, StaticPoolXoffThreshold=400KB", "LossyAlpha=4, StaticPoolXoffThreshold=200KB", "LossyAlpha=4, StaticPoolXoffThreshold=400KB"}
	if !slices.Equal(g.Settings, wantSettings) || !slices.Equal(g.Conditions, []string{"senders=3", "senders=6"}) {
		t.Errorf("settings %q, conditions %q", g.Settings, g.Conditions)
	}
	want := [][]int{{0, 2}, {1, 3}, {4, 6}, {5, 7}}
	for s := range want {
		if !slices.Equal(g.Cell[s], want[s]) {
			t.Errorf("cells %v, want %v", g.Cell, want)
			break
		}
	}
	// Replicate r of every cell draws the same random numbers: its seed is the
	// replicate's, whatever the setting and the condition.
	s3, err := specfile.Parse("c.yaml", []byte(condSpec), []string{"replicates=3"})
	if err != nil {
		t.Fatal(err)
	}
	p3, err := Expand(s3, nil)
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[int]map[uint64]bool{}
	for _, j := range p3.Jobs {
		if seeds[j.Replicate] == nil {
			seeds[j.Replicate] = map[uint64]bool{}
		}
		seeds[j.Replicate][j.Seed] = true
	}
	if len(seeds) != 3 || len(seeds[0]) != 1 || len(seeds[1]) != 1 || len(seeds[2]) != 1 {
		t.Errorf("seeds by replicate over %d jobs: %v", len(p3.Jobs), seeds)
	}
	// Without conditions there is no grid; each is the default with them.
	s2, err := specfile.Parse("c.yaml", []byte(strings.Replace(strings.Replace(condSpec, "  combine: mean\n", "", 1), "  weights: [1, 3]\n", "", 1)), nil)
	if err != nil || s2.Objective.Combine != question.CombineEach {
		t.Errorf("default combine: %v, %+v", err, s2.Objective)
	}
}

// Bad conditions are refused before anything runs, naming file:line:column, the key
// and the value.
func TestConditionsRefused(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"conditions: [workload.mix.0.senders]", "conditions: [topology.hosts]", "c.yaml:13:16: sweep.conditions: topology.hosts is not an axis of the sweep (axes: switch.LossyAlpha, workload.mix.0.senders, switch.StaticPoolXoffThreshold)"},
		{"conditions: [workload.mix.0.senders]", "conditions: [switch.LossyAlpa]", "c.yaml:13:16: sweep.conditions: switch.LossyAlpa: unknown attribute (did you mean switch.LossyAlpha?)"},
		{"conditions: [workload.mix.0.senders]", "conditions: [switch.LossyAlpha, workload.mix.0.senders, switch.StaticPoolXoffThreshold]", "sweep.conditions: every swept axis is a condition"},
		{"weights: [1, 3]", "weights: [1, 3, 1]", "c.yaml:17:12: objective.weights: 3 weights for 2 conditions"},
		{"weights: [1, 3]", "weights: [1, 0]", `c.yaml:17:16: objective.weights: want positive numbers, one per condition (value "0")`},
		{"combine: mean", "combine: worst", "c.yaml:17:12: objective.weights: weights are for combine: mean (combine is worst)"},
		{"combine: mean", "combine: median", `c.yaml:16:12: objective.combine: want each, mean or worst (value "median")`},
		{"  conditions: [workload.mix.0.senders]\n", "", "c.yaml:15:12: objective.combine: mean combines conditions, and the sweep names none"},
	} {
		_, err := specfile.Parse("c.yaml", []byte(strings.Replace(condSpec, c.old, c.new, 1)), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: got %v, want %q", c.old, c.new, err, c.want)
		}
	}
	// Mean and worst compare every setting at every condition: a constraint that removes
	// a cell is refused, naming it; each takes the settings each condition has.
	spec := strings.Replace(condSpec, "  conditions:", "  constraint: switch.LossyAlpha < 4 || workload.mix.0.senders < 6\n  conditions:", 1)
	s, err := specfile.Parse("c.yaml", []byte(spec), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Expand(s, nil); err == nil || !strings.Contains(err.Error(), "c.yaml:17:12: objective.combine: mean compares every setting at every condition, and the plan has no point LossyAlpha=4, StaticPoolXoffThreshold=200KB at senders=6") {
		t.Errorf("incomplete grid: %v", err)
	}
	_, err = specfile.Parse("c.yaml", []byte(spec), []string{"objective.combine=each"})
	if err == nil || !strings.Contains(err.Error(), "weights are for combine: mean") {
		t.Errorf("--set objective.combine=each with weights: %v", err)
	}
	each := strings.Replace(strings.Replace(spec, "combine: mean", "combine: each", 1), "  weights: [1, 3]\n", "", 1)
	if s, err = specfile.Parse("c.yaml", []byte(each), nil); err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := p.Grid(); err != nil || !slices.Equal(g.Cell[2], []int{4, -1}) {
		t.Errorf("each over an incomplete grid: %v, %v", err, g)
	}
	// A secondary objective or a Pareto front is asked at each condition (each); mean and
	// worst take one metric.
	then := strings.Replace(strings.Replace(condSpec, "  weights: [1, 3]\n", "  indifference: 1us\n  then: {metric: drops_lossy, goal: min, indifference: 1}\n", 1), "combine: mean", "combine: each", 1)
	if _, err := specfile.Parse("c.yaml", []byte(then), nil); err != nil {
		t.Errorf("each with then: %v", err)
	}
	if _, err := specfile.Parse("c.yaml", []byte(then), []string{"objective.combine=worst"}); err == nil || !strings.Contains(err.Error(), "--set objective.combine=worst: objective.combine: worst takes one metric, and the objective has then (a secondary objective): use combine: each") {
		t.Errorf("worst with then: %v", err)
	}
	// A bisection answers at each condition, every swept axis being one: sweep.conditions
	// may say so, and combine or weights are refused.
	const bisect = `name: b
duration: 100us
workload: {kind: incast, senders: 4}
sweep:
  grid: {nic.Delay: [100ns, 1us]}
  conditions: [nic.Delay]
objective:
  smallest: switch.HeadRoomPerPortLimit
  range: [0, 200KB]
  resolution: 10KB
  subject_to: [drops_lossless == 0]
`
	if _, err := specfile.Parse("b.yaml", []byte(bisect), nil); err != nil {
		t.Errorf("bisection with every axis a condition: %v", err)
	}
	if _, err := specfile.Parse("b.yaml", []byte(bisect+"  combine: worst\n"), nil); err == nil || !strings.Contains(err.Error(), "b.yaml:12:12: objective.combine: a bisection (objective.smallest) answers at each condition") {
		t.Errorf("bisection with combine: %v", err)
	}
	// A --set that pins the condition leaves one condition: nothing to combine.
	s, err = specfile.Parse("c.yaml", []byte(condSpec), []string{"workload.mix.0.senders=3"})
	if err != nil || s.Objective.Combine != "" || len(s.Objective.Conditions) != 0 || !strings.Contains(strings.Join(s.Notices, "\n"), "pins the condition workload.mix.0.senders (c.yaml:13:16) to one value") {
		t.Errorf("pinned condition: %v, %+v, %q", err, s.Objective, s.Notices)
	}
}

// The example of studies.md "Settings and conditions" (docs/examples/) parses and plans:
// 12 settings x 2 conditions x 5 first-stage replicates.
func TestConditionsExampleSpec(t *testing.T) {
	data, err := os.ReadFile("../docs/examples/quickstart-conditions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := specfile.Parse("quickstart-conditions.yaml", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.UseSelection()
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := p.Grid()
	if err != nil || len(p.Jobs) != 120 || len(g.Settings) != 12 || len(g.Conditions) != 2 || g.Combine != question.CombineWorst {
		t.Errorf("%d jobs, grid %+v, %v", len(p.Jobs), g, err)
	}
}
