package main

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
)

// checkMetric refuses a metric that pivot cannot tabulate (not a stats.MetricNames name),
// with the error pivot gives, so that run refuses its --metric before any job runs.
func checkMetric(m string) error { return pivot(io.Discard, &sweep.Plan{}, nil, m) }

// pivot writes a compact table of metric (a stats.MetricNames name) for the jobs in
// sums: rows are the values of the plan's first axis, columns those of the second; each
// cell is the mean over replicates and any other axes. With one axis it is a list; with
// none, nothing is written.
func pivot(w io.Writer, p *sweep.Plan, sums map[*sweep.Job]*stats.Summary, metric string) error {
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

func meanOver(p *sweep.Plan) string {
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
