// Package report turns a results directory into one self-contained HTML page
// (`rocesweep report`) that decides before it shows. From the top: the study's objective
// (manifest.json), then its decision when the caller hands one (Options.Decision: the
// selected point with its guarantee in words, what it cost against a fixed design of
// equal confidence, whether it is known feasible, the eliminated points with the round
// each left; or why nothing is selected yet and the command that goes on), else a
// headline naming the best point of the objective's metric (without an objective, the
// first main metric) with its 95% interval; the answers (per metric the best point, the
// runner-up and their paired difference, how many points are within noise of the best,
// the paired differences to its grid neighbours) and one line for the metrics with one
// value at every point; the Pareto front of drops against the lossless p99 FCT; failures;
// the effective configuration (spec plus --set, settings that differ from the built-in
// defaults); then the objective's metrics in full (a heat map over the first two axes
// with a colour bar and a scale that does not stretch a small or noisy spread, line
// charts with one line per level of the other axis and interval bars) and every other
// metric as one heat map under a folded "All metrics"; a small table of simulator
// performance; and time series of chosen jobs from the interval records. A zip group of
// axes (manifest.json's axis_zip) is one axis. Charts are drawn with gonum.org/v1/plot
// into PNGs that the page embeds as base64, so it opens without a network; WritePNGs
// writes the same images as files. Statistics come from package ci (Student t over
// replicates).
//
// The package reads through package resultsdir and knows the record columns of
// docs/records.md; it does not know how jobs were planned, only which jobs columns vary
// (manifest.json's axes, else every varying non-metric column). It never runs the
// selection procedure: the caller replays it (package selection) and passes the decision.
package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// Options choose what a report shows. The zero value means: the objective's metrics
// charted first and every other summary metric folded under "All metrics", no time
// series, 640 x 480 pixel charts.
type Options struct {
	Jobs []string // job ids whose interval records are drawn as time series
	// Metrics are the metrics charted in full (heat map and line charts), in order; nil:
	// the objective's metric and its also metrics (without an objective, the headline's
	// metric), with every other summary metric but PerfMetrics as one heat map each
	// under "All metrics".
	Metrics []string
	// Width and Height are the size of every chart in pixels; 0 means 640 x 480.
	Width, Height int
	// Effective is the configuration that ran: every setting of the spec with its --set
	// overrides applied whose value differs from the built-in default (the caller resolves
	// it: `rocesweep report` parses manifest.json's spec and sets). Nil: the page shows the
	// jobs columns shared by every job instead.
	Effective []Setting
	// Decision is the study's decision, computed by the caller by replaying the selection
	// procedure over the committed jobs (for a fixed design with 2 or more replicates,
	// with its replicates as the first stage). Nil: the page answers from the replicates
	// alone. Its Labels name the points; a label in the form the page uses
	// ("LossyAlpha=0.5, StaticPoolXoffThreshold=300KB") or that failures use
	// ("switch.LossyAlpha=0.5 switch.StaticPoolXoffThreshold=300KB") lets the page sum the
	// simulation time of exactly the jobs it used and show percentile counts.
	Decision *selection.Decision
	// Bisection is the answer of a bisection (an objective of smallest: or largest:),
	// replayed by the caller (study.BisectDir); nil for other studies. With it the page
	// opens with its answer table and charts the probes over the bisected attribute.
	Bisection *resultsdir.BisectionStatus
}

// Report is everything the page shows; its charts are drawn when the page or the PNG
// files are written (Chart.PNG).
type Report struct {
	Dir      string
	Name     string
	PlanSize int // from the manifest; 0 when it does not say
	Rows     int // jobs rows present
	OK       int // jobs with status ok
	Version  string
	Start    string
	Axes     []string // labels of the study's axes, in order (a zip group is one)
	Failures []Failure
	Shared   []Setting // non-swept jobs columns: one value for every job
	Spec     string    // the spec as given (manifest.json)
	Notes    []string  // what the reader should know about how charts were folded
	Dead     []string  // swept axes that change no output at any point (deadAxes)

	// The first screen: the question, and the decision or the best answer.
	Objective        string // the objective in words; "" for results without one
	ObjectiveDefault string // why rocesweep chose the objective, when the spec states none
	Decision         *DecisionView
	Bisection        *BisectView // a bisection's answer table (bisect.go)
	Replicates       int         // replicates per point (1 + the largest replicate number)
	Headline         string      // one sentence: the decision, or the best point of the first answer

	// The answers (answers.go).
	Answers    []Answer  // one per metric that varies: objective, also, main metrics
	Constant   []Setting // with one point: the main metrics' values
	AnswerNote string    // how the answers were chosen, caveats (one replicate, old results)
	Pareto     *Pareto   // drops vs the lossless p99 FCT
	// Uniform are the metrics with one value (or none) at every point: one line, no charts.
	Uniform []Uniform

	Effective []Setting // Options.Effective
	Sets      []string  // the --set and --grid overrides of the run (manifest.json), as flags

	Metrics []MetricCharts // Focus ones first
	Perf    []PerfRow      // simulator performance, one row per PerfMetrics column
	Series  []JobSeries
}

