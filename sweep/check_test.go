package sweep_test

import (
	"errors"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

func TestValidJobs(t *testing.T) {
	p, err := sweep.Expand(mustSpec(t, sweeptest.GridSpec("g", 1, 3, "10us")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := p.ValidJobs(); n != len(p.Jobs) {
		t.Errorf("all valid: %d of %d", n, len(p.Jobs))
	}
	p.MarkInvalid(0, errors.New("too big"))
	if n := p.ValidJobs(); n != len(p.Jobs)-3 {
		t.Errorf("point 0 invalid: %d valid of %d, want 3 fewer", n, len(p.Jobs))
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
