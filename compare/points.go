package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// PointDelta is one metric of one grid point present on both sides, compared replicate
// by replicate: replicate r of BASE against replicate r of NEW. With common random
// numbers (design.md "The engine") replicate r draws the same workload on both sides, so
// the paired differences measure the change, not the dice.
type PointDelta struct {
	Point  string  `json:"point"` // "switch.LossyAlpha=0.25 switch.StaticPoolXoffThreshold=100KB"
	Metric string  `json:"metric"`
	Pairs  int     `json:"pairs"` // replicates with a value on both sides
	Base   float64 `json:"base"`  // mean over the paired replicates
	New    float64 `json:"new"`
	Delta  float64 `json:"delta"` // mean of new - base
	Half   float64 `json:"half"`  // 95% half-width of Delta (t over Pairs-1 df); NaN with one pair
	Rel    float64 `json:"rel"`   // Delta / |Base|; 0 when Delta is 0, ±Inf when only Base is 0
	// Beyond: |Delta| > ATol + RTol×|Base|, or a value on one side only.
	Beyond bool `json:"beyond"`
	// Excludes0: the interval excludes zero (with one pair, where no interval exists:
	// Delta != 0, so the tolerance alone decides).
	Excludes0 bool `json:"interval_excludes_zero"`
	// Verdict is "better" or "worse" for a move (Moved) of a metric with a better
	// direction (Direction), else "".
	Verdict string `json:"verdict,omitempty"`
}

// Moved reports whether d is a move: beyond tolerance and beyond noise, in either
// direction (Verdict says which is better).
func (d PointDelta) Moved() bool { return d.Beyond && d.Excludes0 }

// PointSummary aggregates the deltas of one metric over the common points.
type PointSummary struct {
	Metric  string  `json:"metric"`
	Points  int     `json:"points"`
	Changed int     `json:"changed"` // Delta != 0
	Beyond  int     `json:"beyond"`  // beyond tolerance
	Moved   int     `json:"moved"`   // beyond tolerance with the interval excluding zero
	Better  int     `json:"better"`  // moves that are better (PointDelta.Verdict)
	Worse   int     `json:"worse"`
	MaxAbs  float64 `json:"max_abs_delta"`
	MaxRel  float64 `json:"max_rel_delta"`
	Missing string  `json:"missing,omitempty"` // "base" or "new"
}

// PointResult is the comparison of two jobs tables by swept parameters and replicate.
type PointResult struct {
	Axes     []string       `json:"axes"` // parameter paths
	RTol     float64        `json:"rtol"`
	ATol     float64        `json:"atol"`
	Common   int            `json:"common_points"`
	Pairs    int            `json:"common_jobs"` // (point, replicate) pairs on both sides
	Metrics  []PointSummary `json:"metrics"`
	Deltas   []PointDelta   `json:"deltas"`    // point then metric order
	OnlyBase []string       `json:"only_base"` // "point replicate=r"
	OnlyNew  []string       `json:"only_new"`
	Status   []StatusChange `json:"status_changes"` // JobID holds "point replicate=r"
	// FailOnWorse is Options.FailOnWorse.
	FailOnWorse bool `json:"fail_on_worse,omitempty"`
}

// Failed reports whether a chosen metric moved (beyond tolerance with its interval
// excluding zero; with FailOnWorse, a move that is not better) or is missing on one
// side, a job changed status, or a (point, replicate) exists on one side only.
func (r *PointResult) Failed() bool {
	for _, m := range r.Metrics {
		if m.Missing != "" || m.Moved > 0 && !r.FailOnWorse || r.FailOnWorse && m.Moved > m.Better {
			return true
		}
	}
	return len(r.Status) > 0 || len(r.OnlyBase) > 0 || len(r.OnlyNew) > 0
}

// MovedDeltas returns the deltas that fail the comparison.
func (r *PointResult) MovedDeltas() []PointDelta {
	var out []PointDelta
	for _, d := range r.Deltas {
		if d.Moved() {
			out = append(out, d)
		}
	}
	return out
}

