package sweep

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/stats"
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

// Pivot writes a compact table of metric (a stats.MetricNames name) for the jobs in
// sums: rows are the values of the plan's first axis, columns those of the second; each
// cell is the mean over replicates and any other axes. With one axis it is a list; with
// none, nothing is written.
func Pivot(w io.Writer, p *Plan, sums map[*Job]*stats.Summary, metric string) error {
	mi := -1
	for i, n := range stats.MetricNames {
		if n == metric {
			mi = i
		}
	}
	if mi < 0 {
		return fmt.Errorf("unknown metric %q (want one of %s)", metric, strings.Join(stats.MetricNames, ", "))
	}
	if len(p.Axes) == 0 || len(sums) == 0 {
		return nil
	}
	type cell struct {
		sum float64
		n   int
	}
	cells := map[[2]string]*cell{}
	var rows, cols []string
	seenR, seenC := map[string]bool{}, map[string]bool{}
	// Axis values in plan order, so rows and columns follow the spec.
	for _, j := range p.Jobs {
		r, c := j.Values[0].Text, ""
		if len(p.Axes) > 1 {
			c = j.Values[1].Text
		}
		if !seenR[r] {
			seenR[r] = true
			rows = append(rows, r)
		}
		if !seenC[c] {
			seenC[c] = true
			cols = append(cols, c)
		}
		if s, ok := sums[j]; ok {
			k := [2]string{r, c}
			if cells[k] == nil {
				cells[k] = &cell{}
			}
			cells[k].sum += s.Values()[mi]
			cells[k].n++
		}
	}
	sort.SliceStable(rows, func(a, b int) bool { return lessValue(rows[a], rows[b]) })
	sort.SliceStable(cols, func(a, b int) bool { return lessValue(cols[a], cols[b]) })
	head := p.Axes[0].Path
	if len(p.Axes) > 1 {
		head += " \\ " + p.Axes[1].Path
	}
	if over := meanOver(p); over != "" {
		fmt.Fprintf(w, "%s (mean over %s):\n", metric, over)
	} else {
		fmt.Fprintf(w, "%s:\n", metric)
	}
	table := [][]string{append([]string{head}, cols...)}
	if len(p.Axes) == 1 {
		table[0] = []string{head, metric}
	}
	for _, r := range rows {
		line := []string{r}
		for _, c := range cols {
			if x := cells[[2]string{r, c}]; x != nil {
				line = append(line, formatMetric(x.sum/float64(x.n)))
			} else {
				line = append(line, "-")
			}
		}
		table = append(table, line)
	}
	widths := make([]int, len(table[0]))
	for _, line := range table {
		for i, s := range line {
			widths[i] = max(widths[i], len(s))
		}
	}
	for _, line := range table {
		for i, s := range line {
			if i == 0 {
				fmt.Fprintf(w, "  %-*s", widths[i], s)
			} else {
				fmt.Fprintf(w, "  %*s", widths[i], s)
			}
		}
		fmt.Fprintln(w)
	}
	return nil
}

func meanOver(p *Plan) string {
	var parts []string
	if p.Spec.Replicates > 1 {
		parts = append(parts, "replicates")
	}
	for _, a := range p.Axes[min(2, len(p.Axes)):] {
		parts = append(parts, a.Path)
	}
	return strings.Join(parts, ", ")
}

// lessValue orders axis values numerically when both parse as numbers with units.
func lessValue(a, b string) bool {
	fa, ea := constraint.ParseNumber(a)
	fb, eb := constraint.ParseNumber(b)
	if ea == nil && eb == nil {
		return fa < fb
	}
	return false
}

func formatMetric(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
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
