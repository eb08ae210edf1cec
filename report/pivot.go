package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/internal/ci"
	"github.com/rocesweep/rocesweep/internal/results"
)

// Pivot writes the closing table of `rocesweep run` for the results directory dir: metric
// over the first axis of the study (rows) and the second (columns), a zip group being one
// axis, each cell the mean over the
// replicates with its 95% confidence interval (package ci). It reads the whole directory
// (every shard, every earlier session of a resumed sweep), so the table after `--resume`
// is the table of the sweep, not of the last session. Only ok jobs count. Further axes are
// averaged per replicate first (the header says "mean over ..."). With no axis it prints
// the one point's interval; with no ok job, a line saying so. A last line names the best
// point with its paired differences to its grid neighbours (common random numbers pair
// replicate r of both).
func Pivot(w io.Writer, dir, metric string) error {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return err
	}
	jobs, err := results.ReadTable(dir, "jobs", nil)
	if err != nil {
		return err
	}
	if metric == "" {
		metric = closingMetric(jobs)
	}
	mc := jobs.Col(metric)
	if mc == nil || mc.IsString() {
		return fmt.Errorf("metric %s: not a numeric column of %s/jobs", metric, dir)
	}
	status := jobs.Col("status")
	ok := func(r int) bool { return status == nil || status.Text(r) == "ok" }
	all := make([]bool, jobs.Rows)
	for r := range all {
		all[r] = ok(r)
	}
	axes := newAxes(jobs, axisGroups(m, jobs), all)
	reps := replicates(jobs, all)
	head := fmt.Sprintf("%s: mean ± 95%% CI over %d replicates", metric, reps)
	if reps == 1 {
		head = fmt.Sprintf("%s: one replicate, no interval", metric)
	}
	if len(axes) > 2 {
		var over []string
		for _, a := range axes[2:] {
			over = append(over, a.Label)
		}
		head += " (mean over " + strings.Join(over, ", ") + " per replicate)"
	}
	fmt.Fprintln(w, head+":")
	if !slices.Contains(all, true) {
		_, err := fmt.Fprintln(w, "  no ok job")
		return err
	}
	cells := cellIntervals(jobs, all, axes, mc, reps)
	var table [][]string
	switch len(axes) {
	case 0:
		table = [][]string{{"all jobs", cells[[2]int{0, 0}].String()}}
	case 1:
		table = [][]string{{axes[0].Label, metric}}
		for i, l := range axes[0].Labels {
			table = append(table, []string{l, cells[[2]int{i, 0}].String()})
		}
	default:
		table = [][]string{append([]string{axes[0].Label + ` \ ` + axes[1].Label}, axes[1].Labels...)}
		for i, l := range axes[0].Labels {
			line := []string{l}
			for j := range axes[1].Labels {
				line = append(line, cells[[2]int{i, j}].String())
			}
			table = append(table, line)
		}
	}
	widths := make([]int, len(table[0]))
	for _, line := range table {
		for i, s := range line {
			widths[i] = max(widths[i], len([]rune(s)))
		}
	}
	for _, line := range table {
		var b strings.Builder
		for i, s := range line {
			pad := strings.Repeat(" ", widths[i]-len([]rune(s)))
			if i == 0 {
				b.WriteString("  " + s + pad)
			} else {
				b.WriteString("  " + pad + s)
			}
		}
		if _, err := fmt.Fprintln(w, b.String()); err != nil {
			return err
		}
	}
	return bestLine(w, jobs, all, axes, metric)
}

// bestLine prints the best grid point of metric (lower is better, except the main
// metrics that say otherwise) and its paired differences to its neighbours, when there
// are several points and replicates to pair.
func bestLine(w io.Writer, jobs *results.Table, ok []bool, axes []*axis, metric string) error {
	setShort(axes)
	st := newStudy(jobs, ok, axes)
	if len(st.points) < 2 || st.reps < 2 {
		return nil
	}
	lower := true
	for _, m := range mainMetrics {
		if m.Name == metric {
			lower = m.Lower
		}
	}
	a := st.answer(metric, lower)
	if a == nil {
		return nil
	}
	line := fmt.Sprintf("  %s: %s, %s", map[bool]string{true: "lowest", false: "highest"}[lower], a.Best, a.Value)
	if a.Equal > 0 {
		line += fmt.Sprintf(" (as are %d other points)", a.Equal)
	}
	var nb []string
	for _, n := range a.Neighbours {
		nb = append(nb, n.Change+": "+n.Delta)
	}
	if len(nb) > 0 {
		line += "; neighbour − best, paired: " + strings.Join(nb, "; ")
	}
	_, err := fmt.Fprintln(w, line)
	return err
}

// cellOf returns the levels of row r on the first two axes (0 for a missing axis).
func cellOf(axes []*axis, r int) ([2]int, bool) {
	var k [2]int
	for i := 0; i < min(2, len(axes)); i++ {
		if k[i] = axes[i].level(r); k[i] < 0 {
			return k, false
		}
	}
	return k, true
}

// cellIntervals returns, per (level of axis 0, level of axis 1), the interval over
// replicates of the metric, where each replicate's value is its mean over the further
// axes (missing axes count as level 0).
func cellIntervals(jobs *results.Table, use []bool, axes []*axis, mc *results.Column, reps int) map[[2]int]ci.Interval {
	type acc struct{ sum, n []float64 }
	cells := map[[2]int]*acc{}
	rc := jobs.Col("replicate")
	for r := 0; r < jobs.Rows; r++ {
		if !use[r] || mc.Null[r] || math.IsNaN(mc.Num[r]) {
			continue
		}
		k, ok := cellOf(axes, r)
		if !ok {
			continue
		}
		rep := 0
		if rc != nil && !rc.IsString() && !rc.Null[r] {
			rep = int(rc.Num[r])
		}
		a := cells[k]
		if a == nil {
			a = &acc{sum: make([]float64, reps), n: make([]float64, reps)}
			cells[k] = a
		}
		a.sum[rep] += mc.Num[r]
		a.n[rep]++
	}
	out := map[[2]int]ci.Interval{}
	for k, a := range cells {
		xs := make([]float64, reps)
		for i := range xs {
			xs[i] = math.NaN()
			if a.n[i] > 0 {
				xs[i] = a.sum[i] / a.n[i]
			}
		}
		out[k] = ci.Mean(xs)
	}
	return out
}

// closingMetric is the metric of run's closing table when --metric is not given: the
// first of the report's main metrics that the ok jobs hold and that varies between
// them (the answer the study asks for first, as on the report's first screen), else
// drops_total.
func closingMetric(jobs *results.Table) string {
	status := jobs.Col("status")
	for _, m := range mainMetrics {
		c := jobs.Col(m.Name)
		if c == nil || c.IsString() {
			continue
		}
		seen := map[float64]bool{}
		for r := range c.Num {
			if !c.Null[r] && !math.IsNaN(c.Num[r]) && (status == nil || status.Text(r) == "ok") {
				seen[c.Num[r]] = true
			}
		}
		if len(seen) > 1 {
			return m.Name
		}
	}
	return "drops_total"
}
