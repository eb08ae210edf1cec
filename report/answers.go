package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// A study's main metrics, in the order the page answers them after the objective's, each
// with the direction that is better. The per-class metrics come first: most studies of
// this tool ask how the lossless class fares (its tail FCT, whether it ever drops) while
// lossy traffic shares the buffer, and the all-class fct_p99_usec mixes the two. A metric
// is skipped when the results lack it or it has one value at every point (the page lists
// those in one line). Results without an objective written before the per-class metrics
// existed answer with fct_p99_usec instead, and say so.
var mainMetrics = []struct {
	Name  string
	Lower bool // lower is better
}{
	{"fct_p99_usec_lossless", true},
	{"slowdown_p99_lossless", true},
	{"drops_lossless", true},
	{"fct_p99_usec_lossy", true},
	{"drops_lossy", true},
	{"goodput_gbps", false},
	{"pfc_paused_usec", true},
}

// perfMetrics measure the simulator, not the fabric: the page shows them in one small
// table at the end, never as charts.
var perfMetrics = []string{"sim_time_sec", "wall_sec", "events", "events_per_sec"}

// Answer is the best point of one metric (the objective's, an also metric or a main
// metric), with the evidence that it is best.
type Answer struct {
	Metric    string
	Better    string // "lower" or "higher"
	Best      string // the point: "LossyAlpha=0.25, StaticPoolXoffThreshold=300KB"
	Value     string // mean ± 95% CI over its replicates
	RunnerUp  string // the best point with another mean ("" when every point ties)
	RunnerVal string
	// Delta is runner-up minus best, paired replicate by replicate, with its interval.
	Delta string
	// Equal counts the other points whose mean equals the best's exactly (0 drops at
	// many points).
	Equal int
	// Tied counts the other points whose paired difference from the best has an
	// interval that includes zero: the data cannot tell them from the best.
	Tied int
	// Neighbours are the paired differences of the grid points one level away from the
	// best on one axis (neighbour minus best); a zip group is one axis.
	Neighbours []Neighbour
	// Count and RunnerCount are the counts a percentile of the best and the runner-up is
	// taken over ("p99 of 15 messages†"), "" when the metric is no percentile or the
	// results lack its count column.
	Count, RunnerCount string
	// Among says which points the answer chose from when the objective's subject_to
	// narrowed them ("" for every point).
	Among string
	point int // index into the study's points
}

// Neighbour is one point next to the best on one axis.
type Neighbour struct {
	Change string // "switch.LossyAlpha 0.25 → 0.5"
	Delta  string // neighbour minus best, paired, mean ± 95% CI
	Clear  bool   // the interval excludes zero
}

// Pareto is the set of points no other point beats on both of two lower-is-better
// metrics (by their means), ordered by the first.
type Pareto struct {
	X, Y   string // metric names
	Points []ParetoPoint
}

// ParetoPoint is one point of the front.
type ParetoPoint struct {
	Point, X, Y string
	Same        int // further points with exactly the same two means
}

// study holds what the answers need: the ok jobs grouped by point.
type study struct {
	jobs   *resultsdir.Table
	axes   []*axis
	points []*resultsdir.Point
	reps   int
}

func newStudy(jobs *resultsdir.Table, ok []bool, axes []*axis) *study {
	s := &study{jobs: jobs, axes: axes, reps: replicates(jobs, ok)}
	s.points = resultsdir.Points(jobs, columns(axes), func(r int) bool { return ok[r] })
	return s
}

// label names a point by its swept values in the attributes' units, a zip group by its
// members' values ("{NICSide,HostSide}.PhysicalLayer.LaneCount=8 / 8").
func (s *study) label(p *resultsdir.Point) string {
	if len(s.axes) == 0 {
		return "the one configuration"
	}
	var parts []string
	for _, a := range s.axes {
		parts = append(parts, a.Short+"="+a.Labels[a.level(p.Rows[0])])
	}
	return strings.Join(parts, ", ")
}

