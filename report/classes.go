package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// ClassIndifference is the relative change of a traffic class's completion fraction or
// goodput that the decision box calls a cost (studies.md "The report": "costs the lossy
// class 48% of its goodput against ...").
const ClassIndifference = 0.05

// ClassView is one traffic class (a data TC) at the selected point, against the best any
// point achieved for it: the means over the replicates the decision used.
type ClassView struct {
	Class                string // "TC 1, lossless"
	Completed, Goodput   string // at the selected point
	P99                  string // "not reached" when the percentile falls among unfinished messages
	BestCompleted        string // "0.89 at LossyAlpha=4, ..."
	BestGoodput, BestP99 string
	Cost                 string // "costs the lossy class 48% of its goodput against ..." or ""
}

// classViews reads the classes table of dir and compares every class at the decision's
// point with every other point (means over the replicates the decision used: rowsOf).
func classViews(dir string, st *study, dec *selection.Decision, rowsOf func(int) []int) []ClassView {
	if dec.Best < 0 || len(dec.Labels) == 0 {
		return nil
	}
	ids := st.jobs.Col("job_id")
	point := map[string]int{} // job id -> point (decision index)
	for i := range dec.Labels {
		for _, r := range rowsOf(i) {
			point[ids.Text(r)] = i
		}
	}
	cl, err := resultsdir.ReadTable(dir, "classes", func(id string) bool { _, ok := point[id]; return ok })
	if err != nil {
		return nil
	}
	job, tc, lossless := cl.Col("job_id"), cl.Col("data_tc"), cl.Col("lossless")
	frac, good, p99 := cl.Col("completed_frac"), cl.Col("goodput_gbps"), cl.Col("fct_p99_usec")
	if job == nil || tc == nil || frac == nil || good == nil || p99 == nil {
		return nil
	}
	type acc struct {
		n, reached int
		frac, good float64
		p99        float64
		lossless   bool
		seen       bool
	}
	classes := map[int][]acc{} // data_tc -> per point
	for r := range cl.Rows {
		i := point[job.Text(r)]
		c := int(tc.Num[r])
		if classes[c] == nil {
			classes[c] = make([]acc, len(dec.Labels))
		}
		a := &classes[c][i]
		a.seen, a.n = true, a.n+1
		a.frac += frac.Num[r]
		a.good += good.Num[r]
		a.lossless = lossless != nil && !lossless.IsString() && lossless.Num[r] != 0
		if !p99.Null[r] && !math.IsNaN(p99.Num[r]) {
			a.p99 += p99.Num[r]
			a.reached++
		}
	}
	tcs := make([]int, 0, len(classes))
	for c := range classes {
		tcs = append(tcs, c)
	}
	slices.Sort(tcs)
	label := func(i int) string { return dec.Labels[i] }
	var out []ClassView
	for _, c := range tcs {
		pts := classes[c]
		sel := pts[dec.Best]
		if !sel.seen {
			continue
		}
		kind := "lossy"
		if sel.lossless {
			kind = "lossless"
		}
		v := ClassView{Class: fmt.Sprintf("TC %d, %s", c, kind)}
		mean := func(a acc) (f, g, p float64) {
			f, g, p = a.frac/float64(a.n), a.good/float64(a.n), math.NaN()
			if a.reached == a.n {
				p = a.p99 / float64(a.n)
			}
			return
		}
		sf, sg, sp := mean(sel)
		v.Completed, v.Goodput = ci.Num(100*sf)+"%", ci.Num(sg)+" Gbps"
		v.P99 = "not reached"
		if !math.IsNaN(sp) {
			v.P99 = ci.Num(sp) + " µs"
		}
		bf, bg, bp := -1, -1, -1
		for i, a := range pts {
			if !a.seen {
				continue
			}
			f, g, p := mean(a)
			if bf < 0 || f > pts[bf].frac/float64(pts[bf].n) {
				bf = i
			}
			if bg < 0 || g > pts[bg].good/float64(pts[bg].n) {
				bg = i
			}
			if !math.IsNaN(p) {
				if _, _, q := mean(pts[max(bp, 0)]); bp < 0 || math.IsNaN(q) || p < q {
					bp = i
				}
			}
		}
		f, _, _ := mean(pts[bf])
		_, g, _ := mean(pts[bg])
		at := func(x, sel float64, i int) string {
			if math.Abs(x-sel) <= 1e-9*math.Abs(x) {
				return "the selected point's"
			}
			return "at " + label(i)
		}
		v.BestCompleted = ci.Num(100*f) + "% " + at(f, sf, bf)
		v.BestGoodput = ci.Num(g) + " Gbps " + at(g, sg, bg)
		v.BestP99 = "not reached at any point"
		if bp >= 0 {
			_, _, p := mean(pts[bp])
			v.BestP99 = ci.Num(p) + " µs " + at(p, sp, bp)
		}
		switch {
		case g > 0 && (g-sg)/g > ClassIndifference:
			v.Cost = fmt.Sprintf("costs the %s class (TC %d) %s%% of its goodput: %s against %s", kind, c, ci.Num(100*(g-sg)/g), v.Goodput, v.BestGoodput) + leftBecause(dec, bg)
		case f > 0 && (f-sf)/f > ClassIndifference:
			v.Cost = fmt.Sprintf("costs the %s class (TC %d) %s%% of its completed messages: %s against %s", kind, c, ci.Num(100*(f-sf)/f), v.Completed, v.BestCompleted) + leftBecause(dec, bf)
		}
		out = append(out, v)
	}
	return out
}

// leftBecause says why the decision did not take point i, the one better for a class
// ("; that point left the selection in round 7: far from the best on ..."), so that a
// cost reads as the trade it is; "" when the decision records no reason.
func leftBecause(dec *selection.Decision, i int) string {
	for _, e := range dec.Eliminated {
		if e.Point == i && e.Reason != "" {
			return fmt.Sprintf("; that point left the selection in round %d: %s", e.Round, e.Reason)
		}
	}
	return ""
}
