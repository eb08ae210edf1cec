package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// Pivot writes the closing table of `rocesweep run` for the results directory dir: metric
// (by default the objective's; without one, the first main metric that varies) over the
// first axis of the study (rows) and the second (columns), a zip group being one axis,
// each cell the mean over the replicates with its 95% confidence interval (package ci).
// It reads the whole directory (every shard, every earlier session of a resumed sweep),
// so the table after `--resume` is the table of the sweep, not of the last session. Only
// ok jobs count. Further axes are averaged per replicate first (the header says "mean
// over ..."). With no axis it prints the one point's interval; with no ok job, a line
// saying so. A p99 over fewer than 100 messages is marked † with a footnote. The last line
// is the decision when dec is given (the selected point with its guarantee, or why
// nothing is selected and what to run next); else the best point (lowest, or highest
// where the objective's goal or the metric says so) with its paired differences to its
// grid neighbours (common random numbers pair replicate r of both).
func Pivot(w io.Writer, dir, metric string, dec *selection.Decision) error {
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		return err
	}
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		return err
	}
	if metric == "" {
		metric = closingMetric(jobs, m.Objective)
	}
	mc := jobs.Col(metric)
	if mc == nil || mc.IsString() {
		return fmt.Errorf("metric %s: not a numeric column of %s/jobs", metric, dir)
	}
	status := jobs.Col("status")
	inStage := firstStage(m, jobs) // a selection's table compares its first stage
	ok := func(r int) bool { return (status == nil || status.Text(r) == string(journal.StatusOK)) && inStage(r) }
	all := make([]bool, jobs.Rows)
	for r := range all {
		all[r] = ok(r)
	}
	axes := newAxes(jobs, axisGroups(m, jobs), all)
	reps := replicates(jobs, all)
	name := metric
	if u := unitOf(metric); u != "" {
		name += " (" + u + ")"
	}
	head := fmt.Sprintf("%s: mean ± 95%% CI over %d replicates", name, reps)
	if fewest, short := repsPerPoint(jobs, all, axes, reps); short > 0 {
		// A partial run: say so rather than claim every point's full count.
		head = fmt.Sprintf("%s: mean ± 95%% CI over %d to %d replicates (%s fewer than %d: a job failed or did not run)", name, fewest, reps, map[bool]string{true: "1 point has", false: fmt.Sprint(short) + " points have"}[short == 1], reps)
	} else if reps == 1 {
		head = fmt.Sprintf("%s; %s", name, oneRep)
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
	few := cellFew(jobs, all, axes, metric)
	cell := func(i, j int) string {
		s := cells[[2]int{i, j}].String()
		if few[[2]int{i, j}] {
			s += "†"
		}
		return s
	}
	var table [][]string
	switch len(axes) {
	case 0:
		table = [][]string{{"all jobs", cell(0, 0)}}
	case 1:
		table = [][]string{{axes[0].Label, metric}}
		for i, l := range axes[0].Labels {
			table = append(table, []string{l, cell(i, 0)})
		}
	default:
		table = [][]string{append([]string{axes[0].Label + ` \ ` + axes[1].Label}, axes[1].Labels...)}
		for i, l := range axes[0].Labels {
			line := []string{l}
			for j := range axes[1].Labels {
				line = append(line, cell(i, j))
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
	var okRows []int
	for r, o := range all {
		if o {
			okRows = append(okRows, r)
		}
	}
	if c := countOf(jobs, metric, okRows); c != nil {
		line := "  " + strings.TrimSuffix(c.String(), "†") + " per job (" + c.Col + ")"
		if c.Few {
			line += "; " + fewNote
		}
		fmt.Fprintln(w, line)
		nulls := 0
		for _, r := range okRows {
			if mc.Null[r] {
				nulls++
			}
		}
		if nulls > 0 && strings.Contains(metric, "_p") {
			fmt.Fprintf(w, "  - : not reached in %s: the percentile falls among messages unfinished at the job's end (records.md RC-24); completion fractions are in completed_frac_*\n", Plural(nulls, "job"))
		}
	}
	okAll := make([]bool, jobs.Rows)
	for r := range okAll {
		okAll[r] = status == nil || status.Text(r) == string(journal.StatusOK)
	}
	if dead := deadAxes(jobs, axes, okAll); len(dead) > 0 {
		fmt.Fprintln(w, "  "+lowerFirst(strings.TrimSuffix(deadNote(dead), ".")))
	}
	if dec != nil {
		st := newStudy(jobs, all, axes)
		v, headline := decisionView(dec, m, st, dir)
		_, err := fmt.Fprintln(w, "  "+pivotLine(v, headline))
		return err
	}
	lower := lowerBetter(metric)
	if o := m.Objective; o != nil && o.Metric == metric {
		lower = o.Goal != question.Max
	}
	return bestLine(w, jobs, all, axes, metric, lower)
}

// bestLine prints the best grid point of metric and its paired differences to its
// neighbours, when there are several points and replicates to pair.
func bestLine(w io.Writer, jobs *resultsdir.Table, ok []bool, axes []*axis, metric string, lower bool) error {
	st := newStudy(jobs, ok, axes)
	if len(st.points) < 2 {
		return nil
	}
	a := st.answer(metric, lower, nil)
	if a == nil {
		return nil
	}
	line := fmt.Sprintf("  %s: %s, %s", map[bool]string{true: "lowest", false: "highest"}[lower], a.Best, a.Value)
	if st.reps < 2 {
		// One replicate: the best value is all there is; no interval, no paired difference.
		line += " (" + oneRep + ")"
		if a.Equal > 0 {
			line += fmt.Sprintf(", as are %d other points", a.Equal)
		}
		_, err := fmt.Fprintln(w, line)
		return err
	}
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

// cellFew returns the cells of the first two axes where metric is a p99 over fewer than
// 100 messages in some ok job.
func cellFew(jobs *resultsdir.Table, use []bool, axes []*axis, metric string) map[[2]int]bool {
	out := map[[2]int]bool{}
	if !strings.Contains(metric, "_p99") {
		return out
	}
	c := jobs.Col(countColumn[metric])
	if c == nil || c.IsString() {
		return out
	}
	for r := 0; r < jobs.Rows; r++ {
		if !use[r] || c.Null[r] || c.Num[r] >= fewP99 {
			continue
		}
		if k, ok := cellOf(axes, r); ok {
			out[k] = true
		}
	}
	return out
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

// repsPerPoint returns the fewest replicates any point has among the use rows and how
// many points have fewer than reps (0 when every point has them all).
func repsPerPoint(jobs *resultsdir.Table, use []bool, axes []*axis, reps int) (fewest, short int) {
	count := map[string]int{}
	for r := 0; r < jobs.Rows; r++ {
		if !use[r] {
			continue
		}
		var key strings.Builder
		for _, a := range axes {
			key.WriteString(a.key(r))
			key.WriteByte(0)
		}
		count[key.String()]++
	}
	fewest = reps
	for _, n := range count {
		fewest = min(fewest, n)
		if n < reps {
			short++
		}
	}
	return fewest, short
}

// cellIntervals returns, per (level of axis 0, level of axis 1), the interval over
// replicates of the metric, where each replicate's value is its mean over the further
// axes (missing axes count as level 0).
func cellIntervals(jobs *resultsdir.Table, use []bool, axes []*axis, mc *resultsdir.Column, reps int) map[[2]int]ci.Interval {
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
// objective's metric when the results state one and hold it; else the first of the
// report's main metrics that the ok jobs hold and that varies between them (the answer
// the study asks for first, as on the report's first screen), else drops_total.
func closingMetric(jobs *resultsdir.Table, obj *question.Objective) string {
	if obj != nil {
		if c := jobs.Col(obj.Metric); c != nil && !c.IsString() {
			return obj.Metric
		}
	}
	status := jobs.Col("status")
	for _, m := range mainMetrics {
		c := jobs.Col(m.Name)
		if c == nil || c.IsString() {
			continue
		}
		seen := map[float64]bool{}
		for r := range c.Num {
			if !c.Null[r] && !math.IsNaN(c.Num[r]) && (status == nil || status.Text(r) == string(journal.StatusOK)) {
				seen[c.Num[r]] = true
			}
		}
		if len(seen) > 1 {
			return m.Name
		}
	}
	return "drops_total"
}