// paramsLabel names a point as params does for a job, without the replicate:
// "switch.LossyAlpha=0.5 switch.StaticPoolXoffThreshold=700KB".
func (s *study) paramsLabel(p *resultsdir.Point) string {
	var parts []string
	for _, c := range columns(s.axes) {
		parts = append(parts, pathOf(c)+"="+cellLabel(s.jobs.Col(c), p.Rows[0]))
	}
	return strings.Join(parts, " ")
}

// pointOf returns the index of the point a label names (in the form of label or of
// paramsLabel, spaces aside), or -1.
func (s *study) pointOf(label string) int {
	norm := func(x string) string { return strings.Join(strings.Fields(strings.ReplaceAll(x, ",", " ")), " ") }
	want := norm(label)
	for i, p := range s.points {
		if norm(s.label(p)) == want || norm(s.paramsLabel(p)) == want {
			return i
		}
	}
	return -1
}

// usedRows returns the jobs rows of the point a label names whose replicate is below
// used (every replicate when used < 0): the replicates a decision used there. Nil when
// the label names no point of these results.
func (s *study) usedRows(label string, used int) []int {
	p := s.pointOf(label)
	if p < 0 {
		return nil
	}
	var rows []int
	for j, r := range s.points[p].Rows {
		if used < 0 || s.points[p].Reps[j] < used {
			rows = append(rows, r)
		}
	}
	return rows
}

// intervals returns each point's interval of metric m (same order as s.points).
func (s *study) intervals(m *resultsdir.Column) []ci.Interval {
	out := make([]ci.Interval, len(s.points))
	for i, p := range s.points {
		out[i] = ci.Mean(p.Values(m))
	}
	return out
}

// constant reports whether every point has the same mean of m (or none has a value),
// and the first point's interval.
func constant(ivs []ci.Interval) (bool, ci.Interval) {
	var first ci.Interval
	for _, iv := range ivs {
		if iv.N == 0 {
			continue
		}
		if first.N == 0 {
			first = iv
		} else if iv.Mean != first.Mean {
			return false, first
		}
	}
	return true, first
}

// answer finds the best point of metric name (lower or higher better) among the points
// keep allows (nil: every point).
func (s *study) answer(name string, lower bool, keep []bool) *Answer {
	m := s.jobs.Col(name)
	ivs := s.intervals(m)
	var order []int
	for i, iv := range ivs {
		if iv.N > 0 && (keep == nil || keep[i]) {
			order = append(order, i)
		}
	}
	if len(order) == 0 {
		return nil
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if lower {
			return cmp.Compare(ivs[a].Mean, ivs[b].Mean)
		}
		return cmp.Compare(ivs[b].Mean, ivs[a].Mean)
	})
	best := s.points[order[0]]
	a := &Answer{Metric: name, Better: map[bool]string{true: "lower", false: "higher"}[lower],
		Best: s.label(best), Value: ivs[order[0]].String(), Count: countOf(s.jobs, name, best.Rows).String(),
		point: order[0]}
	bv := best.ByReplicate(m, s.reps)
	// The runner-up is the best point whose mean differs from the best's (points tying
	// it exactly are counted in Equal).
	for _, k := range order[1:] {
		if ivs[k].Mean != ivs[order[0]].Mean {
			ru := s.points[k]
			a.RunnerUp, a.RunnerVal = s.label(ru), ivs[k].String()
			a.RunnerCount = countOf(s.jobs, name, ru.Rows).String()
			a.Delta = ci.Paired(bv, ru.ByReplicate(m, s.reps)).String()
			break
		}
	}
	for _, k := range order[1:] {
		if ivs[k].Mean == ivs[order[0]].Mean {
			a.Equal++
		}
		d := ci.Paired(bv, s.points[k].ByReplicate(m, s.reps))
		if d.Known() && !d.ExcludesZero() {
			a.Tied++
		}
	}
	a.Neighbours = s.neighbours(best, m, bv)
	return a
}

