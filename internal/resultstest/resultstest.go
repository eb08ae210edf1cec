// Package resultstest writes small synthetic results directories through the real sink
// writer, for the tests of report, compare and the command line while real sweeps are
// not at hand. The metrics follow a made-up but monotone model of LossyAlpha and Xoff,
// so charts have something to show; nothing here is a simulation.
package resultstest

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"time"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sink"
)

// Job is one row of the jobs table: identity, swept values (in Axes order) and metrics.
type Job struct {
	ID        string
	Status    journal.JobStatus
	Error     string
	Replicate int64
	Seed      int64
	Params    []float64
	Summary   stats.Summary
}

// Sweep describes a synthetic results directory.
type Sweep struct {
	Name string
	// Axes are parameter paths (switch.LossyAlpha); each becomes a float64 column.
	Axes []string
	Jobs []Job
	// Intervals is the number of interval rows per job and table (0: none).
	Intervals int
	// Spec is stored as manifest.json's "spec" (the spec text).
	Spec string
	// Classes, if set, gives each ok job's rows of the classes table (records.md: one per
	// data TC); nil writes no classes table.
	Classes func(j Job) []stats.Class
}

// JobsType returns the row type of a jobs table with these axes: job_id, status, error,
// replicate, seed, one float64 column per axis, then the summary metrics.
func JobsType(axes []string) reflect.Type {
	fields := []reflect.StructField{
		{Name: "JobID", Type: reflect.TypeFor[string](), Tag: `parquet:"job_id"`},
		{Name: "Status", Type: reflect.TypeFor[string](), Tag: `parquet:"status"`},
		{Name: "Error", Type: reflect.TypeFor[string](), Tag: `parquet:"error"`},
		{Name: "Replicate", Type: reflect.TypeFor[int64](), Tag: `parquet:"replicate"`},
		{Name: "Seed", Type: reflect.TypeFor[int64](), Tag: `parquet:"seed"`},
	}
	for i, a := range axes {
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("Axis%d", i), Type: reflect.TypeFor[float64](),
			Tag: reflect.StructTag(fmt.Sprintf(`parquet:"%s"`, resultsdir.ColumnOf(a)))})
	}
	st := reflect.TypeFor[stats.Summary]()
	for i := 0; i < st.NumField(); i++ {
		fields = append(fields, st.Field(i))
	}
	return reflect.StructOf(fields)
}

// Write writes s into dir (which must be empty or missing): manifest.json, the journal,
// jobs and, with Intervals > 0, buffer_stats, ecn_pfc_stats and nd_stats rows per job.
func Write(dir string, s Sweep) error { return WriteFormat(dir, s, resultsdir.Parquet) }

