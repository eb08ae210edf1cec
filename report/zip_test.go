package report_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/report"
)

// A zip group is one axis: configs/pcie-gen3.yaml's first design, two lane counts against the Xoff
// vectors, in the heat map, the closing table and the neighbours of the answers.
func TestZipGroupIsOneAxis(t *testing.T) {
	dir := pcieGen3(2).write(t, filepath.Join(t.TempDir(), "res"))
	r, err := report.Build(dir, report.Options{Metrics: []string{"fct_p99_usec_lossless"}, Width: 300, Height: 200})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Axes, " × "); got != "nic.HostInterface.{NICSide,HostSide}.PhysicalLayer.LaneCount × nic.PfcStaticXoffThreshold" {
		t.Fatalf("axes %s", got)
	}
	cs := r.Charts()
	if len(cs) != 3 || cs[0].Cells != 9 {
		t.Fatalf("%d charts, heat map of %d cells; want 3 charts and 3 x 3 cells", len(cs), cs[0].Cells)
	}
	g := cs[0].Grid
	if strings.Join(g.XAxis.Labels, ",") != "4 / 4,8 / 8,16 / 16" {
		t.Errorf("heat map levels %v", g.XAxis.Labels)
	}
	// 100·16/lanes + 10·xoff + 0.5·replicate, two replicates: every cell filled.
	for i, lanes := range []float64{4, 8, 16} {
		for j := range 3 {
			if want := 100*16/lanes + 10*float64(j) + 0.25; g.Val[i][j] != want || g.N[i][j] != 2 {
				t.Errorf("cell (%d, %d) = %v over %d, want %v over 2", i, j, g.Val[i][j], g.N[i][j], want)
			}
		}
	}
	a := r.Answers[0]
	if a.Best != "{NICSide,HostSide}.LaneCount=16 / 16, PfcStaticXoffThreshold=[0.5, 0.8, 0, 0, 0, 0, 0, 0]" || len(a.Neighbours) != 2 ||
		a.Neighbours[0].Change != "{NICSide,HostSide}.LaneCount 16 / 16 → 8 / 8" || a.Neighbours[0].Delta != "100 ± 0" ||
		a.Neighbours[1].Change != "PfcStaticXoffThreshold [0.5, 0.8, 0, 0, 0, 0, 0, 0] → [0.8, 0.8, 0, 0, 0, 0, 0, 0]" {
		t.Errorf("answer %+v", a)
	}
	var b strings.Builder
	if err := report.Pivot(&b, dir, "fct_p99_usec_lossless", nil); err != nil {
		t.Fatal(err)
	}
	want := `fct_p99_usec_lossless (µs): mean ± 95% CI over 2 replicates:
  nic.HostInterface.{NICSide,HostSide}.PhysicalLayer.LaneCount \ nic.PfcStaticXoffThreshold  [0.5, 0.8, 0, 0, 0, 0, 0, 0]  [0.8, 0.8, 0, 0, 0, 0, 0, 0]  [0.95, 0.8, 0, 0, 0, 0, 0, 0]
  4 / 4                                                                                                       400.2 ± 3.2                   410.2 ± 3.2                    420.2 ± 3.2
  8 / 8                                                                                                       200.2 ± 3.2                   210.2 ± 3.2                    220.2 ± 3.2
  16 / 16                                                                                                     100.2 ± 3.2                   110.2 ± 3.2                    120.2 ± 3.2
  p99 of 150 messages per job (msgs_started_lossless)
  lowest: {NICSide,HostSide}.LaneCount=16 / 16, PfcStaticXoffThreshold=[0.5, 0.8, 0, 0, 0, 0, 0, 0], 100.2 ± 3.2; neighbour − best, paired: {NICSide,HostSide}.LaneCount 16 / 16 → 8 / 8: 100 ± 0; PfcStaticXoffThreshold [0.5, 0.8, 0, 0, 0, 0, 0, 0] → [0.8, 0.8, 0, 0, 0, 0, 0, 0]: 10 ± 0
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
