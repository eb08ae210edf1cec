package resultsdir

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Point is one grid point of a jobs table: the rows that share every swept value, with
// their replicate numbers. Rows and Reps are parallel and ordered by replicate.
type Point struct {
	Key  string    // the swept values joined: "0.25\x00700000"; unique per point
	Num  []float64 // the swept values of numeric axes (NaN for string axes), in axes order
	Text []string  // every swept value as Column.Text gives it, in axes order
	Rows []int     // row indexes into the jobs table
	Reps []int     // replicate of each row (-1 when the table has no replicate column)
}

// Points groups the rows of jobs that use(row) accepts (nil: every row) by the values of
// the axes columns (as Axes returns them), in ascending order of the first axis, then the
// second, ... (numbers numerically, strings lexically). With no axes every row is one
// point.
func Points(jobs *Table, axes []string, use func(row int) bool) []*Point {
	cols := make([]*Column, len(axes))
	for i, a := range axes {
		cols[i] = jobs.Col(a)
	}
	rep := jobs.Col("replicate")
	byKey := map[string]*Point{}
	var out []*Point
	for r := 0; r < jobs.Rows; r++ {
		if use != nil && !use(r) {
			continue
		}
		var parts []string
		for _, c := range cols {
			parts = append(parts, c.Text(r))
		}
		key := strings.Join(parts, "\x00")
		p := byKey[key]
		if p == nil {
			p = &Point{Key: key, Text: parts}
			for _, c := range cols {
				v := nan
				if !c.IsString() && !c.Null[r] {
					v = c.Num[r]
				}
				p.Num = append(p.Num, v)
			}
			byKey[key] = p
			out = append(out, p)
		}
		rp := -1
		if rep != nil && !rep.IsString() && !rep.Null[r] {
			rp = int(rep.Num[r])
		}
		p.Rows = append(p.Rows, r)
		p.Reps = append(p.Reps, rp)
	}
	for _, p := range out {
		idx := make([]int, len(p.Rows))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p.Reps[a], p.Reps[b]) })
		rows, reps := make([]int, len(idx)), make([]int, len(idx))
		for i, k := range idx {
			rows[i], reps[i] = p.Rows[k], p.Reps[k]
		}
		p.Rows, p.Reps = rows, reps
	}
	slices.SortStableFunc(out, func(a, b *Point) int {
		for i := range cols {
			if c := compareValue(a, b, i); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

func compareValue(a, b *Point, i int) int {
	an, bn := a.Num[i], b.Num[i]
	if an == an && bn == bn { // both numbers
		return cmp.Compare(an, bn)
	}
	return strings.Compare(a.Text[i], b.Text[i])
}

// Values returns the metric column's value for each row of p (NaN for a null cell).
func (p *Point) Values(c *Column) []float64 {
	out := make([]float64, len(p.Rows))
	for i, r := range p.Rows {
		out[i] = nan
		if c != nil && !c.IsString() && !c.Null[r] {
			out[i] = c.Num[r]
		}
	}
	return out
}

// ByReplicate returns the metric column's value for replicates 0..n-1 of p (NaN where
// the point lacks that replicate or the cell is null): the vector a paired comparison
// matches index by index.
func (p *Point) ByReplicate(c *Column, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = nan
	}
	for i, r := range p.Rows {
		if rp := p.Reps[i]; rp >= 0 && rp < n && c != nil && !c.IsString() && !c.Null[r] {
			out[rp] = c.Num[r]
		}
	}
	return out
}

var nan = math.NaN()
