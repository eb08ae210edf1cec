package report_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// An axis that changes no output at any point is named dead in the report and in the
// closing table; the synthetic grid, where both axes act, has none. Here every output of
// the 3 × 2 grid is made a function of Xoff and the replicate alone.
func TestDeadAxis(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		dead bool
	}{{"both axes act", false}, {"alpha dead", true}} {
		st := study{Sweep: resultstest.Grid([]float64{0.25, 1, 4}, []float64{200e3, 400e3}, 3, false)}
		if c.dead {
			st.Edit = func(tb *resultsdir.Table) {
				x, rep := tb.Col("switch_StaticPoolXoffThreshold"), tb.Col("replicate")
				for _, col := range tb.Columns {
					switch col.Name {
					case "switch_LossyAlpha", "switch_StaticPoolXoffThreshold", "replicate", "seed", "wall_sec", "events_per_sec":
						continue
					}
					if !col.IsString() {
						addColumn(tb, col.Name, func(r int) float64 { return x.Num[r]/1e3 + rep.Num[r] })
					}
				}
			}
		}
		dir := st.write(t, filepath.Join(t.TempDir(), "res"))
		r, err := report.Build(dir, report.Options{Width: 300, Height: 200})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := report.Pivot(&b, dir, "", nil); err != nil {
			t.Fatal(err)
		}
		want := []string(nil)
		if c.dead {
			want = []string{"switch.LossyAlpha"}
		}
		if !reflect.DeepEqual(r.Dead, want) || strings.Contains(b.String(), "a dead axis: switch.LossyAlpha changes no output") != c.dead {
			t.Errorf("%s: Dead %v; closing table:\n%s", c.name, r.Dead, b.String())
		}
	}
}

// The closing table of a partial run says it is partial and gives the range of
// replicates, not the full count (it once said "over 5 replicates" when a point had 4).
func TestPivotPartialHeader(t *testing.T) {
	t.Parallel()
	st := study{Sweep: resultstest.Grid([]float64{0.25, 1}, []float64{200e3, 400e3}, 5, true)} // the last job failed
	dir := st.write(t, filepath.Join(t.TempDir(), "res"))
	var b strings.Builder
	if err := report.Pivot(&b, dir, "fct_p99_usec", nil); err != nil {
		t.Fatal(err)
	}
	want := "fct_p99_usec (µs): mean ± 95% CI over 4 to 5 replicates (1 point has fewer than 5: a job failed or did not run):"
	if first := strings.SplitN(b.String(), "\n", 2)[0]; first != want {
		t.Errorf("header\n got %q\nwant %q", first, want)
	}
}
