package report_test

import (
	"bytes"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// CheckPNG decodes a PNG file and checks its size and that it is not blank: the
// variance of the pixels' luminance must exceed a small floor (a blank or single-colour
// image has 0).
func checkPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("%s: %dx%d, want %dx%d", path, b.Dx(), b.Dy(), w, h)
	}
	if v := variance(img); v < 100 {
		t.Fatalf("%s: luminance variance %.1f: blank image", path, v)
	}
}

// variance is the variance of the pixels' luminance (0..255). The charts decode to
// *image.RGBA, whose bytes are read directly (At would box every pixel's colour); they
// are opaque, so the premultiplied bytes are the colour.
func variance(img image.Image) float64 {
	var sum, sq, n float64
	add := func(r, g, b float64) {
		l := 0.299*r + 0.587*g + 0.114*b
		sum += l
		sq += l * l
		n++
	}
	b := img.Bounds()
	if rgba, ok := img.(*image.RGBA); ok && rgba.Opaque() {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := rgba.Pix[rgba.PixOffset(b.Min.X, y):rgba.PixOffset(b.Max.X, y)]
			for i := 0; i < len(row); i += 4 {
				add(float64(row[i]), float64(row[i+1]), float64(row[i+2]))
			}
		}
	} else {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				add(float64(r)/257, float64(g)/257, float64(bl)/257)
			}
		}
	}
	m := sum / n
	return sq/n - m*m
}