// WriteFormat is Write with the parts in format f (run --format).
func WriteFormat(dir string, s Sweep, f resultsdir.Format) error {
	jt := JobsType(s.Axes)
	tables := []resultsdir.Schema{
		resultsdir.DynamicSchema("jobs", jt),
		resultsdir.SchemaOf[stats.BufferStats]("buffer_stats"),
		resultsdir.SchemaOf[stats.EcnPfcStats]("ecn_pfc_stats"),
		resultsdir.SchemaOf[stats.NdStats]("nd_stats"),
	}
	if s.Classes != nil {
		tables = append(tables, resultsdir.SchemaOf[stats.Class]("classes"))
	}
	// Two commits, the first after half the jobs (Close makes the second): each table
	// has two parts, so every reader merges parts as it does a run's several commits,
	// and a sweep of many jobs costs two fsync batches, not one per job.
	w, err := sink.Open(sink.Options{Dir: dir, Format: f, CommitInterval: noTimedCommit}, tables)
	if err != nil {
		return err
	}
	for i, j := range s.Jobs {
		if err := WriteJob(w, jt, j); err != nil {
			return err
		}
		if err := writeIntervals(w, j, s.Intervals); err != nil {
			return err
		}
		if s.Classes != nil && j.Status == journal.StatusOK {
			if err := w.Write("classes", s.Classes(j)); err != nil {
				return err
			}
		}
		if err := w.JobDone(journal.JobLine{ID: j.ID, Status: j.Status}); err != nil {
			return err
		}
		if i+1 == len(s.Jobs)/2 {
			if err := w.Commit(); err != nil {
				return err
			}
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	man := &resultsdir.Manifest{Name: s.Name, PlanSize: len(s.Jobs), Version: "test",
		Start: "2025-01-01T00:00:00Z", Axes: s.Axes, Spec: s.Spec}
	return dirfs.WriteFileAtomic(nil, filepath.Join(dir, resultsdir.ManifestFile), "", man.Marshal())
}

// noTimedCommit is a CommitInterval no test outlasts: the writer commits when told to
// and at Close, never because of the clock.
const noTimedCommit = time.Duration(math.MaxInt64)

// WriteJob writes one jobs row of type jt (from JobsType) through w.
func WriteJob(w *sink.Writer, jt reflect.Type, j Job) error {
	v := reflect.New(jt).Elem()
	v.Field(0).SetString(j.ID)
	v.Field(1).SetString(string(j.Status))
	v.Field(2).SetString(j.Error)
	v.Field(3).SetInt(j.Replicate)
	v.Field(4).SetInt(j.Seed)
	for i, p := range j.Params {
		v.Field(5 + i).SetFloat(p)
	}
	sv := reflect.ValueOf(j.Summary)
	for i := 0; i < sv.NumField(); i++ {
		v.Field(5 + len(j.Params) + i).Set(sv.Field(i))
	}
	rows := reflect.MakeSlice(reflect.SliceOf(jt), 0, 1)
	rows = reflect.Append(rows, v)
	return w.Write("jobs", rows.Interface())
}

func writeIntervals(w *sink.Writer, j Job, n int) error {
	var bs []stats.BufferStats
	var ep []stats.EcnPfcStats
	var nd []stats.NdStats
	for k := 1; k <= n; k++ {
		t := float64(k) * 100e-6
		q := float64(j.Summary.MaxEgressQueueBytes) * math.Sin(math.Pi*float64(k)/float64(n+1))
		for _, view := range []string{"egressQueue", "sharedBuffer"} { // records.md §6 buff_id
			scale := 1.0
			if view == "sharedBuffer" {
				scale = 1.5
			}
			bs = append(bs, stats.BufferStats{JobID: j.ID, SimTimeSec: t, ComponentName: "rack0", Tier: 2,
				BuffID: view, Uldl: "dl", PoolNum: 0, IvlMaxBytes: int64(q * scale), IvlMeanBytes: q * scale / 2,
				BufferLimit: 230_000_000})
		}
		ep = append(ep, stats.EcnPfcStats{JobID: j.ID, SimTimeSec: t, ComponentName: "rack0", Ifid: 1,
			Priority: 0, PfcTimePausedUsec: j.Summary.PfcPausedUsec * float64(k) / float64(n),
			IntervalTotalTimeXoffUsec: j.Summary.PfcPausedUsec / float64(n), PfcxoffTx: 1})
		nd = append(nd, stats.NdStats{JobID: j.ID, SimTimeSec: t, ComponentName: "host0", NdName: "eth0",
			ComponentType: "NIC", Ifid: 0, Uldl: "ul", TxRateGbps: 400 * float64(k) / float64(n)})
	}
	if err := w.Write("buffer_stats", bs); err != nil {
		return err
	}
	if err := w.Write("ecn_pfc_stats", ep); err != nil {
		return err
	}
	return w.Write("nd_stats", nd)
}

// Grid returns an alpha x xoff sweep with replicates: axes switch.LossyAlpha and
// switch.StaticPoolXoffThreshold, job ids "j0001"..., metrics a smooth function of the
// parameters plus a small replicate offset. The last job fails when failLast is set.
func Grid(alphas, xoffs []float64, replicates int, failLast bool) Sweep {
	s := Sweep{Name: "synthetic", Axes: []string{"switch.LossyAlpha", "switch.StaticPoolXoffThreshold"},
		Intervals: 8, Spec: "name: synthetic\nduration: 2ms\ntopology: {kind: star, hosts: 16}\nswitch: {LossyAlpha: 1.0}\n"}
	n := 0
	for _, a := range alphas {
		for _, x := range xoffs {
			for r := 0; r < replicates; r++ {
				n++
				j := Job{ID: fmt.Sprintf("j%04d", n), Status: journal.StatusOK, Replicate: int64(r), Seed: int64(1000 + n),
					Params: []float64{a, x}}
				d := float64(r) * 0.01
				j.Summary = stats.Summary{
					SimTimeSec: 0.002, WallSec: 0.5 + d, Events: 100000 + int64(n), EventsPerSec: 2e5,
					BytesDelivered: 15 << 20, GoodputGbps: 380 - 10*a + d, MsgsCompleted: 15, MsgsCompletedLossless: 150, MsgsCompletedLossy: 300, // synthetic: the per-kind p99s over many messages, the all-class one over few
					MsgsStarted: 15, MsgsHostCompleted: 15, MsgsStartedLossless: 150, MsgsStartedLossy: 300, CompletedFracLossless: 1, CompletedFracLossy: 1,
					FctP50Usec: 300 + 20*a + x/1e4 + d, FctP99Usec: 400 + 40*a + x/5e3 + d, FctMaxUsec: 420 + 40*a + x/5e3,
					HostFctP50Usec: 302 + 20*a + x/1e4 + d, HostFctP99Usec: 402 + 40*a + x/5e3 + d, HostFctMaxUsec: 422 + 40*a + x/5e3,
					FctP99UsecLossless: 80 + 10*a + x/1e4 + d, FctP99UsecLossy: 400 + 40*a + x/5e3 + d,
					HostFctP99UsecLossless: 82 + 10*a + x/1e4 + d, HostFctP99UsecLossy: 402 + 40*a + x/5e3 + d,
					SlowdownP99Lossless: 8 + a + x/1e5, SlowdownP99Lossy: 40 + 4*a,
					DropsTotal: int64(100 * a), DropsLossy: int64(100 * a), PfcPauseTx: int64(1e6 / x * 10),
					PfcPausedUsec: 1e7/x + d, EcnMarked: int64(50 * a), CnpSent: int64(10 * a),
					MaxEgressQueueBytes: int64(200_000 * a), MaxIngressPortBytes: int64(x), MaxPoolBytes: int64(300_000 * a),
				}
				s.Jobs = append(s.Jobs, j)
			}
		}
	}
	if failLast {
		j := &s.Jobs[len(s.Jobs)-1]
		j.Status, j.Error, j.Summary = journal.StatusFailed, "switch.md §11 rule 5: headroom exceeds TotalSharedBufferSize", stats.Summary{}
	}
	return s
}

// Copy rewrites the results directory src into dst through the real sink writer, table by
// table (every table src holds), after edit has changed each table in memory (edit may
// be nil). manifest.json is copied as is; the journal is the writer's own. Column types
// are kept (string, bool, int32, int64, float64; a column with nulls becomes optional).
func Copy(src, dst string, edit func(t *resultsdir.Table)) error {
	var tables []*resultsdir.Table
	for _, name := range append([]string{"jobs"}, resultsdir.Tables...) {
		t, err := resultsdir.ReadTable(src, name, nil)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if edit != nil {
			edit(t)
		}
		tables = append(tables, t)
	}
	var st []resultsdir.Schema
	types := make([]reflect.Type, len(tables))
	for i, t := range tables {
		types[i] = rowType(t)
		st = append(st, resultsdir.DynamicSchema(t.Name, types[i]))
	}
	w, err := sink.Open(sink.Options{Dir: dst, CommitInterval: noTimedCommit}, st) // one commit, at Close
	if err != nil {
		return err
	}
	for i, t := range tables {
		rows := reflect.MakeSlice(reflect.SliceOf(types[i]), t.Rows, t.Rows)
		for r := 0; r < t.Rows; r++ {
			v := rows.Index(r)
			for k, c := range t.Columns {
				f := v.Field(k)
				if f.Kind() == reflect.Pointer {
					if c.Null[r] {
						continue
					}
					f.Set(reflect.New(f.Type().Elem()))
					f = f.Elem()
				}
				switch f.Kind() {
				case reflect.String:
					f.SetString(c.Str[r])
				case reflect.Bool:
					f.SetBool(c.Num[r] != 0)
				case reflect.Int32, reflect.Int64:
					f.SetInt(int64(c.Num[r]))
				case reflect.Float64:
					f.SetFloat(c.Num[r])
				}
			}
		}
		if err := w.Write(t.Name, rows.Interface()); err != nil {
			return err
		}
	}
	if jobs := tables[0]; jobs.Name == "jobs" {
		ids, st := jobs.Col("job_id"), jobs.Col("status")
		for r := 0; r < jobs.Rows; r++ {
			if err := w.JobDone(journal.JobLine{ID: ids.Str[r], Status: journal.JobStatus(st.Text(r))}); err != nil {
				return err
			}
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(src, "manifest.json"))
	if err != nil {
		return err
	}
	return dirfs.WriteFileAtomic(nil, filepath.Join(dst, "manifest.json"), "", data)
}

// rowType is a struct type with one field per column of t, in order.
func rowType(t *resultsdir.Table) reflect.Type {
	fields := make([]reflect.StructField, len(t.Columns))
	for i, c := range t.Columns {
		var typ reflect.Type
		switch c.Type {
		case "string":
			typ = reflect.TypeFor[string]()
		case "boolean":
			typ = reflect.TypeFor[bool]()
		case "int32":
			typ = reflect.TypeFor[int32]()
		case "int64":
			typ = reflect.TypeFor[int64]()
		default:
			typ = reflect.TypeFor[float64]()
		}
		if slices.Contains(c.Null, true) {
			typ = reflect.PointerTo(typ)
		}
		fields[i] = reflect.StructField{Name: fmt.Sprintf("C%d", i), Type: typ,
			Tag: reflect.StructTag(fmt.Sprintf(`parquet:"%s"`, c.Name))}
	}
	return reflect.StructOf(fields)
}
