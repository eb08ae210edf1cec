package sweep_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// zipSpec has a zip group of two lane counts (3 values) and a grid axis of 2 alphas.
const zipSpec = `name: lanes
duration: 200us
topology: {kind: star, hosts: 4}
workload: {kind: incast, senders: 3, message_size: 64KB}
sweep:
  zip:
    nic.NICSide.PhysicalLayer.LaneCount: [4, 8, 16]
    nic.HostSide.PhysicalLayer.LaneCount: [4, 8, 16]
  grid:
    switch.LossyAlpha: [0.5, 1]
`

const gridSelectSpec = `name: sel
duration: 200us
topology: {kind: star, hosts: 4}
workload: {kind: incast, senders: 3, message_size: 64KB}
objective: {metric: fct_p99_usec, goal: min, indifference: 1us}
select: {initial: 2}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1]
`

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

// axisTexts is each axis as "path=v1,v2,...", in plan order.
func axisTexts(p *sweep.Plan) []string {
	var out []string
	for _, a := range p.Axes {
		var vs []string
		for _, v := range a.Values {
			vs = append(vs, v.Text)
		}
		out = append(out, a.Path+"="+strings.Join(vs, ","))
	}
	return out
}

func TestGridOverrides(t *testing.T) {
	grid := sweeptest.GridSpec("t", 1, 1, "200us") // 4 alphas x 3 Xoffs = 12 jobs
	for _, tc := range []struct {
		name    string
		spec    string
		ov      specfile.Overrides
		jobs    int
		axes    []string
		notices []string
	}{
		{"a new axis goes last on the grid", grid, specfile.Overrides{Grids: []string{"nic.Delay=100ns, 1us"}}, 24,
			[]string{"switch.LossyAlpha=0.25,0.5,1,2", "switch.StaticPoolXoffThreshold=400KB,700KB,1MB", "nic.Delay=100ns,1us"}, nil},
		{"a swept path's axis is replaced in place", grid, specfile.Overrides{Grids: []string{"switch.LossyAlpha=0.5,4"}}, 6,
			[]string{"switch.LossyAlpha=0.5,4", "switch.StaticPoolXoffThreshold=400KB,700KB,1MB"},
			[]string{"--grid switch.LossyAlpha=0.5,4 replaces the axis switch.LossyAlpha (spec.yaml:9:5, 4 values) by 2 values"}},
		{"an alias of a swept path replaces it too", grid, specfile.Overrides{Grids: []string{"switch.SharedBufferManager.LossyAlpha=3"}}, 3,
			[]string{"switch.SharedBufferManager.LossyAlpha=3", "switch.StaticPoolXoffThreshold=400KB,700KB,1MB"},
			[]string{"--grid switch.SharedBufferManager.LossyAlpha=3 replaces the axis switch.LossyAlpha (spec.yaml:9:5, 4 values) by 1 value"}},
		{"--set of a swept path drops the axis, and says so", grid, specfile.Overrides{Sets: []string{"switch.LossyAlpha=0.5"}}, 3,
			[]string{"switch.StaticPoolXoffThreshold=400KB,700KB,1MB"},
			[]string{"--set switch.LossyAlpha=0.5 replaces the axis switch.LossyAlpha (spec.yaml:9:5, 4 values) by this one value"}},
		{"--set and --grid of other paths", grid, specfile.Overrides{Sets: []string{"replicates=2"}, Grids: []string{"switch.StaticPoolXoffThreshold=300KB,0.3MB,500KB"}}, 16,
			[]string{"switch.LossyAlpha=0.25,0.5,1,2", "switch.StaticPoolXoffThreshold=300KB,500KB"},
			[]string{"--grid switch.StaticPoolXoffThreshold=300KB,0.3MB,500KB replaces the axis switch.StaticPoolXoffThreshold (spec.yaml:10:5, 3 values) by 2 values"}},
		{"every axis of a zip group, equal lengths", zipSpec, specfile.Overrides{Grids: []string{"nic.NICSide.PhysicalLayer.LaneCount=2,4", "nic.HostSide.PhysicalLayer.LaneCount=8,8"}}, 4,
			[]string{"nic.NICSide.PhysicalLayer.LaneCount=2,4", "nic.HostSide.PhysicalLayer.LaneCount=8,8", "switch.LossyAlpha=0.5,1"},
			[]string{"--grid nic.NICSide.PhysicalLayer.LaneCount=2,4 replaces the axis nic.NICSide.PhysicalLayer.LaneCount (spec.yaml:7:5, 3 values) by 2 values",
				"--grid nic.HostSide.PhysicalLayer.LaneCount=8,8 replaces the axis nic.HostSide.PhysicalLayer.LaneCount (spec.yaml:8:5, 3 values) by 2 values"}},
		{"one zipped axis, same length", zipSpec, specfile.Overrides{Grids: []string{"nic.HostSide.PhysicalLayer.LaneCount=16,8,4"}}, 6,
			[]string{"nic.NICSide.PhysicalLayer.LaneCount=4,8,16", "nic.HostSide.PhysicalLayer.LaneCount=16,8,4", "switch.LossyAlpha=0.5,1"},
			[]string{"--grid nic.HostSide.PhysicalLayer.LaneCount=16,8,4 replaces the axis nic.HostSide.PhysicalLayer.LaneCount (spec.yaml:8:5, 3 values) by 3 values"}},
		// A selection's points are its grid's: a --grid adds points to choose from.
		{"a selection gets more points", gridSelectSpec, specfile.Overrides{Grids: []string{"switch.LossyAlpha=0.5,1,2"}}, 6,
			[]string{"switch.LossyAlpha=0.5,1,2"},
			[]string{"--grid switch.LossyAlpha=0.5,1,2 replaces the axis switch.LossyAlpha (spec.yaml:9:5, 2 values) by 3 values"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := planOv(t, tc.spec, tc.ov)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Jobs) != tc.jobs {
				t.Errorf("%d jobs, want %d", len(p.Jobs), tc.jobs)
			}
			if got := axisTexts(p); !slices.Equal(got, tc.axes) {
				t.Errorf("axes %q, want %q", got, tc.axes)
			}
			if !slices.Equal(p.Spec.Notices, tc.notices) {
				t.Errorf("notices %q, want %q", p.Spec.Notices, tc.notices)
			}
		})
	}
}

