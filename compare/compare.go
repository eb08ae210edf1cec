// Package compare checks whether two results directories give the same answers: it pairs
// the rows of their `jobs` tables (Pairing: by job_id, the CI regression check of
// `rocesweep compare`, or by swept values and replicate, an A/B of a change outside the
// grid) and compares the chosen summary metrics within a tolerance, and by params beyond
// the noise of the replicates. It reads through package resultsdir and writes text, JSON or
// Go benchmark lines; it never runs anything.
package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// WallClock lists the metrics that measure the machine, not the model
// (stats.MachineMetrics); they are left out of the default metric set because they
// differ between any two runs.
var WallClock = stats.MachineMetrics

// DefaultMetrics returns every summary metric except the wall-clock ones.
func DefaultMetrics() []string {
	var out []string
	for _, m := range stats.MetricNames {
		if !slices.Contains(WallClock, m) {
			out = append(out, m)
		}
	}
	return out
}

// Options choose what is compared. The zero value compares DefaultMetrics exactly
// (RTol 0, ATol 0); the command line's default RTol is 1e-9.
type Options struct {
	Metrics []string // nil: DefaultMetrics
	// A metric moves beyond tolerance when |new - base| > ATol + RTol × |base|. A null or
	// NaN on one side only is beyond tolerance; on both sides it is equal.
	RTol, ATol float64
	// Objective is the study's question (manifest.json): a move of its metric is better
	// or worse by its goal (Direction); nil judges every metric by what it measures.
	Objective *question.Objective
	// FailOnWorse makes a comparison fail only on moves that are worse (and on status
	// changes, missing metrics and jobs on one side), not on improvements.
	FailOnWorse bool
}

// Delta is one metric of one job present on both sides.
type Delta struct {
	JobID  string  `json:"job_id"`
	Metric string  `json:"metric"`
	Base   float64 `json:"base"`
	New    float64 `json:"new"`
	Diff   float64 `json:"diff"`   // new - base
	Rel    float64 `json:"rel"`    // diff / |base|; 0 when both are 0, ±Inf when only base is 0
	Beyond bool    `json:"beyond"` // outside tolerance
	// Verdict is "better" or "worse" for a move beyond tolerance of a metric with a
	// better direction (Direction), else "".
	Verdict string `json:"verdict,omitempty"`
}

// MetricSummary aggregates the deltas of one metric over the common jobs.
type MetricSummary struct {
	Metric  string  `json:"metric"`
	Jobs    int     `json:"jobs"`
	Changed int     `json:"changed"` // diff != 0
	Beyond  int     `json:"beyond"`
	Better  int     `json:"better"` // moves beyond tolerance that are better (Delta.Verdict)
	Worse   int     `json:"worse"`
	MaxAbs  float64 `json:"max_abs_diff"`
	MaxRel  float64 `json:"max_rel_diff"`
	Missing string  `json:"missing,omitempty"` // "base" or "new" when one table lacks the column
}

// StatusChange is a job whose status differs between the two sides.
type StatusChange struct {
	JobID string `json:"job_id"`
	Base  string `json:"base"`
	New   string `json:"new"`
	Error string `json:"new_error,omitempty"`
}

// Result is the comparison of two jobs tables.
type Result struct {
	RTol     float64         `json:"rtol"`
	ATol     float64         `json:"atol"`
	Common   int             `json:"common_jobs"`
	Metrics  []MetricSummary `json:"metrics"`
	Deltas   []Delta         `json:"deltas"` // every delta of the common ok jobs, job then metric order
	OnlyBase []string        `json:"only_base"`
	OnlyNew  []string        `json:"only_new"`
	Status   []StatusChange  `json:"status_changes"`
	// FailOnWorse is Options.FailOnWorse.
	FailOnWorse bool `json:"fail_on_worse,omitempty"`
}