func TestReportGrid(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := filepath.Join(t.TempDir(), "res")
	alphas, xoffs := []float64{0.25, 0.5, 1, 2}, []float64{200e3, 400e3, 700e3}
	if err := resultstest.Write(dir, resultstest.Grid(alphas, xoffs, 2, true)); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(dir, report.Options{Jobs: []string{"j0003"}, Width: 480, Height: 320})
	if err != nil {
		t.Fatal(err)
	}
	if r.Rows != 24 || r.OK != 23 || len(r.Failures) != 1 || r.Failures[0].JobID != "j0024" {
		t.Fatalf("rows %d ok %d failures %+v", r.Rows, r.OK, r.Failures)
	}
	if !strings.Contains(r.Failures[0].Params, "switch.LossyAlpha=2") || !strings.Contains(r.Failures[0].Params, "switch.StaticPoolXoffThreshold=700KB") {
		t.Fatalf("failure params %q", r.Failures[0].Params)
	}
	heat := map[string]int{}
	lines := 0
	for _, c := range r.Charts() {
		switch c.Kind {
		case "heatmap":
			heat[c.Metric] = c.Cells
		case "line":
			lines++
		}
	}
	// The metrics with one value at every point take one line, no chart: the synthetic
	// grid leaves them 0 (or fixes them).
	if want := "0 at every point: drops_lossless, nic_rx_drops, retransmits, data_packets, stuck_pause_ports, cct_iterations, cct_p50_usec, cct_max_usec, busbw_gbps; " +
		"15.73M at every point: bytes_delivered; 15 at every point: msgs_started, msgs_completed, msgs_host_completed; 150 at every point: msgs_started_lossless, msgs_completed_lossless; " +
		"300 at every point: msgs_started_lossy, msgs_completed_lossy; 1 at every point: completed_frac_lossless, completed_frac_lossy."; r.UniformLine() != want {
		t.Errorf("uniform line %q\nwant         %q", r.UniformLine(), want)
	}
	uniform := 0
	for _, u := range r.Uniform {
		uniform += len(u.Metrics)
	}
	// The headline's metric (no objective in these results) in full: a heat map and a
	// line chart over each axis; every other metric a heat map under All metrics.
	charted := len(stats.MetricNames) - len(report.PerfMetrics) - uniform
	if len(heat) != charted || lines != 2 || charted != 22 {
		t.Fatalf("%d heatmaps, %d line charts; want %d (22) and 2", len(heat), lines, charted)
	}
	if f := r.FocusMetrics(); len(f) != 1 || f[0].Metric != "fct_p99_usec_lossless" || len(f[0].Charts) != 3 {
		t.Fatalf("focus metrics %+v", f)
	}
	for m, n := range heat {
		if n != len(alphas)*len(xoffs) {
			t.Fatalf("heatmap %s has %d cells, want %d", m, n, len(alphas)*len(xoffs))
		}
	}
	// Replicates averaged: alpha 0.25, Xoff 200KB holds replicates 0 and 1 (fct_p99 =
	// 400 + 40*0.25 + 40 + {0, 0.01}).
	k := slices.IndexFunc(r.Metrics, func(mc report.MetricCharts) bool { return mc.Metric == "fct_p99_usec" })
	if k < 0 {
		t.Fatal("no fct_p99_usec charts")
	}
	g := r.Metrics[k].Charts[0].Grid
	if g.N[0][0] != 2 || g.Val[0][0] != (450+450.01)/2 || math.Abs(g.Half[0][0]-12.706205*0.005) > 1e-9 {
		t.Fatalf("fct_p99_usec cell (0,0) = %v ± %v over %d jobs", g.Val[0][0], g.Half[0][0], g.N[0][0])
	}
	// The answers: the lossless class's p99 FCT (80 + 10α + Xoff/10⁴ + 0.01·replicate) is
	// lowest at the smallest alpha and Xoff; every replicate pair differs by 0.01, so the
	// paired differences to the neighbours are exact.
	if len(r.Answers) == 0 || r.Answers[0].Metric != "fct_p99_usec_lossless" || r.Answers[0].Best != "LossyAlpha=0.25, StaticPoolXoffThreshold=200KB" {
		t.Fatalf("answers %+v", r.Answers)
	}
	if want := "Lowest p99 FCT of the lossless traffic (µs): LossyAlpha=0.25, StaticPoolXoffThreshold=200KB, 102.5 ± 0.064 (p99 of 150 messages); better than every other point beyond the noise."; r.Headline != want {
		t.Errorf("headline %q\nwant     %q", r.Headline, want)
	}
	// α 0.25 → 0.5 adds 2.5 µs, Xoff 200KB → 400KB adds 20 µs.
	if nb := r.Answers[0].Neighbours; len(nb) != 2 || nb[0].Change != "LossyAlpha 0.25 → 0.5" || nb[0].Delta != "2.5 ± 0" || !nb[0].Clear ||
		nb[1].Delta != "20 ± 0" {
		t.Errorf("neighbours %+v", nb)
	}
	// drops_lossy = 100α ties over the three Xoff levels: the best has 2 equals and the
	// runner-up is the next alpha, 25 drops more in every replicate.
	k = slices.IndexFunc(r.Answers, func(a report.Answer) bool { return a.Metric == "drops_lossy" })
	if a := r.Answers[k]; k < 0 || a.Equal != 2 || !strings.HasPrefix(a.RunnerUp, "LossyAlpha=0.5,") || a.Delta != "25 ± 0" || a.Tied != 2 {
		t.Errorf("drops_lossy answer %+v", r.Answers[k])
	}
	// Drops and the lossless FCT both grow with alpha and Xoff: the front is one point.
	if r.Pareto == nil || len(r.Pareto.Points) != 1 || r.Pareto.Points[0].Point != "LossyAlpha=0.25, StaticPoolXoffThreshold=200KB" || r.Pareto.Y != "fct_p99_usec_lossless" {
		t.Errorf("Pareto front %+v", r.Pareto)
	}
	if len(r.Perf) != 4 || r.Perf[0].Metric != "sim_time_sec" {
		t.Errorf("perf rows %+v", r.Perf)
	}
	if len(r.Series) != 1 || len(r.Series[0].Charts) != 4 {
		t.Fatalf("series %+v", r.Series)
	}
	if !strings.HasPrefix(r.Series[0].Intervals, "Every interval table is sampled every") {
		t.Errorf("series intervals note %q", r.Series[0].Intervals)
	}
	// Line charts: one line per level of the other axis (3 Xoff levels over alpha, 4
	// alphas over Xoff).
	for _, c := range r.FocusMetrics()[0].Charts[1:] {
		want := map[string]int{"line-fct_p99_usec_lossless-switch_LossyAlpha": 3, "line-fct_p99_usec_lossless-switch_StaticPoolXoffThreshold": 4}[c.ID]
		if c.Lines != want || !strings.Contains(c.Title, "one line per") {
			t.Errorf("%s: %d lines, want %d (%s)", c.ID, c.Lines, want, c.Title)
		}
	}

	var html bytes.Buffer
	if err := r.WriteHTML(&html); err != nil {
		t.Fatal(err)
	}
	page := html.String()
	if strings.Contains(page, "http://") || strings.Contains(page, "https://") || strings.Contains(page, "<script") {
		t.Fatal("page refers to the network or runs scripts")
	}
	figs := regexp.MustCompile(`<figure class="heatmap" id="heatmap-([a-z0-9_]+)" data-cells="(\d+)">`).FindAllStringSubmatch(page, -1)
	if len(figs) != charted {
		t.Fatalf("%d heatmap figures in the page, want %d", len(figs), charted)
	}
	for _, f := range figs {
		if n, _ := strconv.Atoi(f[2]); n != 12 {
			t.Fatalf("heatmap %s: data-cells %s", f[1], f[2])
		}
	}
	// The value table under each heatmap has one cell per grid point.
	tables := regexp.MustCompile(`(?s)<table class="grid" data-metric="([a-z0-9_]+)">(.*?)</table>`).FindAllStringSubmatch(page, -1)
	if len(tables) != charted {
		t.Fatalf("%d value tables", len(tables))
	}
	for _, tb := range tables {
		if n := strings.Count(tb[2], `<td class="cell"`); n != 12 {
			t.Fatalf("value table %s has %d cells, want 12", tb[1], n)
		}
	}
	if n := strings.Count(page, `src="data:image/png;base64,`); n != len(r.Charts()) {
		t.Fatalf("%d embedded images, want %d", n, len(r.Charts()))
	}
	// The other metrics are folded under All metrics, closed.
	if i, j := strings.Index(page, `<details id="all-metrics">`), strings.Index(page, `id="heatmap-fct_p99_usec"`); i < 0 || j < i {
		t.Errorf("fct_p99_usec is not under a closed All metrics")
	}
	for _, want := range []string{"synthetic", "j0024", "headroom exceeds TotalSharedBufferSize", "switch.LossyAlpha", "Job j0003"} {
		if !strings.Contains(page, want) {
			t.Fatalf("page lacks %q", want)
		}
	}

	pngDir := filepath.Join(t.TempDir(), "png")
	paths, err := r.WritePNGs(pngDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(r.Charts()) {
		t.Fatalf("%d PNG files, want %d", len(paths), len(r.Charts()))
	}
	for _, p := range paths {
		checkPNG(t, p, 480, 320)
	}
}

func TestReportOneAxisAndErrors(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := filepath.Join(t.TempDir(), "res")
	s := resultstest.Grid([]float64{0.5, 1, 2}, []float64{700e3}, 3, false)
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	// The manifest lists two axes, but Xoff has one value: both remain axes (manifest
	// wins), so lines come per axis; a heatmap of 3 x 1 cells.
	r, err := report.Build(dir, report.Options{Metrics: []string{"drops_total"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.Charts()); got != 3 {
		t.Fatalf("%d charts, want heatmap + 2 lines", got)
	}
	if c := r.Charts()[0]; c.Cells != 3 {
		t.Fatalf("cells %d", c.Cells)
	}
	if _, err := report.Build(dir, report.Options{Metrics: []string{"drops"}}); err == nil || !strings.Contains(err.Error(), "drops") {
		t.Fatalf("unknown metric: %v", err)
	}
	if _, err := report.Build(dir, report.Options{Jobs: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("unknown job: %v", err)
	}
	if _, err := report.Build(t.TempDir(), report.Options{}); err == nil || !strings.Contains(err.Error(), "not a results directory") {
		t.Fatalf("empty dir: %v", err)
	}
}

// No job finished ok: the page says so and draws nothing.
func TestReportNoJobOK(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	s := resultstest.Grid([]float64{0.5, 1}, []float64{700e3}, 1, false)
	for i := range s.Jobs {
		s.Jobs[i].Status, s.Jobs[i].Error = "failed", "boom"
	}
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(dir, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Charts()) != 0 || len(r.Answers) != 0 || r.Headline != "" {
		t.Fatalf("%d charts, %d answers, headline %q; want none", len(r.Charts()), len(r.Answers), r.Headline)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil || !strings.Contains(b.String(), "No job finished ok") || strings.Contains(b.String(), "<img") {
		t.Fatalf("page: %v\n%s", err, b.String())
	}
}

// Three axes: the heat maps and line charts average the third per replicate and say so.
func TestReportThreeAxes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	s := resultstest.Sweep{Name: "three", Axes: []string{"switch.LossyAlpha", "switch.StaticPoolXoffThreshold", "switch.StaticPoolXonThreshold"}}
	n := 0
	for _, a := range []float64{0.5, 1} {
		for _, x := range []float64{200e3, 700e3} {
			for _, xon := range []float64{50e3, 100e3} {
				for r := 0; r < 2; r++ {
					n++
					j := resultstest.Job{ID: "j" + strconv.Itoa(n), Status: "ok", Replicate: int64(r), Params: []float64{a, x, xon}}
					j.Summary.FctP99UsecLossless = 100*a + x/1e4 + xon/1e4 + float64(r)
					s.Jobs = append(s.Jobs, j)
				}
			}
		}
	}
	if err := resultstest.Write(dir, s); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(dir, report.Options{Metrics: []string{"fct_p99_usec_lossless"}, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	cs := r.Charts()
	if len(cs) != 4 || !strings.Contains(cs[0].Title, "and over switch.StaticPoolXonThreshold") {
		t.Fatalf("%d charts; heat map title %q", len(cs), cs[0].Title)
	}
	// Cell (0.5, 200KB): replicate 0 averages Xon 50KB and 100KB: 50 + 20 + 7.5 = 77.5; replicate 1 78.5.
	if g := cs[0].Grid; g.Val[0][0] != 78 || g.N[0][0] != 2 {
		t.Errorf("cell (0,0) = %v over %d replicates, want 78 over 2", g.Val[0][0], g.N[0][0])
	}
	if !strings.Contains(cs[3].Title, "mean over switch.StaticPoolXoffThreshold") || cs[3].Lines != 2 {
		t.Errorf("line chart over the third axis: %q, %d lines", cs[3].Title, cs[3].Lines)
	}
	if len(r.Notes) == 0 || !strings.Contains(r.Notes[0], "each cell the mean over switch.StaticPoolXonThreshold") {
		t.Errorf("notes %v", r.Notes)
	}
	if len(r.Answers) == 0 || r.Answers[0].Best != "LossyAlpha=0.5, StaticPoolXoffThreshold=200KB, StaticPoolXonThreshold=50KB" {
		t.Errorf("answers %+v", r.Answers)
	}
}

// A table sampled at another interval than the others (one report_interval does not
// drive) is named on the page.
func TestReportSeriesIntervalsDiffer(t *testing.T) {
	base := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(base, resultstest.Grid([]float64{0.5, 1}, []float64{700e3}, 1, false)); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "slow")
	err := resultstest.Copy(base, dir, func(tb *resultsdir.Table) {
		if tb.Name == "buffer_stats" {
			for i := range tb.Col("sim_time_sec").Num {
				tb.Col("sim_time_sec").Num[i] *= 10
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(dir, report.Options{Metrics: []string{"drops_total"}, Jobs: []string{"j0001"}, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	note := r.Series[0].Intervals
	if !strings.Contains(note, "report_interval does not drive all of them") || !strings.Contains(note, "buffer_stats every") {
		t.Errorf("note %q", note)
	}
}
