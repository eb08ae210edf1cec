package launch_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// testJob is the job the runner tests run. Switching these tests to the real simulation
// is this one line (launch.Simulate), at the cost of run time.
var testJob = sweeptest.Job(20_000)

var spec = sweeptest.GridSpec("t", 1, 2, "200us")

func plan(t testing.TB, text string, sets ...string) *sweep.Plan {
	t.Helper()
	s, err := specfile.Parse("spec.yaml", []byte(text), sets)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// jobRow is the part of the jobs table the tests compare; wall_sec and events_per_sec
// (wall-clock) are left out on purpose.
type jobRow struct {
	JobID     string   `parquet:"job_id"`
	Status    string   `parquet:"status"`
	Error     string   `parquet:"error"`
	Replicate int64    `parquet:"replicate"`
	Seed      int64    `parquet:"seed"`
	Alpha     float64  `parquet:"switch_LossyAlpha"`
	Xoff      int64    `parquet:"switch_StaticPoolXoffThreshold"`
	Drops     *int64   `parquet:"drops_total,optional"`
	Events    *int64   `parquet:"events,optional"`
	SimTime   *float64 `parquet:"sim_time_sec,optional"`
}

func readTable[T any](t testing.TB, dir, table string) []T {
	t.Helper()
	rows, err := resultsdir.ReadRows[T](dir, table)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func sortedJobs(t testing.TB, dir string) []jobRow {
	rows := readTable[jobRow](t, dir, "jobs")
	sort.Slice(rows, func(a, b int) bool { return rows[a].JobID < rows[b].JobID })
	return rows
}

// run runs p. Unless o sets a CommitInterval the sweep commits once, at its end: what most
// of these tests check does not depend on when jobs become durable, and a commit after
// every job costs ten files and an fsync batch per job. The tests of commits during a
// run set CommitInterval -1 (a commit after every job).
func run(t testing.TB, p *sweep.Plan, job launch.JobFunc, o launch.Options) (*launch.Report, error) {
	t.Helper()
	if o.CommitInterval == 0 {
		o.CommitInterval = time.Hour
	}
	return launch.Run(context.Background(), p, job, o)
}

// exactlyOnce checks that every job of want is in jobs once and has its record rows once.
func exactlyOnce(t *testing.T, dir string, want []*sweep.Job) {
	t.Helper()
	count := map[string]int{}
	for _, r := range readTable[jobRow](t, dir, "jobs") {
		count[r.JobID]++
	}
	nd := map[string]int{}
	for _, r := range readTable[stats.NdStats](t, dir, "nd_stats") {
		nd[r.JobID]++
	}
	topo := map[string]int{}
	for _, r := range readTable[stats.TopologyLink](t, dir, "topology") {
		topo[r.JobID]++
	}
	if len(count) != len(want) {
		t.Errorf("jobs table has %d jobs, want %d", len(count), len(want))
	}
	for _, j := range want {
		if count[j.ID] != 1 {
			t.Errorf("job %s appears %d times in jobs", j.ID, count[j.ID])
		}
		rows := sweeptest.RecordRows(j.Config)
		if nd[j.ID] != rows["nd_stats"] || topo[j.ID] != 1 {
			t.Errorf("job %s has %d nd_stats rows (want %d) and %d topology rows", j.ID, nd[j.ID], rows["nd_stats"], topo[j.ID])
		}
	}
}

// Same spec with -j 1 and -j 8: identical jobs rows (wall-clock columns aside) and
// identical record rows, whether each job is committed alone (-j 1) or all at the end.
func TestWorkerCountDoesNotChangeResults(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	d1, d8 := t.TempDir(), t.TempDir()
	if _, err := run(t, p, testJob, launch.Options{Dir: d1, Workers: 1, CommitInterval: -1}); err != nil {
		t.Fatal(err)
	}
	rep, err := run(t, p, testJob, launch.Options{Dir: d8, Workers: 8, CommitInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 24 {
		t.Errorf("report %+v", rep)
	}
	a, b := sortedJobs(t, d1), sortedJobs(t, d8)
	if len(a) != 24 || !reflect.DeepEqual(a, b) {
		t.Fatalf("jobs rows differ between -j 1 and -j 8:\n%+v\n%+v", a, b)
	}
	na := readTable[stats.NdStats](t, d1, "nd_stats")
	nb := readTable[stats.NdStats](t, d8, "nd_stats")
	key := func(r stats.NdStats) string { return fmt.Sprintf("%s/%v/%d", r.JobID, r.SimTimeSec, r.Ifid) }
	sort.Slice(na, func(i, j int) bool { return key(na[i]) < key(na[j]) })
	sort.Slice(nb, func(i, j int) bool { return key(nb[i]) < key(nb[j]) })
	if !reflect.DeepEqual(na, nb) {
		t.Error("nd_stats rows differ between -j 1 and -j 8")
	}
	for _, r := range a {
		if r.Status != "ok" || r.Drops == nil || r.SimTime == nil || *r.SimTime != 200e-6 {
			t.Errorf("row %+v", r)
		}
	}
	exactlyOnce(t, d1, p.Jobs)
}

// Shards 1/3, 2/3, 3/3 in one directory: exactly the plan, no overlap. Each shard
// starts with the manifest temp file a killed earlier run of it left (killed while
// writing manifest.json); none is left at the end, whichever shard wrote the manifest.
func TestShardsSideBySide(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := t.TempDir()
	for k := 1; k <= 3; k++ {
		sh, _ := sweep.ParseShard(fmt.Sprintf("%d/3", k))
		os.WriteFile(dirfs.AtomicTemp(filepath.Join(dir, "manifest.json"), sh.Tag()), []byte("{\"half"), 0o644)
		rep, err := run(t, p, testJob, launch.Options{Dir: dir, Workers: 2, Shard: sh})
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK != 8 {
			t.Errorf("shard %d ran %d jobs, want 8", k, rep.OK)
		}
		if _, err := os.Stat(filepath.Join(dir, "journal-"+sh.Tag()+".jsonl")); err != nil {
			t.Error(err)
		}
	}
	files, _ := resultsdir.Files(dir, "jobs")
	for _, f := range files {
		if !strings.Contains(filepath.Base(f), "of3-") {
			t.Errorf("file %s does not carry its shard", f)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
	exactlyOnce(t, dir, p.Jobs)
}

// Failed, panicking and runaway jobs are rows; the sweep goes on.
func TestFailuresAreRecorded(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec, "replicates=1")
	job := func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		b := cfg.Switch.SharedBufferManager
		switch {
		case b.LossyAlpha == 0.5 && b.StaticPoolXoffThreshold == 400_000:
			return nil, errors.New("boom")
		case b.LossyAlpha == 1 && b.StaticPoolXoffThreshold == 400_000:
			panic("kaboom")
		case b.LossyAlpha == 2 && b.StaticPoolXoffThreshold == 400_000:
			<-ctx.Done() // a runaway: only the deadline ends it
			return nil, ctx.Err()
		}
		return testJob(ctx, cfg, id, emit)
	}
	dir := t.TempDir()
	rep, err := run(t, p, job, launch.Options{Dir: dir, Workers: 2, MaxWallPerJob: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 9 || rep.Failed != 2 || rep.Timeout != 1 {
		t.Errorf("ok %d failed %d timeout %d, want 9 2 1", rep.OK, rep.Failed, rep.Timeout)
	}
	status := map[string]int{}
	for _, r := range sortedJobs(t, dir) {
		status[r.Status]++
		switch r.Status {
		case "failed":
			if !strings.Contains(r.Error, "boom") || r.Drops != nil {
				t.Errorf("failed row %+v", r)
			}
		case "timeout":
			if !strings.Contains(r.Error, "max-wall-per-job") {
				t.Errorf("timeout row %+v", r)
			}
		}
	}
	if status["ok"] != 9 || status["failed"] != 2 || status["timeout"] != 1 {
		t.Errorf("statuses %v", status)
	}

	// --fail-fast stops taking jobs after the first failure.
	d2 := t.TempDir()
	rep, err = run(t, p, job, launch.Options{Dir: d2, Workers: 1, FailFast: true, MaxWallPerJob: 200 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "fail-fast") || rep.NotRun == 0 {
		t.Errorf("fail-fast: err %v, report %+v", err, rep)
	}
	// What ran is journaled; --resume finishes the rest.
	if _, err := run(t, p, job, launch.Options{Dir: d2, Workers: 2, Resume: true, MaxWallPerJob: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	if got := len(sortedJobs(t, d2)); got != 12 {
		t.Errorf("after resume %d jobs rows, want 12", got)
	}
}

// A first interrupt stops taking jobs and flushes; --resume runs only the rest.
func TestInterruptAndResume(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int64
	job := func(c context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		if started.Add(1) == 5 {
			cancel()
		}
		return testJob(c, cfg, id, emit)
	}
	rep, err := launch.Run(ctx, p, job, launch.Options{Dir: dir, Workers: 2, CommitInterval: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "interrupted") || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("err = %v", err)
	}
	if rep.OK < 5 || rep.OK >= 24 || rep.OK+rep.NotRun != 24 {
		t.Errorf("interrupted report %+v", rep)
	}
	first := rep.OK
	// Without --resume the directory is refused, before any job.
	_, err = run(t, p, job, launch.Options{Dir: dir})
	var se *launch.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("rerun without --resume: %v", err)
	}
	rep, err = run(t, p, testJob, launch.Options{Dir: dir, Workers: 2, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != first || rep.OK != 24-first {
		t.Errorf("resume skipped %d ran %d; first run had %d", rep.Skipped, rep.OK, first)
	}
	exactlyOnce(t, dir, p.Jobs)

	// Another plan in the same directory is refused unless --force.
	other := plan(t, spec, "duration=300us")
	_, err = run(t, other, testJob, launch.Options{Dir: dir, Resume: true})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "differs") || !strings.Contains(err.Error(), "--force") {
		t.Errorf("other plan: %v", err)
	}
	if _, err := run(t, other, testJob, launch.Options{Dir: dir, Resume: true, Force: true}); err != nil {
		t.Errorf("--force: %v", err)
	}
}

// A sweep whose context is done before it starts runs no job and says it was
// interrupted, every time: the runner's own check, not a race with the goroutine that
// watches the context (which once let the first job run and the sweep exit ok).
func TestInterruptedBeforeStart(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for i := range 50 {
		var ran atomic.Int64
		job := func(c context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			ran.Add(1)
			return testJob(c, cfg, id, emit)
		}
		rep, err := launch.Run(ctx, p, job, launch.Options{Dir: t.TempDir(), Workers: 2})
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("run %d: err = %v", i, err)
		}
		if ran.Load() != 0 || rep.OK != 0 || rep.NotRun != len(p.Jobs) {
			t.Fatalf("run %d: %d jobs ran; report %+v", i, ran.Load(), rep)
		}
	}
}

// Invalid grid points, unwritable directories: refused before any job runs.
func TestRefusedBeforeAnyJob(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	var calls atomic.Int64
	job := func(c context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		calls.Add(1)
		return testJob(c, cfg, id, emit)
	}
	bad := plan(t, spec, "switch.HeadRoomPerPortLimit=40MB")
	dir := filepath.Join(t.TempDir(), "out")
	_, err := run(t, bad, job, launch.Options{Dir: dir})
	var se *launch.SetupError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "HeadRoomPerPortLimit") || !strings.Contains(err.Error(), "job 0 (switch.LossyAlpha=0.25") {
		t.Errorf("invalid plan: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Error("the output directory was created for a refused plan")
	}

	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	_, err = run(t, plan(t, spec), job, launch.Options{Dir: filepath.Join(file, "out")})
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "output directory") {
		t.Errorf("unwritable directory: %v", err)
	}
	if calls.Load() != 0 {
		t.Errorf("%d jobs ran", calls.Load())
	}

	// --skip-invalid records them as invalid and runs the rest.
	mixed := plan(t, `replicates: 1
sweep:
  grid:
    switch.HeadRoomPerPortLimit: [256KB, 40MB]
`)
	d := t.TempDir()
	rep, err := run(t, mixed, job, launch.Options{Dir: d, SkipInvalid: true})
	if err != nil || rep.OK != 1 || rep.Invalid != 1 {
		t.Fatalf("skip-invalid: %v %+v", err, rep)
	}
	type row struct {
		Status string `parquet:"status"`
		Error  string `parquet:"error"`
		HR     int64  `parquet:"switch_HeadRoomPerPortLimit"`
	}
	for _, r := range readTable[row](t, d, "jobs") {
		if (r.HR == 40_000_000) != (r.Status == "invalid") || (r.Status == "invalid" && !strings.Contains(r.Error, "HeadRoomPerPortLimit")) {
			t.Errorf("row %+v", r)
		}
	}
}

// fullFS fails writes once budget bytes are written (a disk filling up during a run).
type fullFS struct {
	dirfs.OS
	budget atomic.Int64
}

type fullFile struct {
	dirfs.File
	fs *fullFS
}

func (f *fullFS) Create(name string) (dirfs.File, error) {
	file, err := f.OS.Create(name)
	return &fullFile{file, f}, err
}

func (f *fullFS) OpenAppend(name string) (dirfs.File, error) {
	file, err := f.OS.OpenAppend(name)
	return &fullFile{file, f}, err
}

func (f *fullFile) Write(p []byte) (int, error) {
	if f.fs.budget.Add(-int64(len(p))) < 0 {
		return 0, &fs.PathError{Op: "write", Path: "results", Err: syscall.ENOSPC}
	}
	return f.File.Write(p)
}

func TestFullDiskDuringRun(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := t.TempDir()
	ffs := &fullFS{}
	ffs.budget.Store(200_000)
	rep, err := run(t, p, testJob, launch.Options{Dir: dir, Workers: 2, FS: ffs, CommitInterval: -1}) // the disk fills between commits
	var serr *sink.Error
	if !errors.As(err, &serr) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want a sink.Error with ENOSPC", err)
	}
	for _, w := range []string{"no space left", "consistent", "--resume"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
	if rep.Stopped != "results" {
		t.Errorf("stopped = %q", rep.Stopped)
	}
	done, err := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
	if err != nil || len(done) != serr.Done || len(done) == 0 || len(done) == 24 {
		t.Fatalf("journal holds %d jobs (%v), error said %d", len(done), err, serr.Done)
	}
	// Space is back: resume finishes, every job exactly once.
	if _, err := run(t, p, testJob, launch.Options{Dir: dir, Workers: 2, Resume: true}); err != nil {
		t.Fatal(err)
	}
	exactlyOnce(t, dir, p.Jobs)
}

func TestArrowFormat(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec, "replicates=1")
	dir := t.TempDir()
	if _, err := run(t, p, testJob, launch.Options{Dir: dir, Format: resultsdir.Arrow}); err != nil {
		t.Fatal(err)
	}
	files, _ := resultsdir.Files(dir, "jobs")
	if len(files) == 0 || !strings.HasSuffix(files[0], ".arrow") {
		t.Errorf("files %v", files)
	}
	if _, err := run(t, p, testJob, launch.Options{Dir: dir, Resume: true}); err == nil || !strings.Contains(err.Error(), "format arrow") {
		t.Errorf("resume in another format: %v", err)
	}
}

// BenchmarkRunner measures jobs/s on CPU-bound fake jobs (~10-20 ms each) with 1 and 2
// workers; compare the two for the scaling on this machine.
func BenchmarkRunner(b *testing.B) {
	p := plan(b, spec, "replicates=10") // 120 jobs
	job := sweeptest.Job(10_000_000)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			jobs := 0
			for i := 0; i < b.N; i++ {
				rep, err := launch.Run(context.Background(), p, job, launch.Options{Dir: b.TempDir(), Workers: w})
				if err != nil {
					b.Fatal(err)
				}
				jobs += rep.OK
			}
			b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// Extend: an axis with more values runs only the new jobs into the directory of the
// earlier plan and records the extended plan; a plan that changes a base setting (every
// job id) or the swept columns is not an extension and is refused, naming why.
func TestExtend(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := filepath.Join(t.TempDir(), "out")
	small := plan(t, spec)
	if _, err := run(t, small, testJob, launch.Options{Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	bigger := strings.Replace(spec, "[0.25, 0.5, 1, 2]", "[0.25, 0.5, 1, 2, 4]", 1)
	big := plan(t, bigger)
	var se *launch.SetupError
	if _, err := run(t, big, testJob, launch.Options{Dir: dir, Resume: true}); !errors.As(err, &se) || !strings.Contains(err.Error(), "--extend to run the jobs of this plan it lacks") {
		t.Fatalf("resume with an extended plan: %v, want a hint at --extend", err)
	}
	rep, err := run(t, big, testJob, launch.Options{Dir: dir, Workers: 2, Resume: true, Extend: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != len(small.Jobs) || rep.OK != len(big.Jobs)-len(small.Jobs) {
		t.Errorf("extend: %d already done, %d ran; want %d, %d", rep.Skipped, rep.OK, len(small.Jobs), len(big.Jobs)-len(small.Jobs))
	}
	exactlyOnce(t, dir, big.Jobs)
	m, err := resultsdir.ReadManifest(dir)
	if err != nil || m.PlanSize != len(big.Jobs) || m.PlanHash != big.Hash() {
		t.Errorf("manifest after extend: %+v, %v; want the extended plan", m, err)
	}
	for _, tc := range []struct {
		plan *sweep.Plan
		why  string
	}{
		{plan(t, bigger, "duration=300us"), "not in this one (--extend only adds jobs"},
		{plan(t, strings.Replace(bigger, "switch.StaticPoolXoffThreshold", "switch.HeadRoomPerPortLimit", 1)), "swept columns [switch_LossyAlpha switch_StaticPoolXoffThreshold], not this plan's [switch_LossyAlpha switch_HeadRoomPerPortLimit]"},
	} {
		if _, err := run(t, tc.plan, testJob, launch.Options{Dir: dir, Resume: true, Extend: true}); !errors.As(err, &se) || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("extend: %v, want %q", err, tc.why)
		}
	}
}
