package fabric

import (
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// TestEngineLimitIsAnError: the engine's limit on pending events and timers ends the job
// with an error that names the job and what to change, not a bare panic; any other panic
// is not swallowed.
func TestEngineLimitIsAnError(t *testing.T) {
	f, err := New(job(t), Options{JobID: "job-7"})
	if err != nil {
		t.Fatal(err)
	}
	limited := func(what string) (err error) {
		defer f.recoverLimit(&err)
		panic(&sim.LimitError{What: what, At: 5 * sim.Microsecond})
	}
	for what, want := range map[string]string{"pending events": "topology.k", "timers": "3 timers"} {
		err := limited(what)
		if err == nil || !strings.Contains(err.Error(), "job job-7") || !strings.Contains(err.Error(), what) ||
			!strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want the job, %q and %q", what, err, what, want)
		}
	}
	defer func() {
		if r := recover(); r != "other" {
			t.Errorf("another panic: recovered %v, want it to go on", r)
		}
	}()
	func() (err error) {
		defer f.recoverLimit(&err)
		panic("other")
	}()
}