// Failed reports whether the two sides differ beyond tolerance: a metric moved beyond
// tolerance (with FailOnWorse: a move that is worse, or of a metric with no better
// direction) or is missing on one side, a job changed status, or a job exists on one
// side only (a different plan gives different answers too).
func (r *Result) Failed() bool {
	for _, m := range r.Metrics {
		if m.Missing != "" || m.Beyond > 0 && !r.FailOnWorse || r.FailOnWorse && m.Beyond > m.Better {
			return true
		}
	}
	return len(r.Status) > 0 || len(r.OnlyBase) > 0 || len(r.OnlyNew) > 0
}

// Beyond returns the deltas outside tolerance.
func (r *Result) Beyond() []Delta {
	var out []Delta
	for _, d := range r.Deltas {
		if d.Beyond {
			out = append(out, d)
		}
	}
	return out
}

// ModelVersions returns the model_version recorded in each directory's manifest.json
// ("" when a manifest is missing or does not say).
func ModelVersions(baseDir, newDir string) (base, nw string) {
	get := func(dir string) string {
		m, err := resultsdir.ReadManifest(dir)
		if err != nil {
			return ""
		}
		return m.ModelVersion
	}
	return get(baseDir), get(newDir)
}

// Dirs reads the jobs tables of two results directories and compares them job by job
// (Tables). When no job pairs, it is an error naming the pairing that would pair them
// (--by params when the points match).
func Dirs(baseDir, newDir string, opts Options) (*Result, error) {
	s, err := readSides(baseDir, newDir, false)
	if err != nil {
		return nil, err
	}
	r, err := Tables(s.base, s.nw, opts)
	if err != nil {
		return nil, err
	}
	if r.Common == 0 {
		return nil, noPairs(PairByJob, baseDir, newDir, s.base, s.nw, s.axes)
	}
	return r, nil
}

// sides are the two jobs tables and the swept columns of base.
type sides struct {
	base, nw *resultsdir.Table
	axes     []string
	newAxes  []string
}