// Uniform is a value and the metrics that have it at every point ("null": no job had a
// value, e.g. collective metrics of a study without collectives).
type Uniform struct {
	Value   string
	Metrics []string
}

// PerfRow summarises one simulator-performance column over the ok jobs.
type PerfRow struct {
	Metric                string
	Mean, Min, Max, Total string
}

// Failure is a job whose status is not ok.
type Failure struct {
	JobID, Status, Error, Params string
}

// Setting is one column shared by all jobs.
type Setting struct{ Name, Value string }

// MetricCharts are the charts of one summary metric.
type MetricCharts struct {
	Metric string
	// Focus marks the metrics charted in full at the top (the objective's); the others
	// are under "All metrics", one heat map each.
	Focus  bool
	Count  string // the count a percentile is over, per job ("p99 of 12–40 messages†")
	Few    bool   // some p99 of this metric is over fewer than 100 messages
	Charts []*Chart
}

// Charts returns every chart of the report in page order.
func (r *Report) Charts() []*Chart {
	var out []*Chart
	for _, m := range r.Metrics {
		out = append(out, m.Charts...)
	}
	for _, s := range r.Series {
		out = append(out, s.Charts...)
	}
	return out
}

// FocusMetrics and OtherMetrics split Metrics for the page.
func (r *Report) FocusMetrics() []MetricCharts { return r.split(true) }
func (r *Report) OtherMetrics() []MetricCharts { return r.split(false) }

func (r *Report) split(focus bool) []MetricCharts {
	var out []MetricCharts
	for _, m := range r.Metrics {
		if m.Focus == focus {
			out = append(out, m)
		}
	}
	return out
}

// OtherKind names the chart each metric under "All metrics" has.
func (r *Report) OtherKind() string {
	if len(r.Axes) >= 2 && r.Bisection == nil {
		return "heat map"
	}
	return "line chart"
}

