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

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/report"
)

func TestReportCommand(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
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
	// One heat map per summary metric that varies (the others take one line, no chart);
	// line charts for the headline's metric only; 4 time series of the job.
	r, err := report.Build(dir, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	uniform := 0
	for _, u := range r.Uniform {
		uniform += len(u.Metrics)
	}
	varying := len(stats.MetricNames) - len(report.PerfMetrics) - uniform
	cells := regexp.MustCompile(`class="heatmap" id="[^"]+" data-cells="6"`).FindAll(page, -1)
	if len(cells) != varying || varying < 10 {
		t.Fatalf("%d heatmaps of 6 cells, want %d", len(cells), varying)
	}
	files, _ := filepath.Glob(filepath.Join(pngs, "*.png"))
	if want := varying + 2 + 4; len(files) != want {
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
	if code := mainWithArgs(context.Background(), []string{"report", dir, "--job", "zzz", "-o", html}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "zzz") {
		t.Errorf("unknown job: exit %d, stderr %s", code, errb.String())
	}
}

// The effective configuration is the spec with the run's --set applied: a non-swept
// override shows its new value, swept attributes their values, defaults are left out.
func TestEffectiveConfig(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--set", "duration=200us", "--set", "replicates=1"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	eff, err := effectiveConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range eff {
		got[s.Name] = s.Value
	}
	want := map[string]string{"duration": "200us", "topology.hosts": "8", "workload.senders": "7",
		"switch.SharedBufferManager.LossyAlpha": "swept: 0.25, 0.5, 1, 2"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, ok := got["replicates"]; ok {
		t.Errorf("replicates=1 is the default but listed: %v", got)
	}
	if _, ok := got["global.Mtu"]; ok {
		t.Errorf("a default is listed: %v", got)
	}
}

// Arrow IPC results are read back by the closing table as Parquet ones are: the table of
// the whole directory, one cell per grid point, with no fallback to this session's jobs.
func TestClosingTableArrow(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	code, out, stderr, _ := runMain(t, "run", spec, "-o", dir, "--format", "arrow", "--set", "replicates=1")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "closing table of this session's jobs only") || !strings.Contains(out, "switch.LossyAlpha \\ switch.StaticPoolXoffThreshold") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, stderr)
	}
}

// Tier blocks and swept tier attributes are part of the effective configuration (they
// were once left out entirely), and a swept tier attribute keeps its tier in a point's
// label: "spine.StaticPoolXoffThreshold=100KB", not the plain switch's name.
func TestEffectiveConfigTiers(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, `name: tiers
duration: 100us
topology: {kind: leaf-spine, leaves: 2, spines: 1, hosts_per_leaf: 2}
workload: {kind: incast, senders: 3, message_size: 64KiB}
tiers:
  rack: {uplink: {rate: 800Gbps}}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1]
    tiers.spine.switch.StaticPoolXoffThreshold: [100KB, 200KB]
`)
	dir := filepath.Join(t.TempDir(), "out")
	code, out, stderr, _ := runMain(t, "run", spec, "-o", dir)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	eff, err := effectiveConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range eff {
		got[s.Name] = s.Value
	}
	for k, v := range map[string]string{"tiers.rack.uplink.rate": "800Gbps", "tiers.spine.switch.SharedBufferManager.StaticPoolXoffThreshold": "swept: 100KB, 200KB"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (effective configuration %v)", k, got[k], v, got)
		}
	}
	if !strings.Contains(out, "spine.StaticPoolXoffThreshold=") {
		t.Errorf("the closing table does not name the spine's Xoff:\n%s", out)
	}
}
