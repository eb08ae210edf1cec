package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	vgfont "gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// dpi of the PNG charts: a chart of W x H pixels is drawn on a W*72/96 x H*72/96 pt canvas.
const dpi = 96

// Chart is one rendered chart.
type Chart struct {
	// ID is unique within a report and safe as a file name: "heatmap-fct_p99_usec",
	// "line-fct_p99_usec-switch_LossyAlpha", "series-j0003-egress_queue".
	ID     string
	Kind   string // "heatmap", "line" or "series"
	Metric string // the summary metric (heatmap, line), or the series' subject
	Title  string
	// Cells is the number of heatmap cells (levels of the first axis x levels of the
	// second); 0 for other kinds.
	Cells int
	// Grid holds a heatmap's values, for the table under it.
	Grid *grid
	PNG  []byte
	W, H int // pixels
}

// render draws p into a W x H pixel PNG.
func render(p *plot.Plot, w, h int) ([]byte, error) {
	c := vgimg.NewWith(vgimg.UseWH(vg.Length(w)*vg.Inch/dpi, vg.Length(h)*vg.Inch/dpi), vgimg.UseDPI(dpi),
		vgimg.UseBackgroundColor(color.White))
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// heatColors is ColorBrewer's 9-class sequential "YlOrRd" (Cynthia Brewer, colorbrewer2.org),
// the heat map's scale. Spelled out rather than taken from gonum's palette/brewer, whose
// package initialisation builds every ColorBrewer palette in every command (issue 15: a
// `sim` pays nothing for plotting).
var heatColors = []color.Color{
	color.RGBA{0xff, 0xff, 0xcc, 0xff}, color.RGBA{0xff, 0xed, 0xa0, 0xff}, color.RGBA{0xfe, 0xd9, 0x76, 0xff},
	color.RGBA{0xfe, 0xb2, 0x4c, 0xff}, color.RGBA{0xfd, 0x8d, 0x3c, 0xff}, color.RGBA{0xfc, 0x4e, 0x2a, 0xff},
	color.RGBA{0xe3, 0x1a, 0x1c, 0xff}, color.RGBA{0xbd, 0x00, 0x26, 0xff}, color.RGBA{0x80, 0x00, 0x26, 0xff},
}

// heatPalette is heatColors as the heat map's palette.
type heatPalette struct{}

func (heatPalette) Colors() []color.Color { return heatColors }

var _ palette.Palette = heatPalette{}

// heatmapChart draws g with one labelled cell per grid point; cells no ok job reached
// are grey and labelled "-".
func heatmapChart(metric string, g *grid, w, h int) (*Chart, error) {
	p := plot.New()
	p.Title.Text = metric
	p.X.Label.Text = g.XAxis.Label
	p.Y.Label.Text = g.YAxis.Label
	hm := plotter.NewHeatMap(g, heatPalette{})
	hm.NaN = color.Gray{Y: 0xd0}
	lo, hi := hm.Min, hm.Max
	if math.IsInf(lo, 0) || math.IsNaN(lo) { // no cell has a value
		lo, hi = 0, 1
	}
	if lo == hi { // one value: the middle colour everywhere
		lo, hi = lo-1, hi+1
	}
	hm.Min, hm.Max = lo, hi
	p.Add(hm)
	var xys plotter.XYs
	var labels []string
	var styles []text.Style
	cols, rows := g.Dims()
	for i := 0; i < cols; i++ {
		for j := 0; j < rows; j++ {
			v := g.Val[i][j]
			xys = append(xys, plotter.XY{X: float64(i), Y: float64(j)})
			labels = append(labels, cellText(v))
			sty := text.Style{Color: color.Black, Font: plotFont(9), XAlign: draw.XCenter, YAlign: draw.YCenter,
				Handler: plot.DefaultTextHandler}
			if !math.IsNaN(v) && (v-lo)/(hi-lo) > 0.6 {
				sty.Color = color.White
			}
			styles = append(styles, sty)
		}
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	lb.TextStyle = styles
	p.Add(lb)
	p.NominalX(g.XAxis.Labels...)
	p.NominalY(g.YAxis.Labels...)
	p.X.Min, p.X.Max = -0.5, float64(cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(rows)-0.5
	img, err := render(p, w, h)
	if err != nil {
		return nil, err
	}
	return &Chart{ID: "heatmap-" + metric, Kind: "heatmap", Metric: metric,
		Title: fmt.Sprintf("%s over %s × %s", metric, g.XAxis.Label, g.YAxis.Label),
		Cells: cols * rows, Grid: g, PNG: img, W: w, H: h}, nil
}

func plotFont(size vg.Length) vgfont.Font {
	f := plot.DefaultFont
	f.Size = size
	return f
}

// lineChart draws the mean of a metric over one axis with its min-max band.
func lineChart(metric string, b *band, w, h int) (*Chart, error) {
	p := plot.New()
	p.Title.Text = metric
	p.X.Label.Text = b.X.Label
	p.Y.Label.Text = metric
	var mean, upper, lower plotter.XYs
	for k := range b.Mean {
		if math.IsNaN(b.Mean[k]) {
			continue
		}
		x := b.X.xValue(k)
		mean = append(mean, plotter.XY{X: x, Y: b.Mean[k]})
		upper = append(upper, plotter.XY{X: x, Y: b.Max[k]})
		lower = append(lower, plotter.XY{X: x, Y: b.Min[k]})
	}
	if len(mean) > 0 {
		slices.Reverse(upper)
		poly, err := plotter.NewPolygon(append(slices.Clone(lower), upper...))
		if err != nil {
			return nil, err
		}
		poly.Color = color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0x50}
		poly.LineStyle.Width = 0
		line, pts, err := plotter.NewLinePoints(mean)
		if err != nil {
			return nil, err
		}
		line.Color = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
		line.Width = vg.Points(1.5)
		pts.Color = line.Color
		p.Add(poly, line, pts, plotter.NewGrid())
		p.Legend.Add("mean", line)
		p.Legend.Add("min–max", poly)
		p.Legend.Top = true
	}
	if lo, hi := yRange(mean, lower, upper); lo == hi {
		// A constant metric: centre it in a ±10% window so the tick labels show its value.
		pad := math.Max(math.Abs(lo)*0.1, 1e-12)
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	if b.X.Num == nil {
		p.NominalX(b.X.Labels...)
	} else {
		p.X.Tick.Marker = levelTicks{b.X}
		if n := len(b.X.Num); n > 0 && b.X.Num[0] > 0 && b.X.Num[n-1] >= 8*b.X.Num[0] {
			// Levels spanning a decade or more (LossyAlpha 0.125 … 8, sizes 100KB … 10MB)
			// read best on a log axis; 5% margin (in log space) keeps points off the frame.
			p.X.Scale = plot.LogScale{}
			pad := math.Pow(b.X.Num[n-1]/b.X.Num[0], 0.05)
			p.X.Min, p.X.Max = b.X.Num[0]/pad, b.X.Num[n-1]*pad
		} else if n > 0 { // 5% margin so the end points are not on the frame
			pad := (b.X.Num[n-1] - b.X.Num[0]) * 0.05
			p.X.Min, p.X.Max = b.X.Num[0]-pad, b.X.Num[n-1]+pad
		}
	}
	img, err := render(p, w, h)
	if err != nil {
		return nil, err
	}
	return &Chart{ID: "line-" + metric + "-" + b.X.Column, Kind: "line", Metric: metric,
		Title: fmt.Sprintf("%s vs %s (mean, min–max band over replicates and other axes)", metric, b.X.Label),
		PNG:   img, W: w, H: h}, nil
}

// levelTicks puts a labelled tick at every level of a numeric axis (at most 12; else
// every k-th), labelled in the attribute's units.
type levelTicks struct{ a *axis }

func (t levelTicks) Ticks(min, max float64) []plot.Tick {
	step := (len(t.a.Num) + 11) / 12
	var out []plot.Tick
	for k, v := range t.a.Num {
		lbl := ""
		if k%step == 0 {
			lbl = t.a.Labels[k]
		}
		out = append(out, plot.Tick{Value: v, Label: lbl})
	}
	return out
}

// seriesLine is one line of a time-series chart.
type seriesLine struct {
	Name string
	XY   plotter.XYs
	Peak float64
}

// seriesChart draws up to maxLines lines (the highest peaks) over simulated time.
func seriesChart(id, title, ylabel string, lines []seriesLine, w, h int) (*Chart, error) {
	const maxLines = 8
	slices.SortStableFunc(lines, func(a, b seriesLine) int {
		switch {
		case a.Peak > b.Peak:
			return -1
		case a.Peak < b.Peak:
			return 1
		}
		return 0
	})
	shown := lines
	if len(shown) > maxLines {
		shown = shown[:maxLines]
		title += fmt.Sprintf(" (top %d of %d by peak)", maxLines, len(lines))
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "simulated time (µs)"
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	for i, l := range shown {
		ln, err := plotter.NewLine(l.XY)
		if err != nil {
			return nil, err
		}
		ln.Color = plotutil.Color(i)
		ln.Width = vg.Points(1.2)
		p.Add(ln)
		p.Legend.Add(l.Name, ln)
	}
	p.Legend.Top = true
	if p.Y.Min > 0 { // occupancy, pause time and rate start from zero
		p.Y.Min = 0
	}
	img, err := render(p, w, h)
	if err != nil {
		return nil, err
	}
	return &Chart{ID: id, Kind: "series", Metric: ylabel, Title: title, PNG: img, W: w, H: h}, nil
}

// yRange returns the smallest and largest Y of the given point sets.
func yRange(sets ...plotter.XYs) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, xys := range sets {
		for _, p := range xys {
			lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
		}
	}
	return lo, hi
}