// UniformLine is the one line of Uniform: "0 at every point: drops_lossless, nic_rx_drops;
// null at every point: cct_p50_usec."
func (r *Report) UniformLine() string {
	var parts []string
	for _, u := range r.Uniform {
		parts = append(parts, u.Value+" at every point: "+strings.Join(u.Metrics, ", "))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// OptionError is a Build error of an option that names what the results lack (a
// --metric, a --job): the command line's mistake.
type OptionError struct{ Msg string }

func (e *OptionError) Error() string { return e.Msg }

func optionErrorf(format string, args ...any) error {
	return &OptionError{fmt.Sprintf(format, args...)}
}

// Build reads dir and lays out the page and its charts (Chart.PNG draws one, when the
// page is written). A missing jobs table, an unknown metric or an unknown --job id is an
// error; a missing interval table is noted on the page.
func Build(dir string, opts Options) (*Report, error) {
	if opts.Width == 0 {
		opts.Width = 640
	}
	if opts.Height == 0 {
		opts.Height = 480
	}
	if opts.Width < 100 || opts.Height < 100 {
		return nil, fmt.Errorf("chart size %dx%d: want at least 100x100 pixels", opts.Width, opts.Height)
	}
	m, jobs, err := resultsdir.ReadJobs(dir)
	if err != nil {
		return nil, err
	}
	ids, status := jobs.Col("job_id"), jobs.Col("status")
	if ids == nil || status == nil {
		return nil, fmt.Errorf("%s: jobs table lacks job_id or status", dir)
	}
	r := &Report{Dir: dir, Name: m.Name, PlanSize: m.PlanSize, Rows: jobs.Rows, Version: m.Version, Start: m.Start,
		Spec: m.Spec}
	if m.Damage != "" {
		r.Notes = append(r.Notes, "Damaged: "+resultsdir.ManifestFile+": "+m.Damage+". The spec and the question shown here are the file's as it is now.")
	}
	if damaged, err := resultsdir.Damage(dir); err == nil {
		for _, d := range damaged {
			r.Notes = append(r.Notes, "Damaged: "+resultsdir.DamageText(d)+": left out of every chart and answer; run the sweep again with --resume to run them again.")
		}
	}
	ok := make([]bool, jobs.Rows)
	groups := axisGroups(m, jobs)
	axisCols := resultsdir.Axes(m, jobs)
	inStage := firstStage(m, jobs)
	for i := 0; i < jobs.Rows; i++ {
		if status.Text(i) == string(journal.StatusOK) {
			r.OK++
			ok[i] = inStage(i)
			continue
		}
		f := Failure{JobID: ids.Str[i], Status: status.Text(i), Params: params(jobs, axisCols, i)}
		if e := jobs.Col("error"); e != nil {
			f.Error = e.Text(i)
		}
		r.Failures = append(r.Failures, f)
	}
	if stuck := jobs.Col("stuck_pause_ports"); stuck != nil && !stuck.IsString() {
		// A stuck pause (switch.md §4.6 condition 3) is not congestion: say which jobs had one.
		var bad []string
		for i := 0; i < jobs.Rows; i++ {
			if stuck.Num[i] > 0 {
				bad = append(bad, ids.Text(i))
			}
		}
		if len(bad) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%d jobs have a stuck pause (stuck_pause_ports > 0; first: %s): a switch port stayed paused for more than half the run while its pool sat at or below Xon, "+
				"because a lossless class shares its pool with a lossy one (switch.md §4.6 condition 3; rocesweep explain warns). Their pause and FCT figures measure that trap, not congestion.",
				len(bad), bad[0]))
		}
	}
	r.Shared = shared(jobs, axisCols)
	all := make([]bool, jobs.Rows)
	for i := range all {
		all[i] = true
	}
	axes := newAxes(jobs, groups, all)
	for _, a := range axes {
		r.Axes = append(r.Axes, a.Label)
	}
	okAll := make([]bool, jobs.Rows)
	for i := range okAll {
		okAll[i] = status.Text(i) == string(journal.StatusOK)
	}
	if r.Dead = deadAxes(jobs, axes, okAll); len(r.Dead) > 0 {
		r.Notes = append(r.Notes, deadNote(r.Dead))
	}
	for _, name := range opts.Metrics {
		if c := jobs.Col(name); c == nil || c.IsString() {
			return nil, optionErrorf("metric %s: not a numeric column of %s/jobs (metrics: %s)", name, dir, strings.Join(stats.MetricNames, ", "))
		}
	}
	for _, id := range opts.Jobs {
		if !slices.Contains(ids.Str, id) {
			n := min(5, len(ids.Str))
			return nil, optionErrorf("--job %s: no such job in %s/jobs (first ids: %s)", id, dir, strings.Join(ids.Str[:n], ", "))
		}
	}
	r.Effective = opts.Effective
	r.Sets = m.OverrideFlags()
	st := newStudy(jobs, ok, axes)
	r.Replicates = st.reps
	r.Perf = perfRows(jobs, ok)
	bisecting := m.Objective != nil && m.Objective.Bisect != nil
	if bisecting && r.OK > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("A bisection: its jobs are probes at values of %s the run chose, so no point is compared with another; "+
			"the charts below show every probe's value of each metric against %s, one line per condition.", m.Objective.Bisect.Attr, m.Objective.Bisect.Attr))
	} else if m.Select != nil && r.OK > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("A sequential selection: the answers and charts below compare every point over the first stage, its first %d replicates, paired replicate by replicate; "+
			"the decision above also used the later rounds of the points that stayed in contention.", m.Select.Initial))
	}
	obj := m.Objective
	if obj != nil {
		r.Objective = ObjectiveText(obj, opts.Decision)
		if obj.Default != "" {
			r.ObjectiveDefault = "Objective chosen by default: " + sentence(obj.Default) + " An objective: block in the spec asks another question."
		}
	}
	if r.OK == 0 {
		r.Notes = append(r.Notes, "No job finished ok: there is nothing to chart or answer; the failures below say why.")
	} else {
		if opts.Decision != nil {
			// The decision's figures are over the replicates it used, later rounds
			// included (pivot does the same); the answers below stay on the first stage.
			r.Decision, r.Headline = decisionView(opts.Decision, m, newStudy(jobs, okAll, axes), dir)
		}
		if opts.Bisection != nil {
			r.Bisection, r.Headline = bisectView(opts.Bisection, dir, wallSum(jobs))
		}
	}
	if r.OK > 0 && !bisecting {
		var feasible []bool
		if obj != nil && len(obj.SubjectTo) > 0 {
			if feasible, err = feasibleEverywhere(st, obj.SubjectTo); err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("The objective's constraint cannot be checked on these results (%v): the answers are over every point.", err))
				feasible = nil
			}
			if d := opts.Decision; d != nil && feasible != nil {
				// A point the decision refused over its later rounds (a pause that sticks
				// in 4% of runs, unseen in the first stage) is not acceptable here either.
				for _, e := range d.Eliminated {
					if e.Cause == selection.CauseScreened || e.Point >= len(d.Labels) {
						continue
					}
					if p := st.pointOf(d.Labels[e.Point]); p >= 0 {
						feasible[p] = false
					}
				}
			}
		}
		r.answer(st, obj, feasible, opts.Decision == nil)
		if m.Select != nil && r.Decision != nil {
			// The answers compare the first stage; the decision used more replicates of the
			// points that stayed: say so where the two could be read side by side.
			r.AnswerNote = fmt.Sprintf("Over the first stage: %s per point (the decision above used up to %s for the points that stayed in contention). ",
				Plural(st.reps, "replicate"), Plural(maxUsed(opts.Decision), "replicate")) + r.AnswerNote
			for i := range r.Answers {
				a := &r.Answers[i]
				if obj != nil && a.Metric == obj.Metric && r.Decision.Selected != "" && a.Best != r.Decision.Selected {
					a.Among = strings.TrimPrefix(a.Among+"; ", "; ") + "over the first stage only: the decision, over its later rounds too, selects " + r.Decision.Selected
				}
			}
		}
		if st.reps > 1 && deterministic(st) {
			r.Notes = append(r.Notes, fmt.Sprintf("Replicates agree exactly: every metric has the same value in all %d replicates of every point, so every interval is ± 0. "+
				"The study is deterministic; one replicate would do.", st.reps))
		}
	}
	switch {
	case len(axes) == 0:
		r.Notes = append(r.Notes, "No swept axis: nothing to chart over; see the jobs table for the values.")
	case len(axes) > 2 && !bisecting:
		var over []string
		for _, a := range axes[2:] {
			over = append(over, a.Label)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%d swept axes: heatmaps are over %s × %s, each cell the mean over %s (per replicate, then over the replicates).",
			len(axes), axes[0].Label, axes[1].Label, strings.Join(over, ", ")))
	}
	if r.OK > 0 && r.OK < jobs.Rows {
		r.Notes = append(r.Notes, fmt.Sprintf("Charts and answers use the %d ok jobs; %d jobs that did not finish ok are left out (grey cells: no ok job).", r.OK, jobs.Rows-r.OK))
	}
	if r.OK > 0 {
		if err := r.chart(jobs, ok, axes, st, obj, opts); err != nil {
			return nil, err
		}
	}
	for _, id := range opts.Jobs {
		js, err := jobSeries(dir, id, params(jobs, axisCols, slices.Index(ids.Str, id)), opts)
		if err != nil {
			return nil, err
		}
		r.Series = append(r.Series, *js)
	}
	return r, nil
}

