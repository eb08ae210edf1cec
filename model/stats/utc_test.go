package stats

import (
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/sim"
)

// time_utc is the wall clock read once per report instant (records.md §1): every row of
// one instant shares it, the next instant reads the clock again. Rows look alike only
// because a job runs in well under a second.
func TestUTCPerReportInstant(t *testing.T) {
	wall := time.Date(2026, 1, 13, 19, 11, 38, 0, time.UTC)
	calls := 0
	r := NewRecorder("j", func() time.Time { calls++; return wall.Add(time.Duration(calls) * time.Second) })
	first := r.UTC(50 * sim.Microsecond)
	if again := r.UTC(50 * sim.Microsecond); again != first || calls != 1 {
		t.Errorf("same instant: %q then %q, %d clock reads; want one read, one stamp", first, again, calls)
	}
	if next := r.UTC(100 * sim.Microsecond); next != "2026-01-13T19:11:40Z" || first != "2026-01-13T19:11:39Z" {
		t.Errorf("two instants: %q, %q; want 19:11:39Z then 19:11:40Z", first, next)
	}
}