// readSides reads the manifests and jobs tables of both directories. A manifest that
// cannot be read is an error only when needManifest (a comparison by params); without
// one the swept columns are found in the table (resultsdir.Axes).
func readSides(baseDir, newDir string, needManifest bool) (*sides, error) {
	var out [2]*resultsdir.Table
	var axes [2][]string
	for i, dir := range []string{baseDir, newDir} {
		m, err := resultsdir.ReadManifest(dir)
		if err != nil && needManifest {
			return nil, fmt.Errorf("%s is not a results directory: %w", dir, err)
		}
		t, err := resultsdir.ReadTable(dir, "jobs", nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		out[i], axes[i] = t, resultsdir.Axes(m, t)
	}
	return &sides{base: out[0], nw: out[1], axes: axes[0], newAxes: axes[1]}, nil
}

// Tables compares two jobs tables job by job (paired by job_id). A metric not in
// stats.MetricNames nor in either table is an error naming it and the known metrics.
func Tables(base, nw *resultsdir.Table, opts Options) (*Result, error) {
	metrics := opts.Metrics
	if metrics == nil {
		metrics = DefaultMetrics()
	}
	if err := checkMetrics(metrics, base, nw); err != nil {
		return nil, err
	}
	p, err := pair(base, nw, PairByJob, nil)
	if err != nil {
		return nil, err
	}
	r := &Result{RTol: opts.RTol, ATol: opts.ATol, Common: p.common, OnlyBase: p.onlyBase, OnlyNew: p.onlyNew, Status: p.status,
		Deltas: []Delta{}, FailOnWorse: opts.FailOnWorse}
	for _, m := range metrics {
		r.Metrics = append(r.Metrics, MetricSummary{Metric: m, Jobs: len(p.units), Missing: missing(m, base, nw)})
	}
	for _, u := range p.units {
		for k, m := range metrics {
			s := &r.Metrics[k]
			if s.Missing != "" {
				continue
			}
			d := delta(u.label, m, value(base.Col(m), u.bRows[0]), value(nw.Col(m), u.nRows[0]), opts)
			if d.Diff != 0 || math.IsNaN(d.Diff) {
				s.Changed++
			}
			if d.Beyond {
				s.Beyond++
				d.Verdict = verdict(Direction(m, opts.Objective), d.Diff)
				switch d.Verdict {
				case "better":
					s.Better++
				case "worse":
					s.Worse++
				}
			}
			if a := math.Abs(d.Diff); a > s.MaxAbs {
				s.MaxAbs = a
			}
			if a := math.Abs(d.Rel); a > s.MaxRel && !math.IsInf(a, 0) {
				s.MaxRel = a
			}
			r.Deltas = append(r.Deltas, d)
		}
	}
	return r, nil
}

// checkMetrics refuses a metric that is neither a summary metric nor a column of either
// table, naming it and the known metrics.
func checkMetrics(metrics []string, base, nw *resultsdir.Table) error {
	for _, m := range metrics {
		if !resultsdir.IsMetric(m) && base.Col(m) == nil && nw.Col(m) == nil {
			return fmt.Errorf("--metric %s: not a column of jobs (metrics: %s)", m, strings.Join(stats.MetricNames, ", "))
		}
	}
	return nil
}

// delta compares one value; NaN stands for null.
func delta(id, m string, b, n float64, opts Options) Delta {
	d := Delta{JobID: id, Metric: m, Base: b, New: n, Diff: n - b}
	switch {
	case math.IsNaN(b) && math.IsNaN(n):
		d.Diff = 0
	case math.IsNaN(b) || math.IsNaN(n):
		d.Beyond = true
	default:
		d.Beyond = math.Abs(d.Diff) > opts.ATol+opts.RTol*math.Abs(b)
	}
	switch {
	case d.Diff == 0:
	case b == 0:
		d.Rel = math.Inf(int(math.Copysign(1, d.Diff)))
	default:
		d.Rel = d.Diff / math.Abs(b)
	}
	return d
}

func value(c *resultsdir.Column, i int) float64 {
	if c.Null[i] || c.IsString() {
		return math.NaN()
	}
	return c.Num[i]
}

func index(t *resultsdir.Table) (map[string]int, error) {
	c := t.Col("job_id")
	if c == nil || !c.IsString() {
		return nil, fmt.Errorf("jobs table has no job_id string column")
	}
	m := make(map[string]int, t.Rows)
	for i, id := range c.Str {
		if j, dup := m[id]; dup {
			return nil, fmt.Errorf("job_id %s appears twice (rows %d and %d)", id, j, i)
		}
		m[id] = i
	}
	return m, nil
}

// jobIDs returns the ids of t sorted.
func jobIDs(t *resultsdir.Table) []string {
	ids := slices.Clone(t.Col("job_id").Str)
	slices.Sort(ids)
	return ids
}

func status(t *resultsdir.Table, i int) string { return text(t, "status", i) }

func text(t *resultsdir.Table, col string, i int) string {
	c := t.Col(col)
	if c == nil || c.Null[i] {
		return ""
	}
	return c.Text(i)
}

// WriteText prints a table a human reads: one line per metric, then every delta beyond
// tolerance and every change within it, then jobs on one side only and status changes.
func (r *Result) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "compared %d jobs (tolerance |new-base| <= %g + %g*|base|)\n\n", r.Common, r.ATol, r.RTol)
	num := PairByJob.num
	var rows [][]string
	for _, m := range r.Metrics {
		if m.Missing != "" {
			rows = append(rows, missingRow(m.Metric, 5, m.Missing))
			continue
		}
		rows = append(rows, []string{m.Metric, fmt.Sprint(m.Jobs), fmt.Sprint(m.Changed), fmt.Sprint(m.Beyond), fmt.Sprint(m.Better), fmt.Sprint(m.Worse), num(m.MaxAbs), rel(m.MaxRel)})
	}
	writeTable(w, []string{"metric", "jobs", "changed", "beyond", "better", "worse", "max |diff|", "max |rel|"}, rows)
	rows = nil
	for _, d := range r.Deltas {
		if d.Diff == 0 && !d.Beyond {
			continue
		}
		verdict := "within tolerance"
		if d.Beyond {
			verdict = "BEYOND tolerance"
			if d.Verdict != "" {
				verdict += ": " + d.Verdict
			}
		}
		rows = append(rows, []string{d.JobID, d.Metric, num(d.Base), num(d.New), num(d.Diff), rel(d.Rel), verdict})
	}
	if len(rows) > 0 {
		fmt.Fprintf(w, "\nchanged values:\n")
		writeTable(w, []string{"job", "metric", "base", "new", "diff", "rel", ""}, rows)
	}
	return writeTail(w, PairByJob, r.Status, r.OnlyBase, r.OnlyNew)
}