// chart draws the metrics: the focus metrics (Options.Metrics, else the objective's metric
// and its also metrics, else the headline's) in full, a heat map over the first two axes
// and a line chart over each axis; every other metric one heat map (one line chart with
// one axis) under "All metrics". A metric with one value, or none, at every point is
// listed in Uniform instead of charted.
func (r *Report) chart(jobs *resultsdir.Table, ok []bool, axes []*axis, st *study, obj *question.Objective, opts Options) error {
	var focus []string
	switch {
	case opts.Metrics != nil:
		focus = opts.Metrics
	case obj != nil:
		for _, name := range append([]string{obj.Metric}, obj.Also...) {
			if c := jobs.Col(name); c != nil && !c.IsString() && !slices.Contains(focus, name) {
				focus = append(focus, name)
			}
		}
	case len(r.Answers) > 0:
		focus = []string{r.Answers[0].Metric}
	}
	metrics := slices.Clone(focus)
	if opts.Metrics == nil {
		for _, name := range pageOrder(jobs) {
			if !slices.Contains(metrics, name) {
				metrics = append(metrics, name)
			}
		}
	}
	var okRows []int
	for r, o := range ok {
		if o {
			okRows = append(okRows, r)
		}
	}
	for _, name := range metrics {
		if len(st.points) > 1 {
			if u, same := uniformValue(st, name); same {
				k := slices.IndexFunc(r.Uniform, func(x Uniform) bool { return x.Value == u })
				if k < 0 {
					k = len(r.Uniform)
					r.Uniform = append(r.Uniform, Uniform{Value: u})
				}
				r.Uniform[k].Metrics = append(r.Uniform[k].Metrics, name)
				continue
			}
		}
		if len(axes) == 0 {
			continue
		}
		mc := MetricCharts{Metric: name, Focus: slices.Contains(focus, name)}
		if c := countOf(jobs, name, okRows); c != nil {
			mc.Count, mc.Few = strings.TrimSuffix(c.String(), "†")+" per job ("+c.Col+")", c.Few
		}
		if bisecting := obj != nil && obj.Bisect != nil; bisecting {
			// A bisection's probes: the metric against the bisected attribute (the last
			// axis), one line per level of the first condition axis; no heat map, whose
			// cells would be nearly all empty.
			x := axes[len(axes)-1]
			var by *axis
			if len(axes) >= 2 {
				by = axes[0]
			}
			c, err := lineChart(name, jobs, ok, axes, x, by, st.reps, opts.Width, opts.Height)
			if err != nil {
				return fmt.Errorf("line chart of %s over %s: %w", name, x.Label, err)
			}
			mc.Charts = append(mc.Charts, c)
			r.Metrics = append(r.Metrics, mc)
			continue
		}
		if len(axes) >= 2 {
			c, err := heatmapChart(name, newGrid(jobs, ok, axes, name, st.reps), opts.Width, opts.Height)
			if err != nil {
				return fmt.Errorf("heatmap of %s: %w", name, err)
			}
			mc.Charts = append(mc.Charts, c)
		}
		for k, a := range axes {
			if !mc.Focus && len(axes) >= 2 {
				break // under All metrics: the heat map alone
			}
			var by *axis // one line per level of the other of the first two axes
			switch {
			case len(axes) == 1:
			case k == 0:
				by = axes[1]
			default:
				by = axes[0]
			}
			c, err := lineChart(name, jobs, ok, axes, a, by, st.reps, opts.Width, opts.Height)
			if err != nil {
				return fmt.Errorf("line chart of %s over %s: %w", name, a.Label, err)
			}
			mc.Charts = append(mc.Charts, c)
		}
		r.Metrics = append(r.Metrics, mc)
	}
	return nil
}

