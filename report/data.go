package report

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// axis is one dimension of the study: one swept column, or a zip group (columns that
// move together, manifest.json's axis_zip), with its distinct values in order and their
// labels. A zip group is one axis: its levels are the members' values side by side
// ("4 / 4"), never the members against each other.
type axis struct {
	Column  string   // the first member's column (chart ids)
	Columns []string // every member column, in the manifest's order
	Label   string   // the parameter path as users write it; a zip group's names every member
	Short   string   // the last part of Label (StaticPoolXoffThreshold), or Label if two axes share it
	// Num is each level's plotting position: the value of a numeric column, or of a zip
	// group's first member when that orders the levels strictly; nil for a nominal axis.
	Num    []float64
	Labels []string // one per level, in the attribute's units (700KB, 400Gbps, 500ns; "4 / 4")
	zip    bool
	short  string // a zip group's Short before clashes are resolved
	cols   []*resultsdir.Column
	index  map[string]int // the members' values of a row (Column.Text joined) -> level
}

func (a *axis) Len() int { return len(a.Labels) }

// key joins the members' values of row r.
func (a *axis) key(r int) string {
	if len(a.cols) == 1 {
		return a.cols[0].Text(r)
	}
	parts := make([]string, len(a.cols))
	for i, c := range a.cols {
		parts[i] = c.Text(r)
	}
	return strings.Join(parts, "\x00")
}

// level returns the level index of row r of the table the axis was built from; -1 for
// values no used row had.
func (a *axis) level(r int) int {
	k, ok := a.index[a.key(r)]
	if !ok {
		return -1
	}
	return k
}