// A --grid axis makes the same jobs (ids) as the same axis written in the spec.
func TestGridSameJobsAsSpec(t *testing.T) {
	grid := sweeptest.GridSpec("t", 1, 1, "200us")
	fromFlag, err := planOv(t, grid, specfile.Overrides{Grids: []string{"switch.LossyAlpha=0.25,0.5,1,2,4"}})
	if err != nil {
		t.Fatal(err)
	}
	fromSpec, err := planOv(t, strings.Replace(grid, "[0.25, 0.5, 1, 2]", "[0.25, 0.5, 1, 2, 4]", 1), specfile.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if fromFlag.Hash() != fromSpec.Hash() || len(fromFlag.Jobs) != 15 {
		t.Errorf("--grid plan %s (%d jobs), spec plan %s (%d jobs): want the same 15 jobs", fromFlag.Hash(), len(fromFlag.Jobs), fromSpec.Hash(), len(fromSpec.Jobs))
	}
}

func TestGridOverrideErrors(t *testing.T) {
	grid := sweeptest.GridSpec("t", 1, 1, "200us")
	for _, tc := range []struct {
		spec string
		ov   specfile.Overrides
		want string
	}{
		{grid, specfile.Overrides{Grids: []string{"switch.LossyAlpha=0.5,x"}}, `--grid switch.LossyAlpha=0.5,x: value "x": switch.LossyAlpha: not a number`},
		{grid, specfile.Overrides{Grids: []string{"nic.DataRate=100Gbps,fast"}}, `--grid nic.DataRate=100Gbps,fast: value "fast": nic.DataRate:`},
		{grid, specfile.Overrides{Grids: []string{"switch.StaticPoolXoffThreshold=700"}}, `--grid switch.StaticPoolXoffThreshold=700: value "700": switch.StaticPoolXoffThreshold:`},
		{grid, specfile.Overrides{Grids: []string{"switch.LosyAlpha=1"}}, "--grid switch.LosyAlpha=1: switch.LosyAlpha: unknown attribute (did you mean switch.LossyAlpha?)"},
		{grid, specfile.Overrides{Grids: []string{"switch.LossyAlpha=0.5,,1"}}, "--grid switch.LossyAlpha=0.5,,1: switch.LossyAlpha: an empty value"},
		{grid, specfile.Overrides{Grids: []string{"switch.LossyAlpha"}}, `--grid "switch.LossyAlpha": want path=value,value,...`},
		{grid, specfile.Overrides{Grids: []string{"replicates=1,2"}}, "--grid replicates=1,2: replicates is a setting of the sweep, not an attribute to sweep; give it with --set"},
		{grid, specfile.Overrides{Grids: []string{"nic.Delay=1us", "nic.Delay=2us"}}, "--grid nic.Delay=2us: nic.Delay is already swept by --grid nic.Delay=1us; give one --grid per attribute"},
		{grid, specfile.Overrides{Sets: []string{"switch.LossyAlpha=1"}, Grids: []string{"switch.LossyAlpha=0.5,2"}}, "--grid switch.LossyAlpha=0.5,2: --set switch.LossyAlpha=1 gives the same attribute one value; give one of the two"},
		{grid, specfile.Overrides{Sets: []string{"sweep.replicates=1"}}, "--set sweep.replicates=1: replicates is a key of the spec's top level, not of sweep: --set replicates=1"},
		{grid, specfile.Overrides{Sets: []string{"sweep.grid.switch.LossyAlpha=1"}}, "--set sweep.grid.switch.LossyAlpha=1: the sweep's axes are not --set keys: --grid PATH=V1,V2,..."},
		{zipSpec, specfile.Overrides{Grids: []string{"nic.HostSide.PhysicalLayer.LaneCount=4,8"}}, "--grid nic.HostSide.PhysicalLayer.LaneCount=4,8: nic.HostSide.PhysicalLayer.LaneCount has 2 values but nic.NICSide.PhysicalLayer.LaneCount (spec.yaml:7:5), zipped with it, has 3; zipped axes move together"},
		{zipSpec, specfile.Overrides{Sets: []string{"nic.HostSide.PhysicalLayer.LaneCount=4"}}, "--set nic.HostSide.PhysicalLayer.LaneCount=4: nic.HostSide.PhysicalLayer.LaneCount is zipped with other axes at spec.yaml:8:5"},
		{`name: s
duration: 200us
sweep:
  grid:
    switch.LossyAlpha: {from: 0.5, to: 2}
  sample: {n: 4}
`, specfile.Overrides{Grids: []string{"switch.LossyAlpha=1,2"}}, "spec.yaml:6:11: sweep.sample draws over ranges ({from, to}) of the grid, and --grid switch.LossyAlpha=1,2 left none"},
	} {
		_, err := planOv(t, tc.spec, tc.ov)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.ov, err, tc.want)
		}
	}
}
