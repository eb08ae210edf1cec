package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/results/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
)

func TestReportCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1, 2}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	pngs := filepath.Join(t.TempDir(), "png")
	var out, errb bytes.Buffer
	code := mainWithArgs(context.Background(), []string{"report", dir, "-o", html, "--job", "j0002", "--png", pngs,
		"--width", "400", "--height", "300"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	cells := regexp.MustCompile(`class="heatmap" id="[^"]+" data-cells="6"`).FindAll(page, -1)
	if len(cells) != len(stats.MetricNames) {
		t.Fatalf("%d heatmaps of 6 cells, want %d", len(cells), len(stats.MetricNames))
	}
	files, _ := filepath.Glob(filepath.Join(pngs, "*.png"))
	if want := 3*len(stats.MetricNames) + 4; len(files) != want {
		t.Fatalf("%d PNG files, want %d", len(files), want)
	}
	f, err := os.Open(filepath.Join(pngs, "heatmap-drops_total.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 300 {
		t.Fatalf("PNG %v, want 400x300", b)
	}
	if !strings.Contains(out.String(), "wrote "+html) {
		t.Fatalf("stdout: %s", out.String())
	}

	for _, bad := range [][]string{{"report"}, {"report", dir, "--width", "10"}, {"report", dir, "--bogus"}} {
		out.Reset()
		errb.Reset()
		if code := mainWithArgs(context.Background(), bad, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", bad, code, errb.String())
		}
	}
	errb.Reset()
	if code := mainWithArgs(context.Background(), []string{"report", dir, "--job", "zzz", "-o", html}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "zzz") {
		t.Errorf("unknown job: exit %d, stderr %s", code, errb.String())
	}
}
