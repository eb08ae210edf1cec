package report_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// study is a synthetic results directory with what run records in manifest.json for an
// objective, a sequential selection and zipped axes.
type study struct {
	Sweep     resultstest.Sweep
	Objective *question.Objective
	Select    *question.Config
	AxisZip   []int
	// Edit, if set, changes the jobs table before it is written (new columns, nulls).
	Edit func(t *resultsdir.Table)
}

// write writes st into dir.
func (st study) write(t *testing.T, dir string) string {
	t.Helper()
	st.Sweep.Intervals = 0 // no record tables: these tests read jobs and the manifest
	src := dir
	if st.Edit != nil {
		src = filepath.Join(t.TempDir(), "src")
	}
	if err := resultstest.Write(src, st.Sweep); err != nil {
		t.Fatal(err)
	}
	if st.Edit != nil {
		if err := resultstest.Copy(src, dir, func(tb *resultsdir.Table) {
			if tb.Name == "jobs" {
				st.Edit(tb)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "manifest.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(data, &man); err != nil {
		t.Fatal(err)
	}
	if st.Objective != nil {
		man["objective"] = st.Objective
	}
	if st.Select != nil {
		man["select"] = st.Select
	}
	if st.AxisZip != nil {
		man["axis_zip"] = st.AxisZip
	}
	if data, err = json.MarshalIndent(man, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// addColumn sets an int64 column of a table (appending it when the table lacks it), its
// value a function of the row.
func addColumn(tb *resultsdir.Table, name string, f func(row int) float64) {
	c := tb.Col(name)
	if c == nil {
		c = &resultsdir.Column{Name: name, Type: "int64", Num: make([]float64, tb.Rows), Null: make([]bool, tb.Rows)}
		tb.Columns = append(tb.Columns, c)
	}
	for r := range c.Num {
		c.Num[r], c.Null[r] = f(r), false
	}
}

// nullColumn makes every cell of a column null.
func nullColumn(tb *resultsdir.Table, name string) {
	c := tb.Col(name)
	for r := range c.Null {
		c.Null[r], c.Num[r] = true, math.NaN()
	}
}

// pcieGen3 is configs/pcie-gen3.yaml's first design (a grid; the spec now bisects the
// Xoff): both ends' lane counts zipped (4, 8, 16) on a grid with three NIC Xoff vectors,
// reps replicates. fct_p99_usec_lossless falls with
// the lanes and rises with the Xoff index: 100·16/lanes + 10·xoff.
func pcieGen3(reps int) study {
	xoffs := []string{"[0.5, 0.8, 0, 0, 0, 0, 0, 0]", "[0.8, 0.8, 0, 0, 0, 0, 0, 0]", "[0.95, 0.8, 0, 0, 0, 0, 0, 0]"}
	s := resultstest.Sweep{Name: "pcie-gen3", Axes: []string{"nic.HostInterface.NICSide.PhysicalLayer.LaneCount",
		"nic.HostInterface.HostSide.PhysicalLayer.LaneCount", "nic.PfcStaticXoffThreshold"}}
	n := 0
	for _, lanes := range []float64{4, 8, 16} {
		for x := range xoffs {
			for r := 0; r < reps; r++ {
				n++
				j := resultstest.Job{ID: fmt.Sprintf("j%04d", n), Status: "ok", Replicate: int64(r), Params: []float64{lanes, lanes, float64(x)}}
				j.Summary.FctP99UsecLossless = 100*16/lanes + 10*float64(x) + 0.5*float64(r)
				j.Summary.MsgsCompletedLossless = 150 // every p99 over 150 messages: no dagger
				j.Summary.MsgsStartedLossless = 150
				j.Summary.PfcPauseTx = int64(1000 / lanes)
				j.Summary.WallSec = 1
				s.Jobs = append(s.Jobs, j)
			}
		}
	}
	return study{Sweep: s, AxisZip: []int{0, 0, -1}, Edit: func(tb *resultsdir.Table) {
		// The Xoff vectors as the strings the real jobs table holds.
		c := tb.Col("nic_PfcStaticXoffThreshold")
		c.Type, c.Str = "string", make([]string, tb.Rows)
		for r, v := range c.Num {
			c.Str[r] = xoffs[int(v)]
		}
		c.Num = nil
	}}
}