// neighbours returns the paired differences of the points one level away from p on one
// axis, every other swept value the same.
func (s *study) neighbours(p *resultsdir.Point, m *resultsdir.Column, pv []float64) []Neighbour {
	var out []Neighbour
	level := func(q *resultsdir.Point, k int) int { return s.axes[k].level(q.Rows[0]) }
	for k, a := range s.axes {
		lp := level(p, k)
		for _, q := range s.points {
			lq := level(q, k)
			if lq != lp-1 && lq != lp+1 {
				continue
			}
			same := true
			for j := range s.axes {
				if j != k && level(q, j) != level(p, j) {
					same = false
					break
				}
			}
			if !same {
				continue
			}
			d := ci.Paired(pv, q.ByReplicate(m, s.reps))
			out = append(out, Neighbour{Change: fmt.Sprintf("%s %s → %s", a.Short, a.Labels[lp], a.Labels[lq]),
				Delta: d.String(), Clear: d.ExcludesZero()})
		}
	}
	return out
}

// pareto returns the front of (x, y), both lower-is-better, over the means of the points
// that keep allows (nil: every point): a point that fails the objective's constraints is
// no trade-off to offer.
func (s *study) pareto(x, y string, keep []bool) *Pareto {
	xc, yc := s.jobs.Col(x), s.jobs.Col(y)
	if xc == nil || yc == nil || xc.IsString() || yc.IsString() {
		return nil
	}
	xi, yi := s.intervals(xc), s.intervals(yc)
	var idx []int
	for i := range s.points {
		if xi[i].N > 0 && yi[i].N > 0 && (keep == nil || keep[i]) {
			idx = append(idx, i)
		}
	}
	var front []int
	for _, i := range idx {
		dominated := false
		for _, j := range idx {
			if j != i && xi[j].Mean <= xi[i].Mean && yi[j].Mean <= yi[i].Mean &&
				(xi[j].Mean < xi[i].Mean || yi[j].Mean < yi[i].Mean) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, i)
		}
	}
	if len(front) == 0 {
		return nil
	}
	slices.SortStableFunc(front, func(a, b int) int {
		return cmp.Or(cmp.Compare(xi[a].Mean, xi[b].Mean), cmp.Compare(yi[a].Mean, yi[b].Mean))
	})
	pf := &Pareto{X: x, Y: y}
	for k, i := range front {
		if k > 0 {
			if j := front[k-1]; xi[j].Mean == xi[i].Mean && yi[j].Mean == yi[i].Mean {
				pf.Points[len(pf.Points)-1].Same++ // same means: one row
				continue
			}
		}
		pf.Points = append(pf.Points, ParetoPoint{Point: s.label(s.points[i]), X: xi[i].String(), Y: yi[i].String()})
	}
	return pf
}

// candidate is a metric the answers consider, with its direction.
type candidate struct {
	Name  string
	Lower bool // lower is better
}

// candidates lists the answers' metrics in order: the objective's metric (its goal's
// direction), its also metrics, then the main metrics; without an objective an
// fct_p99_usec first when the results have no lossless FCT. The second result is what the
// page must say about that substitution.
func candidates(jobs *resultsdir.Table, obj *question.Objective) ([]candidate, string) {
	var out []candidate
	add := func(name string, lower bool) {
		if !slices.ContainsFunc(out, func(c candidate) bool { return c.Name == name }) {
			out = append(out, candidate{name, lower})
		}
	}
	if obj != nil {
		add(obj.Metric, obj.Goal != question.Max)
		for _, m := range obj.Also {
			add(m, lowerBetter(m))
		}
	}
	note := ""
	if c := jobs.Col("fct_p99_usec_lossless"); c == nil || !hasValue(c) {
		if obj == nil {
			add("fct_p99_usec", true)
			if c == nil {
				note = "These results predate the per-class metrics (fct_p99_usec_lossless, ...): the FCT answer mixes every traffic class. "
			} else {
				note = "No job carried lossless traffic: the FCT answer is over every message. "
			}
		}
	}
	for _, m := range mainMetrics {
		add(m.Name, m.Lower)
	}
	return out, note
}

