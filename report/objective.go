package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// lowerBetter reports the direction of metric m when no objective states it: lower,
// unless more of it is better (stats.Better).
func lowerBetter(m string) bool { return stats.Better(m) != 1 }

// unitOf is the unit of a jobs metric (stats.Unit).
func unitOf(m string) string { return stats.Unit(m) }

// amount formats a value of metric m with its unit: "5 µs", "1.2 MB", "3" (a count).
func amount(m string, v float64) string {
	u := unitOf(m)
	switch {
	case u == "B" && math.Abs(v) >= 1e6:
		return ci.Num(v/1e6) + " MB"
	case u == "B" && math.Abs(v) >= 1e3:
		return ci.Num(v/1e3) + " KB"
	case u == "":
		return ci.Num(v)
	}
	return ci.Num(v) + " " + u
}

// withUnit appends metric m's unit to a formatted value or interval ("102.5 ± 0.3 µs");
// bytes stay in bytes there, as the interval's digits are.
func withUnit(m, s string) string {
	if u := unitOf(m); u != "" && s != "-" {
		return s + " " + u
	}
	return s
}

// describe names a metric in words for the headline; a metric it lacks is named by its
// column.
var describe = map[string]string{
	"fct_p99_usec_lossless": "p99 FCT of the lossless traffic",
	"slowdown_p99_lossless": "p99 slowdown of the lossless traffic",
	"drops_lossless":        "drops of lossless packets",
	"fct_p99_usec_lossy":    "p99 FCT of the lossy traffic",
	"slowdown_p99_lossy":    "p99 slowdown of the lossy traffic",
	"drops_lossy":           "drops of lossy packets",
	"drops_total":           "drops of packets of every class",
	"goodput_gbps":          "goodput",
	"pfc_paused_usec":       "PFC pause time",
	"pfc_pause_tx":          "PFC pause frames sent",
	"fct_p99_usec":          "p99 FCT of all messages, every class mixed",
	"fct_p50_usec":          "median FCT of all messages",
	"cct_p50_usec":          "median collective completion time",
	"cct_max_usec":          "largest collective completion time",
	"busbw_gbps":            "bus bandwidth of the collective",
}

// describeMetric is describe[m], else the column name.
func describeMetric(m string) string {
	if d, ok := describe[m]; ok {
		return d
	}
	return m
}

// describeUnit is describeMetric with the unit in parentheses: "p99 FCT of the lossless
// traffic (µs)".
func describeUnit(m string) string {
	if u := unitOf(m); u != "" {
		return describeMetric(m) + " (" + u + ")"
	}
	return describeMetric(m)
}

// countColumn is the count a percentile metric is taken over: the messages (or
// collective iterations) that completed in the job. A p99 over fewer than 100 is the
// largest one or few completions, not a tail.
// A message percentile is over every message started (records.md RC-24: an unfinished
// one counts as not completed, never as absent), so its count is the started messages.
var countColumn = map[string]string{
	"fct_p50_usec":               "msgs_started",
	"fct_p99_usec":               "msgs_started",
	"host_fct_p50_usec":          "msgs_started",
	"host_fct_p99_usec":          "msgs_started",
	"fct_p99_usec_lossless":      "msgs_started_lossless",
	"host_fct_p99_usec_lossless": "msgs_started_lossless",
	"slowdown_p99_lossless":      "msgs_started_lossless",
	"fct_p99_usec_lossy":         "msgs_started_lossy",
	"host_fct_p99_usec_lossy":    "msgs_started_lossy",
	"slowdown_p99_lossy":         "msgs_started_lossy",
	"cct_p50_usec":               "cct_iterations",
}

// fewP99 is the count below which a p99 is marked with a dagger.
const fewP99 = 100

// fewNote is the footnote of the dagger.
const fewNote = "† p99 of fewer than 100 messages: the largest few completions, not a tail."

// count is the count behind a percentile at one point: over the point's ok jobs.
type count struct {
	Col      string // the count column
	What     string // "p99" or "median"
	Noun     string // "messages" or "iterations"
	Min, Max float64
	Few      bool // a p99 over fewer than fewP99 in some job
}

// String is "p99 of 15 messages†", "p99 of 12–40 messages", "median of 8 iterations".
func (c *count) String() string {
	if c == nil {
		return ""
	}
	n := ci.Num(c.Min)
	if c.Max != c.Min {
		n += "–" + ci.Num(c.Max)
	}
	s := c.What + " of " + n + " " + c.Noun
	if c.Few {
		s += "†"
	}
	return s
}

// countOf returns the count behind metric m over the rows, or nil when m is not a
// percentile or the results lack its count column (results written before it).
func countOf(jobs *resultsdir.Table, m string, rows []int) *count {
	col, ok := countColumn[m]
	if !ok {
		return nil
	}
	c := jobs.Col(col)
	if c == nil || c.IsString() {
		return nil
	}
	out := &count{Col: col, What: "median", Noun: "messages", Min: math.Inf(1), Max: math.Inf(-1)}
	if strings.Contains(m, "_p99") {
		out.What = "p99"
	}
	if col == "cct_iterations" {
		out.Noun = "iterations"
	}
	for _, r := range rows {
		if c.Null[r] || math.IsNaN(c.Num[r]) {
			continue
		}
		out.Min, out.Max = math.Min(out.Min, c.Num[r]), math.Max(out.Max, c.Num[r])
	}
	if math.IsInf(out.Min, 0) {
		return nil
	}
	out.Few = out.What == "p99" && out.Min < fewP99
	return out
}

