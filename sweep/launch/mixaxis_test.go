package launch

import (
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

const mixSpec = `name: mixaxis
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
`

// A key of a mix entry is an axis like any attribute: each point's entry gets its value,
// the spec's base and the other points keep theirs (a config copied by value shares its
// mix entries), the column is workload_mix_0_senders, and a worker process rebuilds
// every job with the same id.
func TestMixEntryAxis(t *testing.T) {
	t.Parallel()
	s, err := specfile.Parse("mix.yaml", []byte(mixSpec), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, j := range p.Jobs {
		got = append(got, j.Config.Workload.Mix[0].Senders)
		if j.Config.Workload.Mix[1].Senders != 4 {
			t.Errorf("%s: mix entry 1 has %d senders, want the spec's 4", p.Label(j), j.Config.Workload.Mix[1].Senders)
		}
		if _, err := new(specCache).config(newWorkerRequest(p, j)); err != nil {
			t.Errorf("%s: %v", p.Label(j), err)
		}
	}
	if !slices.Equal(got, []int{3, 6, 3, 6}) || s.Base.Workload.Mix[0].Senders != 6 {
		t.Errorf("mix entry 0 senders by job %v (want 3, 6, 3, 6), base %d (want 6)", got, s.Base.Workload.Mix[0].Senders)
	}
	if c := p.Axes[1].Column; c != "workload_mix_0_senders" {
		t.Errorf("column %q", c)
	}
	_, err = specfile.Parse("mix.yaml", []byte(strings.Replace(mixSpec, "workload.mix.0.senders", "workload.mix.2.senders", 1)), nil)
	if err == nil || !strings.Contains(err.Error(), "mix.yaml:11:5: workload.mix.2.senders: the workload's mix has 2 entries") {
		t.Errorf("entry out of range: %v", err)
	}
}