// newAxis collects the levels of the member columns cols of jobs over the rows where
// use is true, ordered by the first member, then the next (numbers numerically).
func newAxis(jobs *resultsdir.Table, cols []string, use []bool) *axis {
	a := &axis{Column: cols[0], Columns: cols, index: map[string]int{}, zip: len(cols) > 1}
	var paths []string
	for _, c := range cols {
		a.cols = append(a.cols, jobs.Col(c))
		paths = append(paths, pathOf(c))
	}
	a.Label, a.short = zipLabel(paths)
	var rows []int // one row per level
	seen := map[string]bool{}
	for r := range use {
		if k := a.key(r); use[r] && !seen[k] {
			seen[k] = true
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(x, y int) int {
		for _, c := range a.cols {
			if c.IsString() {
				if d := strings.Compare(c.Str[x], c.Str[y]); d != 0 {
					return d
				}
			} else if d := cmp.Compare(c.Num[x], c.Num[y]); d != 0 {
				return d
			}
		}
		return 0
	})
	first := a.cols[0]
	numeric := !first.IsString()
	for k, r := range rows {
		a.index[a.key(r)] = k
		var parts []string
		for _, c := range a.cols {
			parts = append(parts, cellLabel(c, r))
		}
		a.Labels = append(a.Labels, strings.Join(parts, " / "))
		if numeric {
			v := first.Num[r]
			if k > 0 && (first.Null[r] || v <= a.Num[k-1]) {
				numeric = false // a zip group whose first member repeats: nominal
			}
			a.Num = append(a.Num, v)
		}
	}
	if !numeric {
		a.Num = nil
	}
	return a
}

// cellLabel formats row r of a swept column in the attribute's units.
func cellLabel(c *resultsdir.Column, r int) string {
	if at, ok := attrOf(c.Name); ok && !c.IsString() && !c.Null[r] {
		return formatValue(at, c.Num[r])
	}
	return c.Text(r)
}

// zipLabel names an axis by its members' paths: the path itself for one member; for a zip
// group the members' common dotted prefix and suffix around their differing parts
// (nic.HostInterface.{NICSide,HostSide}.PhysicalLayer.LaneCount), else the paths joined
// by " / ". The second result is the group's short name: the differing parts and the last
// common one ({NICSide,HostSide}.LaneCount; "" for one member: setShort decides).
func zipLabel(paths []string) (label, short string) {
	if len(paths) == 1 {
		return paths[0], ""
	}
	split := make([][]string, len(paths))
	for i, p := range paths {
		split[i] = strings.Split(p, ".")
	}
	pre := 0
	for ; ; pre++ {
		same := pre < len(split[0])
		for _, s := range split[1:] {
			same = same && pre < len(s) && s[pre] == split[0][pre]
		}
		if !same {
			break
		}
	}
	suf := 0
	for ; ; suf++ {
		same := suf < len(split[0])-pre
		for _, s := range split[1:] {
			same = same && suf < len(s)-pre && s[len(s)-1-suf] == split[0][len(split[0])-1-suf]
		}
		if !same {
			break
		}
	}
	var mids []string
	for _, s := range split {
		mids = append(mids, strings.Join(s[pre:len(s)-suf], "."))
	}
	if pre == 0 && suf == 0 || slices.Contains(mids, "") {
		l := strings.Join(paths, " / ")
		return l, l
	}
	label = "{" + strings.Join(mids, ",") + "}"
	short = label
	if suf > 0 {
		label += "." + strings.Join(split[0][len(split[0])-suf:], ".")
		short += "." + split[0][len(split[0])-1]
	}
	if pre > 0 {
		label = strings.Join(split[0][:pre], ".") + "." + label
	}
	return label, short
}

// axisGroups returns the study's axes as groups of jobs columns: the swept columns
// (resultsdir.Axes), with the members of a zip group (manifest.json's axis_zip) in one
// group at the place of its first member.
func axisGroups(m *resultsdir.Manifest, jobs *resultsdir.Table) [][]string {
	zipOf := map[string]int{}
	if m != nil && len(m.AxisZip) == len(m.Axes) {
		for i, a := range m.Axes {
			if m.AxisZip[i] >= 0 {
				zipOf[resultsdir.ColumnOf(a)] = m.AxisZip[i]
			}
		}
	}
	var groups [][]string
	at := map[int]int{}
	for _, c := range resultsdir.Axes(m, jobs) {
		if z, ok := zipOf[c]; ok {
			if g, ok := at[z]; ok {
				groups[g] = append(groups[g], c)
				continue
			}
			at[z] = len(groups)
		}
		groups = append(groups, []string{c})
	}
	return groups
}

// newAxes builds one axis per group of axisGroups over the used rows, short names set.
func newAxes(jobs *resultsdir.Table, groups [][]string, use []bool) []*axis {
	var out []*axis
	for _, g := range groups {
		out = append(out, newAxis(jobs, g, use))
	}
	setShort(out)
	return out
}

// columns lists every member column of axes, in order.
func columns(axes []*axis) []string {
	var out []string
	for _, a := range axes {
		out = append(out, a.Columns...)
	}
	return out
}

func formatValue(a config.Attr, v float64) string { return resultsdir.FormatValue(a, v) }

// shortName is the last part of an attribute path, with its tier for a tier block's
// attribute: "spine.StaticPoolXoffThreshold" for tiers.spine.switch...., so that it is
// not read as the plain switch block's.
func shortName(path string) string {
	last := path[strings.LastIndex(path, ".")+1:]
	if rest, ok := strings.CutPrefix(path, "tiers."); ok {
		if tier, _, ok := strings.Cut(rest, "."); ok {
			return tier + "." + last
		}
	}
	return last
}

// setShort names each axis by the last part of its path (a zip group by its label
// without the members' common prefix), or the whole label where two short names clash.
func setShort(axes []*axis) {
	count := map[string]int{}
	for _, a := range axes {
		a.Short = shortName(a.Label)
		if a.zip {
			a.Short = a.short
		}
		count[a.Short]++
	}
	for _, a := range axes {
		if count[a.Short] > 1 {
			a.Short = a.Label
		}
	}
}

func pathOf(col string) string { return resultsdir.PathOf(col) }

func attrOf(col string) (config.Attr, bool) { return resultsdir.AttrOf(col) }

// grid is a metric over the cells of the first two axes: Val[x][y] is the mean over the
// replicates of the ok jobs at that point (any further axes averaged per replicate
// first), Half[x][y] its 95% half-width (NaN with one replicate), NaN for a cell no ok
// job reached; N[x][y] counts the replicates averaged.
type grid struct {
	XAxis, YAxis *axis
	Val, Half    [][]float64
	N            [][]int
	Few          [][]bool // a p99 over fewer than 100 messages in some job of the cell
	Over         []string // labels of the further axes averaged into each cell
}

func newGrid(jobs *resultsdir.Table, ok []bool, axes []*axis, metric string, reps int) *grid {
	x, y := axes[0], axes[1]
	g := &grid{XAxis: x, YAxis: y}
	for _, a := range axes[2:] {
		g.Over = append(g.Over, a.Label)
	}
	cells := cellIntervals(jobs, ok, axes, jobs.Col(metric), reps)
	few := cellFew(jobs, ok, axes, metric)
	g.Val, g.Half, g.N, g.Few = make([][]float64, x.Len()), make([][]float64, x.Len()), make([][]int, x.Len()), make([][]bool, x.Len())
	for i := range g.Val {
		g.Val[i], g.Half[i], g.N[i], g.Few[i] = make([]float64, y.Len()), make([]float64, y.Len()), make([]int, y.Len()), make([]bool, y.Len())
		for j := range g.Val[i] {
			g.Few[i][j] = few[[2]int{i, j}]
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

// Cell formats cell (i, j) as mean ± half-width (package ci's format), marked † when it
// is a p99 of fewer than 100 messages.
func (g *grid) Cell(i, j int) string {
	s := ci.Interval{N: g.N[i][j], Mean: g.Val[i][j], Half: g.Half[i][j]}.String()
	if g.Few != nil && g.Few[i][j] {
		s += "†"
	}
	return s
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
