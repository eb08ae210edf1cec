package sweep

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

const alphaXoff = `name: alpha-xoff
seed: 1
replicates: 2
duration: 200us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
switch: {LossyAlpha: 1.0, StaticPoolXoffThreshold: 700KB}
sweep:
  grid:
    switch.LossyAlpha: [0.25, 0.5, 1]
    switch.StaticPoolXoffThreshold: [400KB, 700KB]
`

func mustPlan(t *testing.T, spec string, sets ...string) *Plan {
	t.Helper()
	s, err := specfile.Parse("spec.yaml", []byte(spec), sets)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGridReplicatesIDsSeeds(t *testing.T) {
	p := mustPlan(t, alphaXoff)
	if len(p.Jobs) != 12 || p.Points != 6 {
		t.Fatalf("jobs %d points %d, want 12 and 6", len(p.Jobs), p.Points)
	}
	// Last axis fastest, replicates innermost.
	j := p.Jobs[3]
	if j.Values[0].Text != "0.25" || j.Values[1].Text != "700KB" || j.Replicate != 1 {
		t.Errorf("job 3 = %v replicate %d", j.Values, j.Replicate)
	}
	if j.Values[1].Typed != int64(700_000) || j.Config.Switch.SharedBufferManager.StaticPoolXoffThreshold != 700_000 {
		t.Errorf("typed Xoff = %v", j.Values[1].Typed)
	}
	ids, seeds := map[string]bool{}, map[uint64]bool{}
	for _, j := range p.Jobs {
		ids[j.ID] = true
		seeds[j.Seed] = true
		if j.Config.Seed != j.Seed || j.Seed>>63 != 0 {
			t.Errorf("job %d: config seed %d, seed %d", j.Index, j.Config.Seed, j.Seed)
		}
	}
	// Ids are unique per config; seeds follow the replicate only (common random numbers).
	if len(ids) != 12 || len(seeds) != 2 {
		t.Errorf("%d ids and %d seeds for 12 jobs, want 12 and 2 (one per replicate)", len(ids), len(seeds))
	}
	for _, j := range p.Jobs {
		if j.Seed != p.Jobs[j.Replicate].Seed {
			t.Errorf("job %d (replicate %d): seed %d, replicate %d of point 0 has %d", j.Index, j.Replicate, j.Seed, j.Replicate, p.Jobs[j.Replicate].Seed)
		}
	}
	// Same plan again: same ids (stable), same order.
	q := mustPlan(t, alphaXoff)
	for i := range p.Jobs {
		if p.Jobs[i].ID != q.Jobs[i].ID {
			t.Fatalf("job %d id changed between two expansions", i)
		}
	}
}

// The same point in another sweep (other name, other axes) has the same id and seed.
func TestSamePointSameIDAcrossSweeps(t *testing.T) {
	p := mustPlan(t, alphaXoff)
	other := strings.Replace(alphaXoff, "name: alpha-xoff", "name: another", 1)
	other = strings.Replace(other, "    switch.LossyAlpha: [0.25, 0.5, 1]\n", "", 1)
	other = strings.Replace(other, "LossyAlpha: 1.0", "LossyAlpha: 0.5", 1)
	q := mustPlan(t, other)
	// q's job (Xoff=700KB, replicate 0) is p's (0.5, 700KB, replicate 0).
	var pj, qj *Job
	for _, j := range p.Jobs {
		if j.Values[0].Text == "0.5" && j.Values[1].Text == "700KB" && j.Replicate == 0 {
			pj = j
		}
	}
	for _, j := range q.Jobs {
		if j.Values[0].Text == "700KB" && j.Replicate == 0 {
			qj = j
		}
	}
	if pj == nil || qj == nil || pj.ID != qj.ID || pj.Seed != qj.Seed {
		t.Fatalf("same point, different sweeps: %+v vs %+v", pj, qj)
	}
	// Another sweep seed changes seeds and ids.
	r := mustPlan(t, alphaXoff, "seed=2")
	if r.Jobs[0].ID == p.Jobs[0].ID || r.Jobs[0].Seed == p.Jobs[0].Seed {
		t.Error("--set seed=2 kept the job id and seed")
	}
}

func TestZipConstraintRangeSample(t *testing.T) {
	spec := `seed: 3
sweep:
  grid:
    switch.LossyAlpha: {from: 0.25, to: 4, steps: 5, scale: log}
  zip:
    switch.StaticPoolXoffThreshold: [200KB, 400KB, 700KB]
    switch.StaticPoolXonThreshold: [100KB, 500KB, 300KB]
  constraint: switch.StaticPoolXonThreshold < switch.StaticPoolXoffThreshold && switch.LossyAlpha <= 2
`
	p := mustPlan(t, spec)
	var alphas []string
	for _, v := range p.Axes[0].Values {
		alphas = append(alphas, v.Text)
	}
	if got := strings.Join(alphas, " "); got != "0.25 0.5 1 2 4" {
		t.Errorf("log range = %s", got)
	}
	// 5 alphas x 3 zip points; the zip point (400KB, 500KB) and alpha 4 fail.
	if len(p.Jobs) != 4*2 || p.Filtered != 15-8 {
		t.Errorf("jobs %d filtered %d, want 8 and 7", len(p.Jobs), p.Filtered)
	}
	for _, j := range p.Jobs {
		if j.Values[1].Text == "400KB" || j.Values[0].Text == "4" {
			t.Errorf("job %s passed the constraint", p.Label(j))
		}
	}

	bytesRange := `sweep:
  grid:
    switch.StaticPoolXoffThreshold: {from: 100KB, to: 1MB, steps: 4, scale: linear}
`
	p = mustPlan(t, bytesRange)
	var xs []any
	for _, v := range p.Axes[0].Values {
		xs = append(xs, v.Typed)
	}
	if want := []any{int64(100_000), int64(400_000), int64(700_000), int64(1_000_000)}; !slices.Equal(xs, want) {
		t.Errorf("bytes range = %v, want %v", xs, want)
	}

	lhs := `seed: 9
sweep:
  grid:
    switch.LossyAlpha: {from: 0, to: 1}
    switch.StaticPoolXoffThreshold: {from: 100KB, to: 1MB, scale: log}
    topology.hosts: [4, 8]
  sample: {n: 10, method: lhs, seed: 5}
`
	p = mustPlan(t, lhs)
	if len(p.Jobs) != 20 {
		t.Fatalf("lhs jobs = %d, want 10 samples x 2 hosts", len(p.Jobs))
	}
	// Each tenth of [0, 1) holds exactly one LossyAlpha sample.
	strata := map[int]int{}
	for _, j := range p.Jobs {
		if j.Values[2].Text == "4" {
			strata[int(j.Values[0].Typed.(float64)*10)]++
		}
	}
	for k := 0; k < 10; k++ {
		if strata[k] != 1 {
			t.Errorf("LHS stratum %d holds %d samples, want 1", k, strata[k])
		}
	}
	if q := mustPlan(t, lhs); q.Jobs[7].ID != p.Jobs[7].ID {
		t.Error("sampling is not reproducible from its seed")
	}
}

// Errors name the place: file:line:column, the path and, for typos, the closest name.
func TestSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       []string
	}{
		{"typo attribute in grid", "sweep:\n  grid:\n    switch.LossyAlpa: [1, 2]\n", []string{"spec.yaml:3:5", "LossyAlpa", "LossyAlpha"}},
		{"typo attribute in base", "switch: {LossyAlpa: 1}\n", []string{"spec.yaml:1", "LossyAlpa", "LossyAlpha"}},
		{"unequal zip", "sweep:\n  zip:\n    switch.StaticPoolXoffThreshold: [200KB, 400KB]\n    switch.StaticPoolXonThreshold: [100KB]\n", []string{"spec.yaml:4:5", "1 values", "2", "equal lengths"}},
		{"bad value", "sweep:\n  grid:\n    switch.StaticPoolXoffThreshold: [200KB, 4x00KB]\n", []string{"spec.yaml:3:45", "StaticPoolXoffThreshold", "4x00KB"}},
		{"unknown sweep key", "sweep:\n  gird: {}\n", []string{"spec.yaml:2:3", "sweep.gird", "did you mean grid"}},
		{"top-level key under sweep", "sweep:\n  grid: {switch.LossyAlpha: [1, 2]}\n  seed: 3\n", []string{"spec.yaml:3:3: sweep.seed: unknown key (want grid, zip, constraint, sample, conditions); `seed` is a top-level key: unindent it to column 1"}},
		{"axis under sweep without grid", "sweep:\n  switch.LossyAlpha: [1, 2]\n", []string{"spec.yaml:2:3: sweep.switch.LossyAlpha: unknown key (want grid, zip, constraint, sample, conditions); `switch.LossyAlpha` is an attribute: an axis goes under `grid:` or `zip:` (sweep: {grid: {switch.LossyAlpha: [...]}})"}},
		{"grid unindented", "sweep:\ngrid:\n  switch.LossyAlpha: [1, 2]\n", []string{"spec.yaml:2:1: grid: not a top-level key: `grid` is a key of `sweep:`; indent it under `sweep:`"}},
		{"tab in the grid", "sweep:\n  grid:\n\tswitch.LossyAlpha: [1, 2]\n", []string{"spec.yaml:3:1: a tab indents this line; YAML indents with spaces: replace the tab with spaces"}},
		{"axis deeper than its neighbour", "sweep:\n  grid:\n    switch.LossyAlpha: [1, 2]\n      switch.Mtu: [1]\n", []string{"spec.yaml:4:7: this key is indented deeper than the keys above it"}},
		{"range key", "sweep:\n  grid:\n    switch.LossyAlpha: {from: 1, to: 2, step: 3}\n", []string{"spec.yaml:3:41", "step", "did you mean steps"}},
		{"range without steps", "sweep:\n  grid:\n    switch.LossyAlpha: {from: 1, to: 2}\n", []string{"spec.yaml:3:5", "needs steps"}},
		{"constraint syntax", "sweep:\n  grid:\n    switch.LossyAlpha: [1]\n  constraint: switch.LossyAlpha <\n", []string{"spec.yaml:4:15", "ends early"}},
		{"constraint name", "sweep:\n  grid:\n    switch.LossyAlpha: [1]\n  constraint: switch.LossyAlfa < 2\n", []string{"spec.yaml:4:15", "LossyAlfa"}},
		{"replicates", "replicates: 0\n", []string{"spec.yaml:1:13", "replicates"}},
		{"swept twice", "sweep:\n  grid:\n    switch.LossyAlpha: [1]\n    switch.SharedBufferManager.LossyAlpha: [2]\n", []string{"spec.yaml:4:5", "already swept"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := specfile.Parse("spec.yaml", []byte(tc.spec), nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// An invalid grid point is found before anything runs, and named.
func TestInvalidPointNamed(t *testing.T) {
	spec := `sweep:
  grid:
    switch.HeadRoomPerPortLimit: [256KB, 20MB]
    switch.LossyAlpha: [1]
`
	p := mustPlan(t, spec)
	bad := p.Invalid()
	if len(bad) != 1 {
		t.Fatalf("invalid points = %d, want 1", len(bad))
	}
	msg := p.InvalidError(bad).Error()
	for _, w := range []string{"switch.HeadRoomPerPortLimit=20MB", "job 1", "--skip-invalid"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q does not name %q", msg, w)
		}
	}
}

func TestSetOverrides(t *testing.T) {
	p := mustPlan(t, alphaXoff, "switch.LossyAlpha=2", "replicates=1", "topology.hosts=4")
	if len(p.Axes) != 1 || len(p.Jobs) != 2 {
		t.Fatalf("axes %d jobs %d; --set of a swept path pins it", len(p.Axes), len(p.Jobs))
	}
	if p.Jobs[0].Config.Switch.SharedBufferManager.LossyAlpha != 2 || p.Jobs[0].Config.Topology.Hosts != 4 {
		t.Error("--set not applied")
	}
	_, err := specfile.Parse("spec.yaml", []byte(alphaXoff), []string{"switch.LossyAlfa=2"})
	if err == nil || !strings.Contains(err.Error(), "--set switch.LossyAlfa=2") || !strings.Contains(err.Error(), "LossyAlpha") {
		t.Errorf("err = %v", err)
	}
}

func TestShardsPartitionThePlan(t *testing.T) {
	p := mustPlan(t, alphaXoff)
	seen := map[string]int{}
	for k := 1; k <= 3; k++ {
		sh, err := ParseShard(strings.Join([]string{string(rune('0' + k)), "3"}, "/"))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range sh.Select(p.Jobs) {
			seen[j.ID]++
		}
	}
	if len(seen) != len(p.Jobs) {
		t.Errorf("shards cover %d of %d jobs", len(seen), len(p.Jobs))
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("job %s in %d shards", id, n)
		}
	}
	for _, bad := range []string{"0/3", "4/3", "1", "a/b", "1/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestConstraintEval(t *testing.T) {
	env := map[string]any{"a.x": 3.0, "a.y": int64(700_000), "a.s": "dpr", "a.b": true}
	look := func(p string) (any, error) {
		if v, ok := env[p]; ok {
			if i, ok := v.(int64); ok {
				return float64(i), nil
			}
			return v, nil
		}
		return nil, nil
	}
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"a.x < 4", true},
		{"a.y == 700KB", true},
		{"a.y > 0.5MiB && a.x * 2 >= 6", true},
		{"a.y < 500KB or not a.b", false},
		{"-a.x + 4 == 1", true},
		{"a.s == 'dpr' and (a.x > 5 || a.b)", true},
		{"500ns < 1us", true},
		{"400Gbps == 4e11", true},
		{"1e-3 < 2", true},
	} {
		c, err := specfile.ParseConstraint(tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		got, err := c.Eval(look)
		if err != nil || got != tc.want {
			t.Errorf("%s = %v, %v; want %v", tc.expr, got, err, tc.want)
		}
	}
	for _, bad := range []string{"a.x <", "(a.x", "a.x < 3 3", "5furlongs > 1", "'open"} {
		if _, err := specfile.ParseConstraint(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A tier attribute is an axis like any other: its jobs column is its path with `_`, a
// constraint reads the tier's value (the plain block's when the tier does not set it),
// and each job's tier switch runs the value.
func TestTierAxes(t *testing.T) {
	p := mustPlan(t, `duration: 100us
topology: {kind: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2, uplinks_per_spine: 1}
tiers: {rack: {switch: {TotalSharedBufferSize: 64MB}}}
sweep:
  grid:
    tiers.spine.switch.LossyAlpha: [0.5, 2]
    tiers.rack.uplink.delay: [100ns, 10us]
  constraint: "tiers.spine.switch.LossyAlpha * 1e6 < tiers.rack.switch.TotalSharedBufferSize / 32"
`)
	if got := []string{p.Axes[0].Column, p.Axes[1].Column}; got[0] != "tiers_spine_switch_LossyAlpha" || got[1] != "tiers_rack_uplink_delay" {
		t.Errorf("columns %v", got)
	}
	// 0.5e6 < 2e6 passes, 2e6 < 2e6 does not: 2 points of 4.
	if len(p.Jobs) != 2 || p.Filtered != 2 {
		t.Fatalf("%d jobs, %d filtered; want 2, 2", len(p.Jobs), p.Filtered)
	}
	for _, j := range p.Jobs {
		if a := j.Config.TierSwitch(0).SharedBufferManager.LossyAlpha; a != 0.5 || j.Values[0].Typed != 0.5 {
			t.Errorf("job %d: spine alpha %v, typed %v", j.Index, a, j.Values[0].Typed)
		}
		if j.Config.Switch.SharedBufferManager.LossyAlpha != 1 || j.Config.TierSwitch(2).SharedBufferManager.LossyAlpha != 1 {
			t.Errorf("job %d: the spine's alpha leaked into other tiers", j.Index)
		}
	}
	if _, _, ok := p.Jobs[1].Config.TierUplink(2); !ok || p.Jobs[1].Values[1].Typed != 1e-5 {
		t.Errorf("rack uplink delay axis: %v", p.Jobs[1].Values[1].Typed)
	}
}

// A swept attribute's jobs column is its short canonical name whichever alias the spec
// used, so queries on switch_LossyAlpha work for every spelling; attributes whose short
// names collide (the two ends' LaneCount) keep their full canonical paths.
func TestAxisColumnsAreCanonical(t *testing.T) {
	const spec = `duration: 100us
sweep:
  grid:
    %s: [0.5, 2]
    %s: [100KB, 300KB]
  zip:
    %s: [4, 8]
    %s: [4, 8]
`
	want := []string{"switch_LossyAlpha", "switch_StaticPoolXoffThreshold",
		"nic_HostInterface_NICSide_PhysicalLayer_LaneCount", "nic_HostInterface_HostSide_PhysicalLayer_LaneCount"}
	var ids []string
	for _, names := range [][]any{
		{"switch.LossyAlpha", "switch.StaticPoolXoffThreshold", "nic.NICSide.PhysicalLayer.LaneCount", "nic.HostSide.PhysicalLayer.LaneCount"},
		{"switch.SharedBufferManager.LossyAlpha", "switch.SharedBufferManager.StaticPoolXoffThreshold",
			"nic.HostInterface.NICSide.PhysicalLayer.LaneCount", "nic.HostInterface.HostSide.PhysicalLayer.LaneCount"},
	} {
		p := mustPlan(t, fmt.Sprintf(spec, names...))
		var got []string
		for _, a := range p.Axes {
			got = append(got, a.Column)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: columns %v, want %v", names, got, want)
		}
		var these []string
		for _, j := range p.Jobs {
			these = append(these, j.ID)
		}
		if ids != nil && !slices.Equal(ids, these) {
			t.Errorf("%v: job ids differ between spellings", names)
		}
		ids = these
	}
	for path, col := range map[string]string{"report_interval": "global_NDStatsReportInterval",
		"tiers.rack.switch.SharedBufferManager.LossyAlpha": "tiers_rack_switch_LossyAlpha",
		"workload.mix.0.message_size":                      "workload_mix_0_message_size",
		"nic.Delay":                                        "nic_Delay"} {
		if got := resultsdir.ColumnOf(path); got != col {
			t.Errorf("ColumnOf(%s) = %s, want %s", path, got, col)
		}
	}
}
