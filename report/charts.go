package report

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"strings"
	"sync"

	"git.sr.ht/~sbinet/gg"
	"gonum.org/v1/plot"
	vgfont "gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// dpi of the PNG charts: a chart of W x H pixels is drawn on a W*72/96 x H*72/96 pt canvas.
const dpi = 96

// Chart is one chart of the page: laid out by Build, drawn by PNG.
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
	// Note is what the caption must add: a heat map's scale against its spread and noise.
	Note string
	// Lines is the number of lines of a line chart (one per level of the other axis).
	Lines int
	W, H  int // pixels

	draw func() ([]byte, error) // draws the PNG
	once sync.Once
	png  []byte
	err  error
}

// PNG draws the chart as a W x H pixel PNG, once: a later call returns the same bytes.
// Build lays out every chart and draws none, so that a caller reading only the page's
// answers (a test, a script) does not pay for the pixels; WriteHTML and WritePNGs draw
// them. The pixels do not depend on when they are drawn.
func (c *Chart) PNG() ([]byte, error) {
	c.once.Do(func() {
		if c.png, c.err = c.draw(); c.err != nil {
			c.err = fmt.Errorf("chart %s: %w", c.ID, c.err)
		}
	})
	return c.png, c.err
}

// newCanvas is a white W x H pixel canvas. vgimg.NewWith would make its image, then have
// gg copy it into another (gg.NewContextForImage): two images to allocate and clear and
// one to copy per chart, a third of a small chart's drawing; gg.NewContextForRGBA draws
// on the one image, as vgimg's own set-up does after its copy.
func newCanvas(w, h int) *vgimg.Canvas {
	img, ok := canvasImages.Get().(*image.RGBA)
	if !ok || img.Rect.Dx() != w || img.Rect.Dy() != h {
		img = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	ctx := gg.NewContextForRGBA(img)
	ctx.SetLineCapButt()
	ctx.InvertY()
	return vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(dpi))
}

// render draws p into a W x H pixel PNG.
func render(p *plot.Plot, w, h int) ([]byte, error) {
	c := newCanvas(w, h)
	p.Draw(draw.New(c))
	return encodePNG(c)
}

// encodePNG encodes the canvas as PNG at deflate's fastest level. The charts are mostly
// flat colour, so the fastest level costs about 4% in size and saves about 40% of the
// encoding, which is most of a chart's rendering time; the pixels are the same at every
// level. The encoders' buffers (a deflate writer is over half a megabyte to allocate and
// clear, more than a small chart takes to compress) are reused from chart to chart.
func encodePNG(c *vgimg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	img := c.Image()
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, err
	}
	if rgba, ok := img.(*image.RGBA); ok {
		canvasImages.Put(rgba)
	}
	return buf.Bytes(), nil
}

// canvasImages holds the image of a chart once encoded, for the next chart of its size:
// a 640 x 480 image is 1.2 MB to allocate and clear, a report draws dozens, and vgimg
// paints every pixel with the background before a chart is drawn on it, so a chart's
// pixels do not depend on the image's past.
var canvasImages sync.Pool // *image.RGBA

var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngBuffers{}}

// pngBuffers is a png.EncoderBufferPool over a sync.Pool, as reports may be built
// concurrently.
type pngBuffers struct{ pool sync.Pool }

func (b *pngBuffers) Get() *png.EncoderBuffer {
	eb, _ := b.pool.Get().(*png.EncoderBuffer)
	return eb
}

func (b *pngBuffers) Put(eb *png.EncoderBuffer) { b.pool.Put(eb) }

// heatColors is ColorBrewer's 9-class sequential "YlOrRd" (Cynthia Brewer, colorbrewer2.org),
// the heat map's scale. Spelled out rather than taken from gonum's palette/brewer, whose
// package initialisation builds every ColorBrewer palette in every command (a `sim` pays
// nothing for plotting).
var heatColors = []color.Color{
	color.RGBA{0xff, 0xff, 0xcc, 0xff}, color.RGBA{0xff, 0xed, 0xa0, 0xff}, color.RGBA{0xfe, 0xd9, 0x76, 0xff},
	color.RGBA{0xfe, 0xb2, 0x4c, 0xff}, color.RGBA{0xfd, 0x8d, 0x3c, 0xff}, color.RGBA{0xfc, 0x4e, 0x2a, 0xff},
	color.RGBA{0xe3, 0x1a, 0x1c, 0xff}, color.RGBA{0xbd, 0x00, 0x26, 0xff}, color.RGBA{0x80, 0x00, 0x26, 0xff},
}

