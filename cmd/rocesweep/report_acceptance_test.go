package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// TestCIAcceptance is the report and compare acceptance on a fresh results directory of
// configs/ci.yaml: report writes one heatmap per summary metric with as many cells as
// the grid has points, its PNGs are non-blank images of the stated size; compare of the
// directory with itself exits 0, and with one metric perturbed through the real writer
// exits 1 naming the job and metric. Skipped with -short (it runs the CI sweep).
func TestCIAcceptance(t *testing.T) {
	if testing.Short() {
		t.Skip("runs configs/ci.yaml")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ci")
	var out, errb bytes.Buffer
	if code := mainWithArgs(ctx, []string{"run", "../../configs/ci.yaml", "-o", dir}, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errb.String())
	}
	const gridPoints = 6 // configs/ci.yaml: 3 LossyAlpha x 2 Xoff, 1 replicate

	html, pngs := filepath.Join(t.TempDir(), "r.html"), filepath.Join(t.TempDir(), "png")
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	if jobs.Rows != gridPoints {
		t.Fatalf("jobs has %d rows, want %d", jobs.Rows, gridPoints)
	}
	worst := jobs.Col("job_id").Str[0]
	out.Reset()
	errb.Reset()
	if code := mainWithArgs(ctx, []string{"report", dir, "-o", html, "--png", pngs, "--job", worst}, &out, &errb); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, errb.String())
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	// The top of the page answers; the effective configuration is what ran (the spec and
	// its --set), with the swept values.
	for _, want := range []string{`id="headline"`, `<h2 id="answers">`, "<td><code>switch.SharedBufferManager.TotalSharedBufferSize</code></td><td>4MB</td>",
		"<td><code>duration</code></td><td>300us</td>", "swept: 0.25, 1, 4", `<h2 id="perf">Simulator performance</h2>`} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report page lacks %q", want)
		}
	}
	if i, j := bytes.Index(page, []byte(`id="headline"`)), bytes.Index(page, []byte(`id="config"`)); i < 0 || j < i {
		t.Errorf("the answers do not come before the configuration")
	}
	// One heat map per summary metric that varies; the others are listed as one value at
	// every point.
	rep, err := report.Build(dir, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	uniform := 0
	for _, u := range rep.Uniform {
		uniform += len(u.Metrics)
	}
	figs := regexp.MustCompile(`class="heatmap" id="heatmap-[a-z0-9_]+" data-cells="(\d+)"`).FindAllSubmatch(page, -1)
	if want := len(stats.MetricNames) - len(report.PerfMetrics) - uniform; len(figs) != want || len(figs) != len(rep.Metrics) {
		t.Fatalf("%d heatmaps, want one per summary metric that varies (%d)", len(figs), want)
	}
	for _, f := range figs {
		if n, _ := strconv.Atoi(string(f[1])); n != gridPoints {
			t.Fatalf("heatmap with %d cells, want %d", n, gridPoints)
		}
	}
	files, _ := filepath.Glob(filepath.Join(pngs, "*.png"))
	if len(files) < len(rep.Charts()) {
		t.Fatalf("%d PNG files", len(files))
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 480 {
			t.Fatalf("%s: %v, want 640x480", p, b)
		}
		var sum, sq, n float64
		for y := 0; y < 480; y += 2 {
			for x := 0; x < 640; x += 2 {
				r, g, bl, _ := img.At(x, y).RGBA()
				l := float64(r+g+bl) / 3 / 257
				sum, sq, n = sum+l, sq+l*l, n+1
			}
		}
		if v := sq/n - (sum/n)*(sum/n); v < 100 {
			t.Fatalf("%s: blank (variance %.1f)", p, v)
		}
	}

	if code := mainWithArgs(ctx, []string{"compare", dir, dir}, &out, &errb); code != 0 {
		t.Fatalf("compare with itself: exit %d\n%s", code, errb.String())
	}
	cp := filepath.Join(t.TempDir(), "perturbed")
	err = resultstest.Copy(dir, cp, func(tb *resultsdir.Table) {
		if tb.Name == "jobs" {
			// The lossless p99: reached in every job of ci.yaml (its all-class p99 is not,
			// records.md RC-24: lossy messages still wait on their timers at the end).
			c := tb.Col("fct_p99_usec_lossless")
			c.Num[2] = c.Num[2]*1.01 + 1
			c.Null[2] = false
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := mainWithArgs(ctx, []string{"compare", dir, cp}, &out, &errb); code != 1 {
		t.Fatalf("compare with a perturbed copy: exit %d, want 1\n%s", code, out.String())
	}
	if id := jobs.Col("job_id").Str[2]; !strings.Contains(errb.String(), "job "+id+" fct_p99_usec_lossless") {
		t.Fatalf("stderr does not name job %s and fct_p99_usec_lossless:\n%s", id, errb.String())
	}
}
