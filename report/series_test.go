package report

import (
	"testing"

	"gonum.org/v1/plot"

	"github.com/rocesweep/rocesweep/resultsdir"
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

// The send rate is one line per port: the 8 ports of a rack switch share component and
// nd_name, and must not be joined into one line that jumps between them.
func TestSeriesOnePortOneLine(t *testing.T) {
	tb := &resultsdir.Table{Name: "nd_stats", Rows: 16}
	col := func(name string, num []float64, str []string) {
		c := &resultsdir.Column{Name: name, Num: num, Str: str, Null: make([]bool, tb.Rows)}
		tb.Columns = append(tb.Columns, c)
	}
	var ts, ifid, rate []float64
	var comp, nd []string
	for k := 0; k < 2; k++ {
		for port := 0; port < 8; port++ {
			ts, ifid, rate = append(ts, float64(k+1)*50e-6), append(ifid, float64(port)), append(rate, float64(port))
			comp, nd = append(comp, "Rack-0.RackSwitch"), append(nd, "switch::EthNetDevice")
		}
	}
	col("sim_time_sec", ts, nil)
	col("component_name", nil, comp)
	col("nd_name", nil, nd)
	col("ifid", ifid, nil)
	col("tx_rate_Gbps", rate, nil)
	s := seriesSpecs[len(seriesSpecs)-1]
	lines, err := seriesOf(tb, s.filterCol, s.filterVal, s.value, s.key)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 8 || lines[7].Name != "Rack-0.RackSwitch 7" || len(lines[7].XY) != 2 || lines[7].Peak != 7 {
		t.Errorf("%d lines, last %+v", len(lines), lines[len(lines)-1])
	}
}
