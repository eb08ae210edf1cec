package report

import (
	"testing"

	"gonum.org/v1/plot"
)

// Time series read in units: bytes as B, KB or MB by the peak, time in µs or, from
// 10 ms on, ms.
func TestSeriesUnits(t *testing.T) {
	for _, c := range []struct {
		unit      string
		peak, end float64
		yScale    float64
		yUnit     string
		tScale    float64
		tUnit     string
	}{
		{"bytes", 2.5e6, 250, 1e6, "MB", 1, "µs"},
		{"bytes", 230e3, 250, 1e3, "KB", 1, "µs"},
		{"bytes", 900, 250, 1, "B", 1, "µs"},
		{"Gbps", 400, 1e4, 1, "Gbps", 1e3, "ms"},
		{"µs", 50, 9999, 1, "µs", 1, "µs"},
	} {
		ys, yu, ts, tu := seriesUnits(c.unit, c.peak, c.end)
		if ys != c.yScale || yu != c.yUnit || ts != c.tScale || tu != c.tUnit {
			t.Errorf("%s peak %g end %g: %g %s, %g %s", c.unit, c.peak, c.end, ys, yu, ts, tu)
		}
	}
}

// Tick labels are in the page's number format and never "-0" (a constant 0 drawn in a
// window around it).
func TestNumTicks(t *testing.T) {
	for _, r := range [][2]float64{{-1, 1}, {-1e-12, 1e-12}, {0, 2.5e6}} {
		for _, tk := range (numTicks{}).Ticks(r[0], r[1]) {
			if tk.Label == "-0" || (tk.Label != "" && len(tk.Label) > 6) {
				t.Errorf("range %v: tick %g labelled %q", r, tk.Value, tk.Label)
			}
		}
	}
	if got := (numTicks{}).Ticks(0, 2.5e6); !hasLabel(got, "2000k") { // package ci's format, not "2000000.00"
		t.Errorf("ticks of 0..2.5e6: %v", got)
	}
}

func hasLabel(ts []plot.Tick, l string) bool {
	for _, t := range ts {
		if t.Label == l {
			return true
		}
	}
	return false
}