// heatPalette is heatColors as the heat map's palette.
type heatPalette struct{}

func (heatPalette) Colors() []color.Color { return heatColors }

var _ palette.Palette = heatPalette{}

// heatScale returns the colour domain of a heat map and what the caption must say about
// it. The domain is the cells' range, widened around its middle to at least 10% of the
// largest |value| and at least the typical 95% interval (twice the median half-width),
// so a spread of 0.7% or one within replicate noise does not run from the palest to the
// darkest colour.
func heatScale(g *grid) (lo, hi float64, note string) {
	lo, hi = math.Inf(1), math.Inf(-1)
	var halves []float64
	for i := range g.Val {
		for j, v := range g.Val[i] {
			if math.IsNaN(v) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
			if h := g.Half[i][j]; !math.IsNaN(h) {
				halves = append(halves, h)
			}
		}
	}
	if math.IsInf(lo, 0) { // no cell has a value
		return 0, 1, "No cell has a value."
	}
	spread := hi - lo
	typical := math.NaN()
	if len(halves) > 0 {
		slices.Sort(halves)
		typical = 2 * halves[len(halves)/2]
	}
	span := math.Max(spread, 0.1*math.Max(math.Abs(lo), math.Abs(hi)))
	if !math.IsNaN(typical) {
		span = math.Max(span, typical)
	}
	switch {
	case spread == 0:
		note = fmt.Sprintf("Every cell is %s.", ci.Num(lo))
	case !math.IsNaN(typical) && spread < typical:
		note = fmt.Sprintf("The spread between cells (%s) is less than the width of a typical cell's 95%% interval (%s, ±%s): these colours show replicate noise, not an effect.", ci.Num(spread), ci.Num(typical), ci.Num(typical/2))
	case span > spread:
		note = fmt.Sprintf("The cells span %s (%.1f%% of the largest value); the colour scale covers %s so that a small spread looks small.", ci.Num(spread), 100*spread/math.Max(math.Abs(lo), math.Abs(hi)), ci.Num(span))
	}
	if span == 0 {
		span = math.Max(math.Abs(lo)*0.2, 1)
	}
	mid := (lo + hi) / 2
	lo, hi = mid-span/2, mid+span/2
	if lo < 0 && g.nonNegative() { // counts and times: keep the scale from 0
		lo, hi = 0, span
	}
	return lo, hi, note
}

// nonNegative reports whether no cell is negative.
func (g *grid) nonNegative() bool {
	for i := range g.Val {
		for _, v := range g.Val[i] {
			if v < 0 {
				return false
			}
		}
	}
	return true
}

// stepMap is heatColors as a palette.ColorMap for the colour bar: value v gets the colour
// the heat map gives it (index round((v-min)/(max-min)·(n-1)), as plotter.HeatMap does).
type stepMap struct{ min, max float64 }

func (m *stepMap) At(v float64) (color.Color, error) {
	k := int((v-m.min)/(m.max-m.min)*float64(len(heatColors)-1) + 0.5)
	return heatColors[max(0, min(k, len(heatColors)-1))], nil
}
func (m *stepMap) Max() float64                { return m.max }
func (m *stepMap) SetMax(v float64)            { m.max = v }
func (m *stepMap) Min() float64                { return m.min }
func (m *stepMap) SetMin(v float64)            { m.min = v }
func (m *stepMap) Alpha() float64              { return 1 }
func (m *stepMap) SetAlpha(float64)            {}
func (m *stepMap) Palette(int) palette.Palette { return heatPalette{} }
func (numTicks) label(v float64) string {
	if l := ci.Num(v); l != "-0" { // a value that rounds to 0 is 0, not "-0"
		return l
	}
	return "0"
}
func (t numTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			v := ticks[i].Value
			if math.Abs(v) < 1e-9*(max-min) { // a rounding error of 0: never "-0"
				v = 0
			}
			ticks[i].Label = t.label(v + 0)
		}
	}
	return ticks
}