// answer fills the answers at the top of the page from the ok jobs: one per candidate
// metric that varies, in candidates' order; and, when no decision heads the page, the
// headline. feasible (nil: no subject_to) narrows the objective's answer to the points
// meeting the objective's constraints in every replicate.
func (r *Report) answer(st *study, obj *question.Objective, feasible []bool, headline bool) {
	cands, note := candidates(st.jobs, obj)
	r.AnswerNote = note
	var objAns *Answer
	for _, c := range cands {
		col := st.jobs.Col(c.Name)
		if col == nil || col.IsString() {
			continue
		}
		if len(st.points) == 1 {
			if same, iv := constant(st.intervals(col)); same && iv.N > 0 {
				r.Constant = append(r.Constant, Setting{Name: c.Name, Value: iv.String()})
				if r.Headline == "" && headline {
					r.Headline = fmt.Sprintf("One configuration, nothing swept: %s %s.", describeUnit(c.Name), ivText(iv))
				}
			}
			continue
		}
		if same, _ := constant(st.intervals(col)); same {
			continue // on the page's line of metrics with one value at every point
		}
		// Every metric's best point is among the points meeting the objective's
		// constraints, as the decision's is (once only the objective's own was).
		keep := feasible
		a := st.answer(c.Name, c.Lower, keep)
		if keep != nil {
			n := 0
			for _, f := range keep {
				if f {
					n++
				}
			}
			among := fmt.Sprintf("among the %d of %d points that meet %s", n, len(keep), strings.Join(obj.SubjectTo, " and "))
			if n == len(keep) {
				among = ""
			}
			if a == nil {
				if headline {
					r.Headline = fmt.Sprintf("No point meets %s in every replicate: the objective has no acceptable point.", strings.Join(obj.SubjectTo, " and "))
				}
				a = st.answer(c.Name, c.Lower, nil)
				among = "over every point: none meets " + strings.Join(obj.SubjectTo, " and ") + " in every replicate"
			}
			if a != nil && among != "" {
				a.Among = among
			}
		}
		if a != nil {
			r.Answers = append(r.Answers, *a)
			if obj != nil && c.Name == obj.Metric {
				objAns = &r.Answers[len(r.Answers)-1]
			}
		}
	}
	if feasible != nil && !slices.Contains(feasible, false) {
		r.AnswerNote += fmt.Sprintf("Every point meets %s in every replicate. ", strings.Join(obj.SubjectTo, " and "))
	}
	switch {
	case st.reps < 2:
		r.AnswerNote += "One replicate per point: no intervals. If the jobs draw random numbers that depend on the replicate (start jitter, clock tolerance, transmit jitter, a load or permutation workload), no answer can be told from noise: run a selection (run --select) or 3 or more replicates; if they draw none, the study is deterministic and one replicate is its answer. "
	default:
		r.AnswerNote += fmt.Sprintf("Values are means over %d replicates ± the 95%% confidence interval (Student t, %d degrees of freedom). "+
			"Replicate r of every point draws the same random numbers, so differences between points are paired replicate by replicate and get their own, narrower intervals. ",
			st.reps, st.reps-1)
	}
	if len(st.points) > 1 {
		fct := "fct_p99_usec_lossless"
		if c := st.jobs.Col(fct); c == nil || !hasValue(c) {
			fct = "fct_p99_usec"
		}
		if pf := st.pareto("drops_total", fct, feasible); pf != nil && len(pf.Points) > 0 && varies(st, "drops_total") && varies(st, fct) {
			r.Pareto = pf
		}
	}
	if !headline || r.Headline != "" || len(st.points) < 2 {
		return
	}
	if obj != nil && objAns == nil {
		col := st.jobs.Col(obj.Metric)
		switch same, iv := constant(st.intervals(col)); {
		case col == nil || col.IsString():
			r.Headline = fmt.Sprintf("The objective's metric %s is not a numeric column of these results.", obj.Metric)
		case same && iv.N == 0:
			r.Headline = fmt.Sprintf("%s is null at every point (nothing of that kind completed): the objective cannot tell the points apart.", obj.Metric)
		case same:
			r.Headline = fmt.Sprintf("%s is %s at every point: the objective does not tell the points apart.", obj.Metric, withUnit(obj.Metric, ci.Num(iv.Mean)))
		}
		return
	}
	if len(r.Answers) == 0 {
		return
	}
	a := r.Answers[0]
	best := map[string]string{"lower": "Lowest", "higher": "Highest"}[a.Better]
	what := describeUnit(a.Metric)
	if a.Among != "" {
		what += ", " + a.Among
	}
	val := a.Value
	var paren []string
	if a.Equal > 0 {
		paren = append(paren, fmt.Sprintf("as are %d other points", a.Equal))
	}
	if st.reps < 2 {
		paren = append(paren, oneRep)
	}
	if a.Count != "" {
		paren = append(paren, a.Count)
	}
	if len(paren) > 0 {
		val += " (" + strings.Join(paren, "; ") + ")"
	}
	r.Headline = fmt.Sprintf("%s %s: %s, %s", best, what, a.Best, val)
	if a.Tied > 0 {
		r.Headline += fmt.Sprintf("; %d other points are within the noise of it", a.Tied)
	} else if a.RunnerUp != "" && st.reps > 1 {
		r.Headline += "; better than every other point beyond the noise"
	}
	r.Headline += "."
}

