package launch

import "testing"

func TestProcs(t *testing.T) {
	for _, c := range []struct{ p, j, runner, worker int }{
		{2, 2, 1, 1},   // -j at the processor count: one each
		{2, 1, 1, 2},   // one worker takes the machine; the runner still gets one
		{8, 2, 1, 4},   // an even split leaves the runner nothing: one
		{8, 3, 2, 2},   // the remainder goes to the runner
		{64, 64, 1, 1}, // as many workers as processors
		{1, 4, 1, 1},   // more workers than processors: never zero
		{4, 0, 1, 4},   // no -j: one worker
	} {
		r, w := Procs(c.p, c.j)
		if r != c.runner || w != c.worker {
			t.Errorf("Procs(%d, %d) = %d, %d; want %d, %d", c.p, c.j, r, w, c.runner, c.worker)
		}
	}
}
