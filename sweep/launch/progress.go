package launch

import (
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress reports a running sweep: on a terminal a live bar (jobs done/total, running,
// failed, simulated events/s, jobs/s, ETA), otherwise a log line every Options.LogEvery.
type progress struct {
	w        io.Writer
	total    int
	start    time.Time
	every    time.Duration
	bar      *progressbar.ProgressBar
	running  atomic.Int64
	done     atomic.Int64
	failed   atomic.Int64
	events   atomic.Int64
	mu       sync.Mutex
	lastLog  time.Time
	lastDone int64
}

func newProgress(o Options, total int) *progress {
	p := &progress{w: o.Progress, total: total, start: time.Now(), every: o.LogEvery}
	p.lastLog = p.start
	if p.w != nil && o.TTY && total > 0 {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription("jobs"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(false), // status() says "ETA –" until a job ends
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(p.w) }),
		)
	}
	return p
}

func (p *progress) status() string {
	el := time.Since(p.start).Seconds()
	evs, jps := 0.0, 0.0
	if el > 0 {
		evs = float64(p.events.Load()) / el
		jps = float64(p.done.Load()) / el
	}
	return fmt.Sprintf("%d running, %d failed, %s events/s, %.3g jobs/s, ETA %s", p.running.Load(), p.failed.Load(), si(evs), jps, p.eta())
}

// eta is the time left at the rate of the jobs done so far; "–" until the first job ends
// (a bar's own prediction said 0s then).
func (p *progress) eta() string {
	done := p.done.Load()
	if done == 0 {
		return "–"
	}
	el := time.Since(p.start)
	left := time.Duration(float64(el) / float64(done) * float64(int64(p.total)-done))
	return left.Round(time.Second).String()
}

// render updates the bar; without a TTY it logs when LogEvery has passed. jobDone says a
// job just finished.
func (p *progress) render(jobDone bool) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	done := p.done.Load()
	if p.bar != nil {
		p.bar.Describe("jobs (" + p.status() + ")")
		if add := done - p.lastDone; add > 0 {
			p.bar.Add(int(add))
			p.lastDone = done
		}
		return
	}
	if time.Since(p.lastLog) < p.every {
		return
	}
	p.lastLog = time.Now()
	fmt.Fprintf(p.w, "rocesweep: %d/%d jobs done, %s\n", done, p.total, p.status())
}

func (p *progress) finish() {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		if add := p.done.Load() - p.lastDone; add > 0 {
			p.bar.Add(int(add))
		}
		p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}

// si formats x with a k/M/G suffix: 1.2M.
func si(x float64) string {
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 1, 64) + "G"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 1, 64) + "M"
	case x >= 1e3:
		return strconv.FormatFloat(x/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}

// quietWriter passes writes on until the first one fails, then drops them: a closed
// stdout or stderr (`run ... | head -1`, a closed terminal) silences the progress, never
// the sweep.
type quietWriter struct {
	mu     sync.Mutex
	w      io.Writer
	failed bool
}

func (q *quietWriter) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.failed {
		if _, err := q.w.Write(p); err != nil {
			q.failed = true
		}
	}
	return len(p), nil
}