// varies reports whether metric name has more than one value over the points.
func varies(st *study, name string) bool {
	_, same := uniformValue(st, name)
	c := st.jobs.Col(name)
	return c != nil && !c.IsString() && !same
}

// oneRep is what stands where an interval would be when a point has one replicate.
const oneRep = "one replicate: no interval"

// ivText is an interval as the page prints it, "one replicate: no interval" beside a
// lone value.
func ivText(iv ci.Interval) string {
	if iv.N == 1 {
		return iv.String() + " (" + oneRep + ")"
	}
	return iv.String()
}

// replicates returns 1 + the largest replicate number among the used rows (1 without a
// replicate column).
func replicates(jobs *resultsdir.Table, use []bool) int {
	rc := jobs.Col("replicate")
	n := 1
	if rc == nil || rc.IsString() {
		return n
	}
	for r := range use {
		if use[r] && !rc.Null[r] {
			n = max(n, int(rc.Num[r])+1)
		}
	}
	return n
}

// perfRows summarises the simulator-performance columns over the ok jobs.
func perfRows(jobs *resultsdir.Table, ok []bool) []PerfRow {
	var out []PerfRow
	for _, m := range perfMetrics {
		c := jobs.Col(m)
		if c == nil || c.IsString() {
			continue
		}
		var xs []float64
		for r := range ok {
			if ok[r] && !c.Null[r] {
				xs = append(xs, c.Num[r])
			}
		}
		if len(xs) == 0 {
			continue
		}
		sum := 0.0
		for _, x := range xs {
			sum += x
		}
		row := PerfRow{Metric: m, Mean: ci.Num(sum / float64(len(xs))), Min: ci.Num(slices.Min(xs)), Max: ci.Num(slices.Max(xs)), Total: ci.Num(sum)}
		if m == "events_per_sec" {
			row.Total = ""
		}
		out = append(out, row)
	}
	return out
}

// hasValue reports whether a numeric column has a cell that is neither null nor NaN.
func hasValue(c *resultsdir.Column) bool {
	if c.IsString() {
		return false
	}
	for i, v := range c.Num {
		if !c.Null[i] && !math.IsNaN(v) {
			return true
		}
	}
	return false
}