// DirsByParams reads two results directories and compares them by point (ByParams).
// Directories that sweep different axes, or whose points all differ, are an error (the
// latter naming the pairing that would pair them).
func DirsByParams(baseDir, newDir string, opts Options) (*PointResult, error) {
	s, err := readSides(baseDir, newDir, true)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(s.axes, s.newAxes) {
		return nil, fmt.Errorf("--by params: %s sweeps %s but %s sweeps %s; points pair only over the same axes", baseDir, axesText(s.axes), newDir, axesText(s.newAxes))
	}
	r, err := ByParams(s.base, s.nw, s.axes, opts)
	if err != nil {
		return nil, err
	}
	if r.Common == 0 {
		return nil, noPairs(PairByParams, baseDir, newDir, s.base, s.nw, s.axes)
	}
	return r, nil
}

func axesText(cols []string) string {
	if len(cols) == 0 {
		return "nothing"
	}
	var p []string
	for _, c := range cols {
		p = append(p, resultsdir.PathOf(c))
	}
	return strings.Join(p, " × ")
}

// ByParams compares two jobs tables whose rows pair by the values of the axes columns
// and the replicate, not by job id: two sweeps of one grid that differ in a setting
// outside the grid (--set nic.DataRate=200Gbps) have different job ids and the same points.
func ByParams(base, nw *resultsdir.Table, axes []string, opts Options) (*PointResult, error) {
	metrics := opts.Metrics
	if metrics == nil {
		metrics = DefaultMetrics()
	}
	if err := checkMetrics(metrics, base, nw); err != nil {
		return nil, err
	}
	for _, t := range []*resultsdir.Table{base, nw} {
		for _, a := range axes {
			if t.Col(a) == nil {
				return nil, fmt.Errorf("--by params: a jobs table lacks the swept column %s", a)
			}
		}
	}
	p, _ := pair(base, nw, PairByParams, axes)
	r := &PointResult{RTol: opts.RTol, ATol: opts.ATol, Common: p.common, Pairs: p.jobs, OnlyBase: p.onlyBase, OnlyNew: p.onlyNew, Status: p.status,
		Deltas: []PointDelta{}, FailOnWorse: opts.FailOnWorse}
	for _, a := range axes {
		r.Axes = append(r.Axes, resultsdir.PathOf(a))
	}
	for _, m := range metrics {
		r.Metrics = append(r.Metrics, PointSummary{Metric: m, Missing: missing(m, base, nw)})
	}
	for _, u := range p.units {
		for k, m := range metrics {
			s := &r.Metrics[k]
			if s.Missing != "" {
				continue
			}
			d := pointDelta(u.label, m, base.Col(m), nw.Col(m), u.bRows, u.nRows, opts)
			if d.Pairs == 0 && !d.Beyond { // null on both sides: nothing to compare
				continue
			}
			s.Points++
			if d.Delta != 0 {
				s.Changed++
			}
			if d.Beyond {
				s.Beyond++
			}
			if d.Moved() {
				s.Moved++
				d.Verdict = verdict(Direction(m, opts.Objective), d.Delta)
				switch d.Verdict {
				case "better":
					s.Better++
				case "worse":
					s.Worse++
				}
			}
			if a := math.Abs(d.Delta); a > s.MaxAbs {
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

// pointDelta pairs the metric over the matched rows. A value on one side only (null on
// the other) makes the point beyond tolerance and moved.
func pointDelta(label, m string, bc, nc *resultsdir.Column, bRows, nRows []int, opts Options) PointDelta {
	d := PointDelta{Point: label, Metric: m, Half: math.NaN()}
	var bv, nv, bOnly, nOnly []float64
	oneSided := false
	for i := range bRows {
		b, n := value(bc, bRows[i]), value(nc, nRows[i])
		switch {
		case math.IsNaN(b) && math.IsNaN(n):
		case math.IsNaN(n):
			oneSided, bOnly = true, append(bOnly, b)
		case math.IsNaN(b):
			oneSided, nOnly = true, append(nOnly, n)
		default:
			bv, nv = append(bv, b), append(nv, n)
		}
	}
	d.Pairs = len(bv)
	if oneSided {
		d.Beyond, d.Excludes0 = true, true
	}
	if d.Pairs == 0 {
		// No pair: the side that has values shows their mean (a p99 that became null
		// reads "38.78 -> -"), the delta is unknown.
		d.Base, d.New, d.Delta = meanOrNaN(bOnly), meanOrNaN(nOnly), math.NaN()
		return d
	}
	iv := ci.Paired(bv, nv)
	d.Base, d.New, d.Delta, d.Half = ci.Mean(bv).Mean, ci.Mean(nv).Mean, iv.Mean, iv.Half
	if !oneSided {
		d.Beyond = math.Abs(d.Delta) > opts.ATol+opts.RTol*math.Abs(d.Base)
		if iv.Known() {
			d.Excludes0 = iv.ExcludesZero()
		} else {
			d.Excludes0 = d.Delta != 0
		}
	}
	switch {
	case d.Delta == 0:
	case d.Base == 0:
		d.Rel = math.Inf(int(math.Copysign(1, d.Delta)))
	default:
		d.Rel = d.Delta / math.Abs(d.Base)
	}
	return d
}

// meanOrNaN is the mean of v, NaN when v is empty.
func meanOrNaN(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return ci.Mean(v).Mean
}

// pointLabel names a point as users write it: "switch.LossyAlpha=0.25 switch.StaticPoolXoffThreshold=100KB"
// ("all" without axes).
func pointLabel(t *resultsdir.Table, axes []string, p *resultsdir.Point) string {
	if len(axes) == 0 {
		return "all"
	}
	var parts []string
	for _, a := range axes {
		parts = append(parts, resultsdir.PathOf(a)+"="+resultsdir.ParamText(t.Col(a), p.Rows[0]))
	}
	return strings.Join(parts, " ")
}

// WriteText prints the per-metric summary, then every point whose delta is not zero, then
// status changes and pairs on one side only.
func (r *PointResult) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "compared %d points (%d jobs paired by %s and replicate); delta = new - base per replicate, mean ± 95%% CI\n",
		r.Common, r.Pairs, strings.Join(r.Axes, ", "))
	fmt.Fprintf(w, "moved: |delta| > %g + %g*|base| and the interval excludes 0 (fails the comparison)\n\n", r.ATol, r.RTol)
	num := PairByParams.num
	var rows [][]string
	for _, m := range r.Metrics {
		if m.Missing != "" {
			rows = append(rows, missingRow(m.Metric, 6, m.Missing))
			continue
		}
		rows = append(rows, []string{m.Metric, fmt.Sprint(m.Points), fmt.Sprint(m.Changed), fmt.Sprint(m.Beyond), fmt.Sprint(m.Moved), fmt.Sprint(m.Better), fmt.Sprint(m.Worse), num(m.MaxAbs), rel(m.MaxRel)})
	}
	writeTable(w, []string{"metric", "points", "changed", "beyond tol", "moved", "better", "worse", "max |delta|", "max |rel|"}, rows)
	rows = nil
	for _, d := range r.Deltas {
		if d.Delta == 0 && !d.Beyond {
			continue
		}
		verdict := "within tolerance"
		switch {
		case d.Moved() && d.Verdict != "":
			verdict = "MOVED: " + d.Verdict
		case d.Moved():
			verdict = "MOVED"
		case d.Beyond:
			verdict = "beyond tolerance, within noise (interval includes 0)"
		}
		rows = append(rows, []string{d.Point, d.Metric, num(d.Base), num(d.New), ci.Interval{N: d.Pairs, Mean: d.Delta, Half: d.Half}.String(), rel(d.Rel), verdict})
	}
	if len(rows) > 0 {
		fmt.Fprintf(w, "\nchanged points:\n")
		writeTable(w, []string{"point", "metric", "base", "new", "delta (95% CI)", "rel", ""}, rows)
	}
	return writeTail(w, PairByParams, r.Status, r.OnlyBase, r.OnlyNew)
}

// WriteJSON prints r as one JSON object (Inf and NaN as null).
func (r *PointResult) WriteJSON(w io.Writer) error {
	type jd struct {
		PointDelta
		Base  *float64 `json:"base"`
		New   *float64 `json:"new"`
		Delta *float64 `json:"delta"`
		Half  *float64 `json:"half"`
		Rel   *float64 `json:"rel"`
		Moved bool     `json:"moved"`
	}
	ds := make([]jd, len(r.Deltas))
	for i, d := range r.Deltas {
		ds[i] = jd{PointDelta: d, Base: finite(d.Base), New: finite(d.New), Delta: finite(d.Delta), Half: finite(d.Half),
			Rel: finite(d.Rel), Moved: d.Moved()}
	}
	type alias PointResult
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		alias
		By     string `json:"by"`
		Deltas []jd   `json:"deltas"`
		Failed bool   `json:"failed"`
	}{alias(*r), "params", ds, r.Failed()})
}