// numTicks labels an axis in the page's number format (package ci).
type numTicks struct{}

// heatmapChart draws g with one labelled cell per grid point (mean over replicates) and a
// colour bar on the right; cells no ok job reached are grey and labelled "-".
func heatmapChart(metric string, g *grid, w, h int) (*Chart, error) {
	p := plot.New()
	p.Title.Text = metric
	p.X.Label.Text = g.XAxis.Label
	p.Y.Label.Text = g.YAxis.Label
	hm := plotter.NewHeatMap(g, heatPalette{})
	hm.NaN = color.Gray{Y: 0xd0}
	lo, hi, note := heatScale(g)
	hm.Min, hm.Max = lo, hi
	// Values outside [lo, hi] cannot occur: the domain contains every cell.
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

	bar := plot.New()
	bar.Add(&plotter.ColorBar{ColorMap: &stepMap{lo, hi}, Vertical: true})
	bar.HideX()
	bar.Y.Min, bar.Y.Max = lo, hi
	bar.Y.Tick.Marker = numTicks{}
	bar.Y.Padding = 0
	img := func() ([]byte, error) { return renderWithBar(p, bar, w, h) }
	title := fmt.Sprintf("%s over %s × %s: mean over replicates", metric, g.XAxis.Label, g.YAxis.Label)
	if len(g.Over) > 0 {
		title += " and over " + strings.Join(g.Over, ", ")
	}
	return &Chart{ID: "heatmap-" + metric, Kind: "heatmap", Metric: metric, Title: title + ".", Note: note,
		Cells: cols * rows, Grid: g, draw: img, W: w, H: h}, nil
}

// renderWithBar draws p and, in a strip on its right, the colour bar plot.
func renderWithBar(p, bar *plot.Plot, w, h int) ([]byte, error) {
	c := newCanvas(w, h)
	dc := draw.New(c)
	width := dc.Max.X - dc.Min.X
	barW := vg.Length(math.Min(float64(width)*0.18, 80))
	p.Draw(draw.Crop(dc, 0, -barW, 0, 0))
	// Leave the main plot's title above and its axis label and ticks below.
	bar.Draw(draw.Crop(dc, width-barW+4, -28, 38, -24))
	return encodePNG(c)
}

func plotFont(size vg.Length) vgfont.Font {
	f := plot.DefaultFont
	f.Size = size
	return f
}

// errXYs is a line's points with their 95% half-widths, for plotter.YErrorBars.
type errXYs struct {
	plotter.XYs
	plotter.YErrors
}

