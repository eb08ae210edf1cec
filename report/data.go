package report

import (
	"math"
	"slices"
	"strconv"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/model/config"
)

// axis is one swept column: its distinct values in order and their labels.
type axis struct {
	Column string
	Label  string    // the parameter path as users write it: switch.StaticPoolXoffThreshold
	Num    []float64 // sorted distinct values of a numeric column (nil for strings)
	Str    []string  // sorted distinct values of a string column
	Labels []string  // one per level, in the attribute's units (700KB, 400Gbps, 500ns)
}

func (a *axis) Len() int { return len(a.Labels) }

// level returns the level index of row i of column c.
func (a *axis) level(c *results.Column, i int) int {
	if a.Num != nil {
		k, _ := slices.BinarySearch(a.Num, c.Num[i])
		return k
	}
	k, _ := slices.BinarySearch(a.Str, c.Str[i])
	return k
}

// newAxis collects the levels of column c over the rows where use is true.
func newAxis(c *results.Column, use []bool) *axis {
	a := &axis{Column: c.Name, Label: pathOf(c.Name)}
	attr, hasAttr := attrOf(c.Name)
	if c.IsString() {
		for i, s := range c.Str {
			if use[i] && !slices.Contains(a.Str, s) {
				a.Str = append(a.Str, s)
			}
		}
		slices.Sort(a.Str)
		a.Labels = a.Str
		return a
	}
	for i, v := range c.Num {
		if use[i] && !slices.Contains(a.Num, v) {
			a.Num = append(a.Num, v)
		}
	}
	slices.Sort(a.Num)
	for _, v := range a.Num {
		l := results.FormatNum(v)
		if hasAttr {
			l = formatValue(attr, v)
		}
		a.Labels = append(a.Labels, l)
	}
	return a
}

func formatValue(a config.Attr, v float64) string { return results.FormatValue(a, v) }

func pathOf(col string) string { return results.PathOf(col) }

func attrOf(col string) (config.Attr, bool) { return results.AttrOf(col) }

// grid is a metric averaged over the cells of two axes: Val[x][y] is the mean over the ok
// jobs at that point (replicates and any further axes averaged), NaN for a cell no ok
// job reached; N[x][y] counts the jobs averaged.
type grid struct {
	XAxis, YAxis *axis
	Val          [][]float64
	N            [][]int
}

func newGrid(jobs *results.Table, ok []bool, x, y *axis, metric string) *grid {
	g := &grid{XAxis: x, YAxis: y}
	g.Val = make([][]float64, x.Len())
	g.N = make([][]int, x.Len())
	for i := range g.Val {
		g.Val[i] = make([]float64, y.Len())
		g.N[i] = make([]int, y.Len())
	}
	mc, xc, yc := jobs.Col(metric), jobs.Col(x.Column), jobs.Col(y.Column)
	for r := 0; r < jobs.Rows; r++ {
		if !ok[r] || mc.Null[r] {
			continue
		}
		i, j := x.level(xc, r), y.level(yc, r)
		g.Val[i][j] += mc.Num[r]
		g.N[i][j]++
	}
	for i := range g.Val {
		for j := range g.Val[i] {
			if g.N[i][j] == 0 {
				g.Val[i][j] = math.NaN()
			} else {
				g.Val[i][j] /= float64(g.N[i][j])
			}
		}
	}
	return g
}

// Dims, Z, X, Y make grid a plotter.GridXYZ over level indices.
func (g *grid) Dims() (c, r int)   { return g.XAxis.Len(), g.YAxis.Len() }
func (g *grid) Z(c, r int) float64 { return g.Val[c][r] }
func (g *grid) X(c int) float64    { return float64(c) }
func (g *grid) Y(r int) float64    { return float64(r) }

// band is a metric over one axis: mean, min and max over the ok jobs at each level
// (replicates and the other axes folded in).
type band struct {
	X              *axis
	Mean, Min, Max []float64
}

func newBand(jobs *results.Table, ok []bool, x *axis, metric string) *band {
	n := x.Len()
	b := &band{X: x, Mean: make([]float64, n), Min: make([]float64, n), Max: make([]float64, n)}
	cnt := make([]int, n)
	for i := range b.Min {
		b.Min[i], b.Max[i] = math.Inf(1), math.Inf(-1)
	}
	mc, xc := jobs.Col(metric), jobs.Col(x.Column)
	for r := 0; r < jobs.Rows; r++ {
		if !ok[r] || mc.Null[r] {
			continue
		}
		k, v := x.level(xc, r), mc.Num[r]
		b.Mean[k] += v
		cnt[k]++
		b.Min[k] = math.Min(b.Min[k], v)
		b.Max[k] = math.Max(b.Max[k], v)
	}
	for k := range b.Mean {
		if cnt[k] == 0 {
			b.Mean[k], b.Min[k], b.Max[k] = math.NaN(), math.NaN(), math.NaN()
		} else {
			b.Mean[k] /= float64(cnt[k])
		}
	}
	return b
}

// xValue is the plotting position of level k: the value itself for numeric axes (so
// uneven steps show as such), else k.
func (a *axis) xValue(k int) float64 {
	if a.Num != nil {
		return a.Num[k]
	}
	return float64(k)
}

// cellText formats a heatmap cell label: 3 significant digits, k/M/G suffixes.
func cellText(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'g', 3, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 3, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 3, 64) + "k"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
