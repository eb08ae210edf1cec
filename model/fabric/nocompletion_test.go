package fabric

import (
	"math"
	"testing"
)

// A job that completes no message has no FCT: the jobs percentiles and the class's
// percentiles are NaN (null in the tables), never 0, which would read as the best
// answer (results.md §2, records.md §8.1). The default incast of 15 × 1 MiB cannot finish
// a message within 1 us (1 MiB takes 21 us at 400 Gbps alone): 15 posted, 0 completed.
func TestNothingCompleted(t *testing.T) {
	_, res := run(t, job(t, "duration", "1us"))
	s := res.Summary
	if s.MsgsCompleted != 0 || s.MsgsCompletedLossless != 0 || s.MsgsCompletedLossy != 0 || s.CctIterations != 0 {
		t.Fatalf("%d messages completed in 1 us (%d lossless, %d lossy), %d collective iterations; want 0",
			s.MsgsCompleted, s.MsgsCompletedLossless, s.MsgsCompletedLossy, s.CctIterations)
	}
	for _, m := range []struct {
		name string
		v    float64
	}{{"fct_p50_usec", s.FctP50Usec}, {"fct_p99_usec", s.FctP99Usec}, {"fct_max_usec", s.FctMaxUsec},
		{"fct_p99_usec_lossless", s.FctP99UsecLossless}, {"slowdown_p99_lossless", s.SlowdownP99Lossless}} {
		if !math.IsNaN(m.v) {
			t.Errorf("%s = %v, want NaN", m.name, m.v)
		}
	}
	if len(res.Rec.Classes) != 1 {
		t.Fatalf("%d classes rows, want 1 (TC 0)", len(res.Rec.Classes))
	}
	c := res.Rec.Classes[0]
	if c.DataTC != 0 || c.MsgsPosted != 15 || c.MsgsCompleted != 0 {
		t.Errorf("class TC %d: %d posted, %d completed; want TC 0, 15, 0", c.DataTC, c.MsgsPosted, c.MsgsCompleted)
	}
	for _, v := range []float64{c.FctP50Usec, c.FctP99Usec, c.FctMaxUsec, c.SlowdownP50, c.SlowdownP99} {
		if !math.IsNaN(v) {
			t.Errorf("class percentiles %+v, want NaN", c)
			break
		}
	}
}