// lineChart draws a metric over axis x, one line per level of axis by (nil: one line),
// each point the mean over replicates with its 95% interval as an error bar (further
// axes averaged per replicate first; the caption says which). A categorical x is an
// ordinal axis; numeric levels spanning a decade or more get a log axis.
func lineChart(metric string, jobs *resultsdir.Table, ok []bool, axes []*axis, x, by *axis, reps, w, h int) (*Chart, error) {
	pair := []*axis{x}
	if by != nil {
		pair = append(pair, by)
	}
	var over []string
	for _, a := range axes {
		if a != x && a != by {
			over = append(over, a.Label)
		}
	}
	cells := cellIntervals(jobs, ok, pair, jobs.Col(metric), reps)
	p := plot.New()
	p.Title.Text = metric
	p.X.Label.Text = x.Label
	p.Y.Label.Text = metric
	p.Y.Tick.Marker = numTicks{}
	p.Add(plotter.NewGrid())
	nLines := 1
	if by != nil {
		nLines = by.Len()
	}
	var all plotter.XYs
	var legend []legendItem
	nonNeg, clipped, drawn := true, false, 0
	mc := jobs.Col(metric)
	for r := range ok {
		if ok[r] && !mc.Null[r] && mc.Num[r] < 0 {
			nonNeg = false
		}
	}
	for j := 0; j < nLines; j++ {
		var pts errXYs
		for i := 0; i < x.Len(); i++ {
			iv, seen := cells[[2]int{i, j}]
			if !seen || iv.N == 0 {
				continue
			}
			half := iv.Half
			if math.IsNaN(half) {
				half = 0
			}
			low := half
			if nonNeg && iv.Mean-low < 0 { // a count or a time cannot be negative
				low, clipped = iv.Mean, true
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: x.xValue(i), Y: iv.Mean})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{low, half})
			all = append(all, plotter.XY{X: x.xValue(i), Y: iv.Mean - low}, plotter.XY{X: x.xValue(i), Y: iv.Mean + half})
		}
		if len(pts.XYs) == 0 {
			continue
		}
		line, marks, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return nil, err
		}
		col := plotutil.Color(j)
		line.Color, line.Width, marks.Color = col, vg.Points(1.5), col
		line.Dashes = plotutil.Dashes(j / len(plotutil.SoftColors))
		marks.Shape = plotutil.Shape(j)
		p.Add(line, marks)
		if reps > 1 {
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return nil, err
			}
			eb.Color = col
			p.Add(eb)
		}
		name := "mean"
		if by != nil {
			name = by.Short + "=" + by.Labels[j]
		}
		if by != nil { // one line needs no legend: the title names it
			legend = append(legend, legendItem{name, []plot.Thumbnailer{line, marks}})
		}
		drawn++
	}
	if lo, hi := yRange(all); lo == hi && !math.IsInf(lo, 0) {
		// A constant line: centre it in a ±10% window (±1 around 0) so the tick labels
		// show its value.
		pad := math.Abs(lo) * 0.1
		if pad == 0 {
			pad = 1
		}
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
	}
	if x.Num == nil {
		p.NominalX(x.Labels...)
	} else {
		p.X.Tick.Marker = levelTicks{x}
		if n := len(x.Num); n > 0 && x.Num[0] > 0 && x.Num[n-1] >= 4*x.Num[0] {
			// Levels spanning a factor of 4 or more (LossyAlpha 0.0625 … 4, Xoff 150KB … 1MB)
			// read best on a log axis; 5% margin (in log space) keeps points off the frame.
			p.X.Scale = plot.LogScale{}
			pad := math.Pow(x.Num[n-1]/x.Num[0], 0.05)
			p.X.Min, p.X.Max = x.Num[0]/pad, x.Num[n-1]*pad
		} else if n > 0 { // 5% margin so the end points are not on the frame
			pad := (x.Num[n-1] - x.Num[0]) * 0.05
			p.X.Min, p.X.Max = x.Num[0]-pad, x.Num[n-1]+pad
		}
	}
	img := func() ([]byte, error) { return renderLegendBelow(p, legend, w, h) }
	title := fmt.Sprintf("%s vs %s", metric, x.Label)
	if by != nil {
		title += fmt.Sprintf(", one line per %s", by.Label)
	}
	if reps > 1 {
		title += "; mean over replicates with 95% interval bars"
	} else {
		title += "; " + oneRep
	}
	if clipped {
		title += " (bars cut at 0: the metric is never negative)"
	}
	if len(over) > 0 {
		title += "; mean over " + strings.Join(over, ", ")
	}
	id := "line-" + metric + "-" + x.Column
	return &Chart{ID: id, Kind: "line", Metric: metric, Title: title + ".", Lines: drawn, draw: img, W: w, H: h}, nil
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