// WriteJSON prints r as one JSON object (Inf and NaN, which JSON lacks, as null).
func (r *Result) WriteJSON(w io.Writer) error {
	out := *r
	type jd struct {
		Delta
		Rel  *float64 `json:"rel"`
		Base *float64 `json:"base"`
		New  *float64 `json:"new"`
		Diff *float64 `json:"diff"`
	}
	ds := make([]jd, len(r.Deltas))
	for i, d := range r.Deltas {
		ds[i] = jd{Delta: d, Rel: finite(d.Rel), Base: finite(d.Base), New: finite(d.New), Diff: finite(d.Diff)}
	}
	type alias Result
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		alias
		Deltas []jd `json:"deltas"`
		Failed bool `json:"failed"`
	}{alias(out), ds, r.Failed()})
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// Unit returns the benchmark unit of a metric (stats.Unit in benchstat's spelling):
// usec, sec, B, Gbps; a count or a rate per second is its own unit (drops_total).
func Unit(metric string) string {
	switch u := stats.Unit(metric); u {
	case "µs":
		return "usec"
	case "s":
		return "sec"
	case "":
		return metric
	default:
		return u
	}
}

// WriteBench prints one Go benchmark line per ok job and metric of t, named by the job's
// swept parameters: "BenchmarkSweep/LossyAlpha=0.25/StaticPoolXoffThreshold=100KB/fct_p99_usec 1 82.8 usec"
// (each parameter by the last part of its path, the whole path if two would clash; the
// value in the attribute's units). The replicates of a point are repeated lines of one
// name, which benchstat summarises with its own interval; `benchstat -col /LossyAlpha`
// puts the levels of one axis side by side. Without axes the name is
// "BenchmarkSweep/<metric>". Lines go in point, replicate, then metric order.
func WriteBench(w io.Writer, t *resultsdir.Table, axes []string, metrics []string) error {
	if metrics == nil {
		metrics = DefaultMetrics()
	}
	if _, err := index(t); err != nil {
		return err
	}
	names := benchKeys(axes)
	for _, p := range resultsdir.Points(t, axes, nil) {
		prefix := "BenchmarkSweep/"
		for k, a := range axes {
			v := strings.Map(func(r rune) rune {
				if r == ' ' || r == '/' || r == '\t' {
					return -1
				}
				return r
			}, resultsdir.ParamText(t.Col(a), p.Rows[0]))
			prefix += names[k] + "=" + v + "/"
		}
		for _, i := range p.Rows {
			if s := status(t, i); s != "" && s != string(journal.StatusOK) {
				continue
			}
			for _, m := range metrics {
				c := t.Col(m)
				if c == nil || c.IsString() || c.Null[i] {
					continue
				}
				if _, err := fmt.Fprintf(w, "%s%s 1 %s %s\n", prefix, m, benchNum(c.Num[i]), Unit(m)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// benchKeys names each axis column by the last part of its parameter path
// (switch.LossyAlpha -> LossyAlpha), or by the whole path where two last parts clash.
func benchKeys(axes []string) []string {
	short := make([]string, len(axes))
	count := map[string]int{}
	for i, a := range axes {
		p := resultsdir.PathOf(a)
		short[i] = p[strings.LastIndex(p, ".")+1:]
		count[short[i]]++
	}
	for i, a := range axes {
		if count[short[i]] > 1 {
			short[i] = resultsdir.PathOf(a)
		}
	}
	return short
}

// benchNum prints v with full precision (strconv 'g', shortest round-trip).
func benchNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprint(v)
}
