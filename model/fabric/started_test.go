package fabric

import (
	"math"
	"slices"
	"testing"
)

// percentileStarted over 10 completed values 10, 20, …, 100 (records.md RC-24): the k-th
// smallest with k = ceil(p × started), NaN ("not reached") when k passes the completed.
func TestPercentileStarted(t *testing.T) {
	done := []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	for _, c := range []struct {
		started int64
		p       float64
		want    float64
	}{
		{10, 0.50, 50}, {10, 0.99, 100}, {10, 1, 100}, // all completed: the usual nearest rank
		{12, 0.50, 60},         // k = 6
		{12, 0.99, math.NaN()}, // k = ceil(11.88) = 12 > 10: among the 2 unfinished
		{12, 1, math.NaN()},    // the maximum is unfinished
		{20, 0.50, 100},        // k = 10: the last completed
		{21, 0.50, math.NaN()}, // k = 11
		{100, 0.10, 100},       // k = 10
		{5, 0.50, 50},          // fewer started than completed cannot happen; treated as 10
	} {
		got := percentileStarted(done, c.started, c.p)
		if got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("p%g over %d started, 10 completed = %v, want %v", c.p*100, c.started, got, c.want)
		}
	}
	if got := percentileStarted(nil, 3, 0.5); !math.IsNaN(got) {
		t.Errorf("p50 over 3 started, none completed = %v, want NaN", got)
	}
}

// TestUnfinishedMessagesCount: a lossy 15-to-1 incast of 256 KiB (TC 0 lossy, 8 MB
// switch buffer) drops packets; 8 messages complete within the 1 ms job and 7 wait on
// the sender's retransmission timeout (nic.RetransmitTimeout, far beyond 1 ms). Over the
// 15 started messages the p50 is the 8th smallest completion time, the largest of the 8
// completed, and the p99 and the maximum are not reached: NaN (null). Over the completed
// alone (before model 0.9.0) the p99 was the largest completed time and the p50 the 4th:
// the job that lost 7 messages read as a fast one.
func TestUnfinishedMessagesCount(t *testing.T) {
	cfg := job(t, "switch.TotalSharedBufferSize", "8MB", "switch.EnablePFC", "[0, 1, 0, 0, 0, 0, 0, 0]",
		"workload.message_size", "256KiB", "duration", "1ms")
	_, res := run(t, cfg)
	s := res.Summary
	if s.MsgsStarted != 15 || s.MsgsCompleted != 8 || s.MsgsHostCompleted != 8 || s.MsgsStartedLossy != 15 || s.MsgsCompletedLossy != 8 {
		t.Fatalf("started %d (lossy %d), completed %d (lossy %d), at host %d; want 15 (15), 8 (8), 8",
			s.MsgsStarted, s.MsgsStartedLossy, s.MsgsCompleted, s.MsgsCompletedLossy, s.MsgsHostCompleted)
	}
	if s.CompletedFracLossy != 8.0/15 || !math.IsNaN(s.CompletedFracLossless) {
		t.Errorf("completed_frac lossy %v, lossless %v; want 8/15, NaN (no lossless message started)", s.CompletedFracLossy, s.CompletedFracLossless)
	}
	var fcts, host []float64
	for _, m := range res.Rec.Messages {
		fcts, host = append(fcts, m.FctUsec), append(host, m.HostFctUsec)
	}
	slices.Sort(fcts)
	slices.Sort(host)
	if len(fcts) != 8 {
		t.Fatalf("%d messages rows, want 8", len(fcts))
	}
	// k = ceil(0.5 × 15) = 8: the 8th smallest of 15, the last completed (66.27 us).
	if s.FctP50Usec != fcts[7] || s.HostFctP50Usec != host[7] || math.Abs(fcts[7]-66.272163) > 1e-6 {
		t.Errorf("fct_p50 %v, host_fct_p50 %v; want the 8th smallest, %v (66.272163) and %v", s.FctP50Usec, s.HostFctP50Usec, fcts[7], host[7])
	}
	for _, m := range []struct {
		name string
		v    float64
	}{{"fct_p99_usec", s.FctP99Usec}, {"fct_max_usec", s.FctMaxUsec}, {"fct_p99_usec_lossy", s.FctP99UsecLossy},
		{"host_fct_p99_usec", s.HostFctP99Usec}, {"host_fct_max_usec", s.HostFctMaxUsec}, {"host_fct_p99_usec_lossy", s.HostFctP99UsecLossy},
		{"slowdown_p99_lossy", s.SlowdownP99Lossy}} {
		if !math.IsNaN(m.v) {
			t.Errorf("%s = %v with 7 of 15 messages unfinished, want NaN (not reached)", m.name, m.v)
		}
	}
	if len(res.Rec.Classes) != 1 {
		t.Fatalf("%d classes rows, want 1", len(res.Rec.Classes))
	}
	c := res.Rec.Classes[0]
	if c.MsgsPosted != 15 || c.MsgsCompleted != 8 || c.MsgsHostCompleted != 8 || c.CompletedFrac != 8.0/15 ||
		c.FctP50Usec != fcts[7] || !math.IsNaN(c.FctP99Usec) || !math.IsNaN(c.FctMaxUsec) || !math.IsNaN(c.HostFctP99Usec) {
		t.Errorf("classes row %+v; want 15 posted, 8 completed (8/15), p50 %v, p99 and max null", c, fcts[7])
	}
}

func TestPercentileStartedNothing(t *testing.T) {
	if got := percentileStarted(nil, 0, 0.5); !math.IsNaN(got) {
		t.Errorf("p50 with nothing started = %v, want NaN", got)
	}
}