// seriesChart draws up to maxLines lines (the highest peaks) over simulated time, what
// in unit ("bytes" scaled to B, KB or MB by the highest peak; "µs", "Gbps" as they are),
// time in µs (ms from 10 ms on), the legend under the plot.
func seriesChart(id, title, what, unit string, lines []seriesLine, w, h int) (*Chart, error) {
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
	peak, end := math.Inf(-1), 0.0
	for _, l := range shown {
		peak = math.Max(peak, l.Peak)
		for _, xy := range l.XY {
			end = math.Max(end, xy.X)
		}
	}
	yScale, yUnit, tScale, tUnit := seriesUnits(unit, peak, end)
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "simulated time (" + tUnit + ")"
	p.Y.Label.Text = what + " (" + yUnit + ")"
	p.X.Tick.Marker = numTicks{}
	p.Y.Tick.Marker = numTicks{}
	p.Add(plotter.NewGrid())
	var legend []legendItem
	for i, l := range shown {
		xy := make(plotter.XYs, len(l.XY))
		for k, pt := range l.XY {
			xy[k] = plotter.XY{X: pt.X / tScale, Y: pt.Y / yScale}
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		ln.Color = plotutil.Color(i)
		ln.Dashes = plotutil.Dashes(i / len(plotutil.SoftColors)) // colours repeat after 7: dashes tell them apart
		ln.Width = vg.Points(1.2)
		p.Add(ln)
		legend = append(legend, legendItem{l.Name, []plot.Thumbnailer{ln}})
	}
	if p.Y.Min > 0 { // occupancy, pause time and rate start from zero
		p.Y.Min = 0
	}
	if p.Y.Max > 0 { // room above the peak, so that it does not run along the frame
		p.Y.Max *= 1.05
	}
	img := func() ([]byte, error) { return renderLegendBelow(p, legend, w, h) }
	return &Chart{ID: id, Kind: "series", Metric: what, Title: title, draw: img, W: w, H: h}, nil
}

// seriesUnits returns the scales and units of a time series' axes: a value in unit
// peaking at peak ("bytes" become B, KB or MB, decimal as the spec's sizes are; other
// units stay), over simulated time up to end µs (ms from 10,000 µs on). A value is
// divided by its scale.
func seriesUnits(unit string, peak, end float64) (yScale float64, yUnit string, tScale float64, tUnit string) {
	yScale, yUnit, tScale, tUnit = 1, unit, 1, "µs"
	if unit == "bytes" {
		switch {
		case peak >= 1e6:
			yScale, yUnit = 1e6, "MB"
		case peak >= 1e3:
			yScale, yUnit = 1e3, "KB"
		default:
			yUnit = "B"
		}
	}
	if end >= 1e4 {
		tScale, tUnit = 1e3, "ms"
	}
	return yScale, yUnit, tScale, tUnit
}

// legendItem is one entry of a legend drawn outside the plot.
type legendItem struct {
	Name   string
	Thumbs []plot.Thumbnailer
}

// renderLegendBelow draws p into a W x H pixel PNG with its legend in a strip under the
// plot, entries flowing left to right in rows, so that no entry covers data.
func renderLegendBelow(p *plot.Plot, items []legendItem, w, h int) ([]byte, error) {
	if len(items) == 0 {
		return render(p, w, h)
	}
	c := newCanvas(w, h)
	dc := draw.New(c)
	sty := text.Style{Color: color.Black, Font: plotFont(8), Handler: plot.DefaultTextHandler}
	thumb, gap, pad := vg.Points(16), vg.Points(12), vg.Points(4)
	rowH := sty.Height("Mg") + vg.Points(3)
	width := dc.Max.X - dc.Min.X
	type place struct {
		x, w vg.Length
		row  int
	}
	places := make([]place, len(items))
	x, row := pad, 0
	for i, it := range items {
		iw := thumb + sty.Width(" "+it.Name) + gap
		if x > pad && x+iw > width-pad {
			x, row = pad, row+1
		}
		places[i] = place{x, iw, row}
		x += iw
	}
	strip := vg.Length(row+1)*rowH + 2*pad
	p.Draw(draw.Crop(dc, 0, 0, strip, 0))
	for i, it := range items {
		l := plot.NewLegend()
		l.TextStyle, l.Left, l.Top, l.ThumbnailWidth = sty, true, true, thumb
		l.Add(it.Name, it.Thumbs...)
		pl := places[i]
		top := dc.Min.Y + strip - pad - vg.Length(pl.row)*rowH
		l.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: dc.Min.X + pl.x, Y: top - rowH}, Max: vg.Point{X: dc.Min.X + pl.x + pl.w, Y: top}}})
	}
	return encodePNG(c)
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
