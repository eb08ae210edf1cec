package report

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection/ci"
)

// JobSeries are the time-series charts of one job.
type JobSeries struct {
	JobID, Params string
	Charts        []*Chart
	Missing       []string // record tables this results directory lacks
	// Intervals is what the page says about the tables' sampling: each table's spacing
	// when they differ (a table report_interval does not drive), else the one spacing.
	Intervals string
}

// seriesSpec is one time-series chart of a job: value of table (where filterCol is
// filterVal) over simulated time, one line per distinct key.
type seriesSpec struct {
	table, filterCol, filterVal, value, title, what, unit, slug string
	key                                                         []string
}

// seriesSpecs are the charts of a job's time series. A line is one port (component and
// ifid): a switch's ports share their nd_name, so a key without ifid would join them
// into one zigzag.
var seriesSpecs = []seriesSpec{
	{"buffer_stats", "buff_id", "egressQueue", "ivl_max_bytes", "egress queue occupancy (interval max)", "occupancy", "bytes", "egress_queue", []string{"component_name", "uldl", "pool_num"}},
	{"buffer_stats", "buff_id", "sharedBuffer", "ivl_max_bytes", "pool occupancy (interval max)", "occupancy", "bytes", "pool", []string{"component_name", "pool_num"}},
	{"ecn_pfc_stats", "", "", "interval_total_time_xoff_usec", "PFC pause time received per interval", "paused", "µs", "pfc_pause", []string{"component_name", "ifid", "priority"}},
	{"nd_stats", "", "", "tx_rate_Gbps", "send rate per port", "send rate", "Gbps", "tx_rate", []string{"component_name", "ifid"}},
}

// jobSeries draws the interval records of one job: egress queue and pool occupancy
// (buffer_stats egressQueue and sharedBuffer views, ivl_max_bytes), received PFC pause
// time per interval (ecn_pfc_stats interval_total_time_xoff_usec) and send rate
// (nd_stats tx_rate_Gbps).
func jobSeries(dir, id, params string, opts Options) (*JobSeries, error) {
	js := &JobSeries{JobID: id, Params: params}
	keep := func(j string) bool { return j == id }
	specs := seriesSpecs
	tables := map[string]*resultsdir.Table{}
	type tableSpacing struct {
		table string
		sec   float64
	}
	var spacings []tableSpacing
	for _, s := range specs {
		t, seen := tables[s.table]
		if !seen {
			var err error
			t, err = resultsdir.ReadTable(dir, s.table, keep)
			if errors.Is(err, fs.ErrNotExist) {
				js.Missing = append(js.Missing, s.table)
				t = nil
			} else if err != nil {
				return nil, err
			}
			tables[s.table] = t
		}
		if t == nil {
			continue
		}
		lines, err := seriesOf(t, s.filterCol, s.filterVal, s.value, s.key)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", id, err)
		}
		if sp := spacing(t); sp > 0 && !slices.ContainsFunc(spacings, func(x tableSpacing) bool { return x.table == s.table }) {
			spacings = append(spacings, tableSpacing{s.table, sp})
		}
		if len(lines) == 0 {
			continue
		}
		c, err := seriesChart("series-"+id+"-"+s.slug, s.title, s.what, s.unit, lines, opts.Width, opts.Height)
		if err != nil {
			return nil, err
		}
		js.Charts = append(js.Charts, c)
	}
	var parts []string
	differ := false
	for _, x := range spacings {
		parts = append(parts, fmt.Sprintf("%s every %s µs", x.table, ci.Num(x.sec*1e6)))
		differ = differ || x.sec != spacings[0].sec
	}
	switch {
	case differ:
		js.Intervals = "The interval tables are sampled at different intervals (" + strings.Join(parts, ", ") +
			"): report_interval does not drive all of them in these results, so their time axes do not line up point for point."
	case len(spacings) > 0:
		js.Intervals = fmt.Sprintf("Every interval table is sampled every %s µs (report_interval).", ci.Num(spacings[0].sec*1e6))
	}
	return js, nil
}

// spacing returns the most common step between consecutive distinct sim_time_sec values
// of t (0 with fewer than two): the table's sampling interval.
func spacing(t *resultsdir.Table) float64 {
	tc := t.Col("sim_time_sec")
	if tc == nil || tc.IsString() {
		return 0
	}
	ts := slices.Clone(tc.Num)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	count := map[float64]int{}
	best, bestN := 0.0, 0
	for i := 1; i < len(ts); i++ {
		d := math.Round((ts[i]-ts[i-1])*1e12) / 1e12 // to the picosecond
		count[d]++
		if count[d] > bestN || (count[d] == bestN && d < best) {
			best, bestN = d, count[d]
		}
	}
	return best
}

// seriesOf groups the rows of t (optionally where filterCol == filterVal) by the key
// columns into lines of value over sim_time_sec (in µs).
func seriesOf(t *resultsdir.Table, filterCol, filterVal, value string, key []string) ([]seriesLine, error) {
	tc, vc := t.Col("sim_time_sec"), t.Col(value)
	if tc == nil || vc == nil {
		return nil, fmt.Errorf("table %s lacks sim_time_sec or %s", t.Name, value)
	}
	var fc *resultsdir.Column
	if filterCol != "" {
		if fc = t.Col(filterCol); fc == nil {
			return nil, fmt.Errorf("table %s lacks %s", t.Name, filterCol)
		}
	}
	var kc []*resultsdir.Column
	for _, k := range key {
		if c := t.Col(k); c != nil {
			kc = append(kc, c)
		}
	}
	idx := map[string]int{}
	var out []seriesLine
	for i := 0; i < t.Rows; i++ {
		if fc != nil && fc.Text(i) != filterVal {
			continue
		}
		var parts []string
		for _, c := range kc {
			parts = append(parts, c.Text(i))
		}
		name := strings.Join(parts, " ")
		k, seen := idx[name]
		if !seen {
			k = len(out)
			idx[name] = k
			out = append(out, seriesLine{Name: name, Peak: math.Inf(-1)})
		}
		v := vc.Num[i]
		out[k].XY = append(out[k].XY, plotter.XY{X: tc.Num[i] * 1e6, Y: v})
		out[k].Peak = math.Max(out[k].Peak, v)
	}
	for k := range out {
		slices.SortStableFunc(out[k].XY, func(a, b plotter.XY) int {
			switch {
			case a.X < b.X:
				return -1
			case a.X > b.X:
				return 1
			}
			return 0
		})
	}
	return out, nil
}
