package launch

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Before the first job ends nothing predicts the time left: "ETA –", not a bar's "0s";
// the log line carries the jobs/s rate.
func TestProgressETA(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(Options{Progress: &b, LogEvery: time.Nanosecond}, 4)
	p.start = time.Now().Add(-2 * time.Second)
	p.running.Store(2)
	p.render(false)
	if got := b.String(); !strings.Contains(got, "0/4 jobs done, 2 running, 0 failed, 0 events/s, 0 jobs/s, ETA –\n") {
		t.Errorf("before the first job: %q", got)
	}
	b.Reset()
	p.done.Store(2)
	p.lastLog = time.Time{}
	p.render(true)
	// 2 jobs in 2 s or a little more (the clock runs on): a rate and a time left.
	if got := b.String(); !regexp.MustCompile(`2/4 jobs done, 2 running, 0 failed, 0 events/s, (0\.\d+|1) jobs/s, ETA \d+s\n$`).MatchString(got) {
		t.Errorf("after 2 jobs: %q", got)
	}
}
