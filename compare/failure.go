package compare

import (
	"fmt"
	"io"

	"github.com/rocesweep/rocesweep/selection/ci"
)

// Comparison is the result of either pairing: Result (by job_id) or PointResult (by
// params).
type Comparison interface {
	WriteText(io.Writer) error
	WriteJSON(io.Writer) error
	Failed() bool
	// FailureLine names what fails the comparison in one line: the first few moves,
	// status changes, missing metrics, jobs on one side only.
	FailureLine() string
}

// DirsBy compares two results directories, pairing their jobs by p (Dirs, DirsByParams).
func DirsBy(baseDir, newDir string, p Pairing, opts Options) (Comparison, error) {
	if p == PairByParams {
		return DirsByParams(baseDir, newDir, opts)
	}
	return Dirs(baseDir, newDir, opts)
}

// FailureLine names the first few jobs and metrics beyond tolerance.
func (r *Result) FailureLine() string {
	b := r.Beyond()
	s := fmt.Sprintf("%d values beyond tolerance", len(b))
	num := PairByJob.num
	s += firstFew(len(b), func(i int) string {
		d := b[i]
		return fmt.Sprintf(" job %s %s %s -> %s%s", d.JobID, d.Metric, num(d.Base), num(d.New), orEmpty(" ", d.Verdict))
	})
	var missing []string
	for _, m := range r.Metrics {
		if m.Missing != "" {
			missing = append(missing, fmt.Sprintf("metric %s missing in %s", m.Metric, m.Missing))
		}
	}
	return s + failureTail(PairByJob, r.Status, missing, len(r.OnlyBase)+len(r.OnlyNew))
}

// FailureLine names the first few moves of a comparison by params.
func (r *PointResult) FailureLine() string {
	b := r.MovedDeltas()
	s := fmt.Sprintf("%d values moved beyond tolerance and noise", len(b))
	num := PairByParams.num
	s += firstFew(len(b), func(i int) string {
		d := b[i]
		return fmt.Sprintf(" %s %s %s -> %s (delta %s%s)", d.Point, d.Metric,
			num(d.Base), num(d.New), ci.Interval{N: d.Pairs, Mean: d.Delta, Half: d.Half}, orEmpty(", ", d.Verdict))
	})
	var missing []string
	for _, m := range r.Metrics {
		if m.Missing != "" {
			missing = append(missing, fmt.Sprintf("metric %s missing in %s", m.Metric, m.Missing))
		}
	}
	return s + failureTail(PairByParams, r.Status, missing, len(r.OnlyBase)+len(r.OnlyNew))
}

// failureTail is the part of a failure line after the values: status changes, missing
// metrics, jobs on one side only.
func failureTail(p Pairing, status []StatusChange, missing []string, oneSided int) string {
	s := ""
	if n := len(status); n > 0 {
		job := "job "
		if p == PairByParams {
			job = "" // the point and replicate name it
		}
		s += fmt.Sprintf("; %d status changes (first: %s%s %s -> %s)", n, job, status[0].JobID, status[0].Base, status[0].New)
	}
	for _, m := range missing {
		s += "; " + m
	}
	if oneSided > 0 {
		s += fmt.Sprintf("; %d jobs on one side only", oneSided)
	}
	return s
}

// listSep is what goes before item i of a list that follows a count: ":" then ",".
// firstFew lists item(0), item(1), item(2) of n after ":" and ",", then ", ..." when
// there are more: the head of a failure line.
func firstFew(n int, item func(i int) string) string {
	s := ""
	for i := range n {
		if i == 3 {
			return s + ", ..."
		}
		s += listSep(i) + item(i)
	}
	return s
}

func listSep(i int) string {
	if i == 0 {
		return ":"
	}
	return ","
}

// orEmpty is sep + s, or "" when s is.
func orEmpty(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}