// ObjectiveText states the study's question in words (dec, when not nil, resolves a
// percent indifference): "lowest fct_p99_usec_lossless (p99
// FCT of the lossless traffic), subject to drops_lossless == 0; indifference 5 µs".
func ObjectiveText(o *question.Objective, dec *selection.Decision) string {
	if b := o.Bisect; b != nil {
		return BisectText(o)
	}
	best := "lowest"
	if o.Goal == question.Max {
		best = "highest"
	}
	s := best + " " + o.Metric
	if d, ok := describe[o.Metric]; ok {
		s += " (" + d + ")"
	}
	if len(o.SubjectTo) > 0 {
		s += ", subject to " + strings.Join(o.SubjectTo, " and ")
	}
	switch {
	case o.Indifference > 0:
		s += "; indifference " + amount(o.Metric, o.Indifference) + " (smaller differences do not matter)"
	case o.IndifferencePercent > 0:
		s += fmt.Sprintf("; indifference %s%% of the best mean", ci.Num(o.IndifferencePercent))
		if dec != nil && dec.Delta > 0 {
			s += " (" + amount(o.Metric, dec.Delta) + ")"
		}
	}
	if t := o.Then; t != nil {
		then := "lowest"
		if t.Goal == question.Max {
			then = "highest"
		}
		s += fmt.Sprintf("; then, among the points within that indifference of the best: %s %s", then, t.Metric)
		if d, ok := describe[t.Metric]; ok {
			s += " (" + d + ")"
		}
		switch {
		case t.Indifference > 0:
			s += ", indifference " + amount(t.Metric, t.Indifference)
		case t.IndifferencePercent > 0:
			s += fmt.Sprintf(", indifference %s%% of the best mean", ci.Num(t.IndifferencePercent))
		}
	}
	if len(o.Also) > 0 {
		s += "; also shown: " + strings.Join(o.Also, ", ")
	}
	return s + combineText(o)
}

// BisectText is a bisection's question in words: "the smallest
// switch.HeadRoomPerPortLimit in [0, 1MB], to 1KB, such that drops_lossless == 0, for
// each condition".
func BisectText(o *question.Objective) string {
	b := o.Bisect
	s := fmt.Sprintf("the %s %s in [%s, %s], to %s, such that %s, for each condition", b.Direction, b.Attr, b.FromText, b.ToText, b.ResolutionText, strings.Join(o.SubjectTo, " and "))
	if len(o.Also) > 0 {
		s += "; also shown: " + strings.Join(o.Also, ", ")
	}
	return s
}

// feasibleEverywhere evaluates the objective's constraints on every ok job and returns,
// per point of st, whether its jobs meet all of them as observed (not a statistical
// finding): a plain condition in every job, a probability bound by the share of its jobs,
// a mean bound by the mean of its jobs.
func feasibleEverywhere(st *study, subjectTo []string) ([]bool, error) {
	var reqs []*constraint.Requirement
	for _, s := range subjectTo {
		e, err := constraint.ParseRequirement(s)
		if err != nil {
			return nil, fmt.Errorf("subject_to %q: %w", s, err)
		}
		reqs = append(reqs, e)
	}
	out := make([]bool, len(st.points))
	for i, p := range st.points {
		out[i] = true
		sums := make([]float64, len(reqs))
		for _, r := range p.Rows {
			env := func(name string) (any, error) {
				c := st.jobs.Col(name)
				if c == nil {
					return nil, fmt.Errorf("%s is not a jobs column", name)
				}
				if c.IsString() {
					return c.Str[r], nil
				}
				if c.Null[r] {
					return math.NaN(), nil
				}
				return c.Num[r], nil
			}
			for k, e := range reqs {
				for _, ref := range e.Refs() {
					if _, err := env(ref); err != nil {
						return nil, fmt.Errorf("subject_to %q: %w", e.Text, err)
					}
				}
				v := e.Observe(env)
				if e.Kind == constraint.EveryRun && v != 1 {
					out[i] = false
				}
				sums[k] += v // a NaN makes the share or mean NaN: not met
			}
		}
		n := float64(len(p.Rows))
		for k, e := range reqs {
			if e.Kind == constraint.EveryRun || n == 0 {
				continue
			}
			m := sums[k] / n
			var met bool
			switch e.Sense {
			case constraint.LE:
				met = m <= e.Bound
			case constraint.LT:
				met = m < e.Bound
			case constraint.GE:
				met = m >= e.Bound
			case constraint.GT:
				met = m > e.Bound
			}
			out[i] = out[i] && met
		}
	}
	return out, nil
}
