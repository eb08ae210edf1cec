package sweep_test

import (
	"testing"

	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// --select overrides the spec's select: block either way; without it the block decides.
func TestChooseSelection(t *testing.T) {
	grid := sweeptest.GridSpec("g", 1, 3, "10us")
	for _, tc := range []struct {
		name        string
		spec        string
		set, on     bool
		want, block bool
	}{
		{"no block", grid, false, false, false, false},
		{"a block", grid + "select: {initial: 4}\n", false, false, true, true},
		{"--select=false", grid + "select: {initial: 4}\n", true, false, false, false},
		{"--select", grid, true, true, true, true},
	} {
		s := mustSpec(t, tc.spec)
		got, _ := s.ChooseSelection(tc.set, tc.on)
		if got != tc.want || (s.Select != nil) != tc.block {
			t.Errorf("%s: selecting %v, select block %v; want %v, %v", tc.name, got, s.Select != nil, tc.want, tc.block)
		}
	}
	s := mustSpec(t, grid)
	if _, w := s.ChooseSelection(true, true); w == "" {
		t.Errorf("--select of a spec that sets replicates: no warning that it drops them")
	}
}