// wallSum is the jobs' summed wall_sec: the simulation time they took (NaN without the
// column).
func wallSum(jobs *resultsdir.Table) float64 {
	c := jobs.Col("wall_sec")
	if c == nil || c.IsString() {
		return math.NaN()
	}
	sum := 0.0
	for r := range c.Num {
		if !c.Null[r] {
			sum += c.Num[r]
		}
	}
	return sum
}

// uniformValue reports whether metric name has one value at every point (the same mean
// everywhere, or no value anywhere), and that value as the page prints it ("0",
// "null").
func uniformValue(st *study, name string) (string, bool) {
	c := st.jobs.Col(name)
	if c == nil || c.IsString() {
		return "", false
	}
	ivs := st.intervals(c)
	same, first := constant(ivs)
	if !same {
		return "", false
	}
	if first.N == 0 {
		return "null", true
	}
	for _, iv := range ivs {
		if iv.N == 0 {
			return "", false // a value at some points, none at others: the heat map shows which
		}
	}
	return ci.Num(first.Mean + 0), true // + 0: no "-0"
}

// deterministic reports whether every metric of every point has the same value in all
// its replicates (and some point has two or more).
func deterministic(st *study) bool {
	seen := false
	for _, c := range st.jobs.Columns {
		if c.IsString() || slices.Contains(perfMetrics, c.Name) ||
			!(resultsdir.IsMetric(c.Name) || strings.HasSuffix(c.Name, "_lossless") || strings.HasSuffix(c.Name, "_lossy")) {
			continue
		}
		for _, p := range st.points {
			first, n := math.NaN(), 0
			for _, v := range p.Values(c) {
				if math.IsNaN(v) {
					continue
				}
				if n > 0 && v != first {
					return false
				}
				first, n = v, n+1
			}
			seen = seen || n > 1
		}
	}
	return seen
}

// firstStage reports, for a sequential selection (manifest Select), whether a jobs row is
// of its first stage (replicate < select.initial): every point has those replicates, so
// comparisons over them are paired and equal in count, whereas the later rounds ran only
// for the points still in contention. Every row is, for a fixed design.
func firstStage(m *resultsdir.Manifest, jobs *resultsdir.Table) func(row int) bool {
	rc := jobs.Col("replicate")
	if m == nil || m.Select == nil || rc == nil || rc.IsString() {
		return func(int) bool { return true }
	}
	n := float64(m.Select.Initial)
	return func(row int) bool { return !rc.Null[row] && rc.Num[row] < n }
}

// maxUsed is the most replicates the decision used at any point.
func maxUsed(d *selection.Decision) int {
	n := 0
	for _, u := range d.Used {
		n = max(n, u)
	}
	return n
}
