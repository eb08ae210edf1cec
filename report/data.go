package report

import (
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/internal/ci"
	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/model/config"
)

// axis is one swept column: its distinct values in order and their labels.
type axis struct {
	Column string
	Label  string    // the parameter path as users write it: switch.StaticPoolXoffThreshold
	Short  string    // the last part of Label (StaticPoolXoffThreshold), or Label if two axes share it
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

// setShort names each axis by the last part of its path, or the whole path where two
// last parts clash.
func setShort(axes []*axis) {
	count := map[string]int{}
	for _, a := range axes {
		a.Short = a.Label[strings.LastIndex(a.Label, ".")+1:]
		count[a.Short]++
	}
	for _, a := range axes {
		if count[a.Short] > 1 {
			a.Short = a.Label
		}
	}
}

func pathOf(col string) string { return results.PathOf(col) }

func attrOf(col string) (config.Attr, bool) { return results.AttrOf(col) }

// grid is a metric over the cells of the first two axes: Val[x][y] is the mean over the
// replicates of the ok jobs at that point (any further axes averaged per replicate
// first), Half[x][y] its 95% half-width (NaN with one replicate), NaN for a cell no ok
// job reached; N[x][y] counts the replicates averaged.
type grid struct {
	XAxis, YAxis *axis
	Val, Half    [][]float64
	N            [][]int
	Over         []string // labels of the further axes averaged into each cell
}

func newGrid(jobs *results.Table, ok []bool, axes []*axis, metric string, reps int) *grid {
	x, y := axes[0], axes[1]
	g := &grid{XAxis: x, YAxis: y}
	for _, a := range axes[2:] {
		g.Over = append(g.Over, a.Label)
	}
	cells := cellIntervals(jobs, ok, axes, jobs.Col(metric), reps)
	g.Val, g.Half, g.N = make([][]float64, x.Len()), make([][]float64, x.Len()), make([][]int, x.Len())
	for i := range g.Val {
		g.Val[i], g.Half[i], g.N[i] = make([]float64, y.Len()), make([]float64, y.Len()), make([]int, y.Len())
		for j := range g.Val[i] {
			iv, seen := cells[[2]int{i, j}]
			g.Val[i][j], g.Half[i][j] = math.NaN(), math.NaN()
			if seen {
				g.Val[i][j], g.Half[i][j], g.N[i][j] = iv.Mean, iv.Half, iv.N
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

// Cell formats cell (i, j) as mean ± half-width (package ci's format).
func (g *grid) Cell(i, j int) string {
	return ci.Interval{N: g.N[i][j], Mean: g.Val[i][j], Half: g.Half[i][j]}.String()
}

// xValue is the plotting position of level k: the value itself for numeric axes (so
// uneven steps show as such), else k.
func (a *axis) xValue(k int) float64 {
	if a.Num != nil {
		return a.Num[k]
	}
	return float64(k)
}

// cellText formats a heatmap cell label in the page's one number format (package ci).
func cellText(v float64) string { return ci.Num(v) }
