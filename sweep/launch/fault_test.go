package launch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// faultSpec is a 6-job sweep for the fault tests.
const faultSpec = `name: fault
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1, 2, 4, 8, 16]
`

func faultPlan(t *testing.T) *sweep.Plan {
	t.Helper()
	s, err := specfile.Parse("spec.yaml", []byte(faultSpec), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// emittingJob emits rows nd_stats rows in batches of 10 through the runner's emitter and
// keeps going whatever the emitter answers, as the simulation's recorder once did: the
// runner alone must see to it that such a job is not recorded ok without its rows.
func emittingJob(rows int) JobFunc {
	return func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		for i := 0; i < rows; i += 10 {
			b := stats.Batch{}
			for k := i; k < min(i+10, rows); k++ {
				b.NdStats = append(b.NdStats, stats.NdStats{JobID: id, SimTimeSec: float64(k), ComponentName: "switch_0", NdName: strings.Repeat("x", 100)})
			}
			_ = emit(b) // ignored on purpose
		}
		return &stats.Result{Rec: stats.NewRecorder(id, nil), Summary: stats.Summary{SimTimeSec: cfg.Duration.Seconds()}}, nil
	}
}

// rowsPerJob counts DIR's committed nd_stats rows per job and its jobs rows by status.
func rowsPerJob(t *testing.T, dir string) (nd map[string]int, status map[string]string) {
	t.Helper()
	nd, status = map[string]int{}, map[string]string{}
	if tb, err := resultsdir.ReadTable(dir, "nd_stats", nil); err == nil {
		for _, id := range tb.Col("job_id").Str {
			nd[id]++
		}
	}
	jobs, err := resultsdir.ReadTable(dir, "jobs", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range jobs.Col("job_id").Str {
		status[id] = jobs.Col("status").Str[i]
	}
	return nd, status
}

// A job whose spill file cannot be created, or breaks, for a reason that is not the
// machine's (machine.go; here an error of no file-system kind) is not ok: it fails with
// the reason, and none of its rows is in the tables.
//
// Every run of these tests sets SpillEveryRow: each spill writes its file from its first
// batch (the faults are those of the file), as a job past holdRows rows does.
func TestSpillFailureFailsTheJob(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	openSpill := func(name string, flag int, perm os.FileMode) (*os.File, error) {
		if calls.Add(1) == 2 {
			return nil, &os.PathError{Op: "open", Path: name, Err: errors.New("injected spill fault")}
		}
		return dirfs.OpenFile(name, flag, perm)
	}
	p := faultPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), p, emittingJob(200), Options{Dir: dir, Workers: 1, SpillEveryRow: true, hooks: hooks{openSpill: openSpill}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 5 || rep.Failed != 1 {
		t.Fatalf("%d ok, %d failed; want 5 and 1 (errors %v)", rep.OK, rep.Failed, rep.Errors)
	}
	nd, status := rowsPerJob(t, dir)
	for id, st := range status {
		switch {
		case st == "ok" && nd[id] != 200:
			t.Errorf("job %s is ok with %d of its 200 rows", id, nd[id])
		case st == "failed" && nd[id] != 0:
			t.Errorf("failed job %s left %d rows", id, nd[id])
		}
	}
	if !strings.Contains(strings.Join(rep.Errors, "\n"), "injected spill fault") {
		t.Errorf("errors %v lack the spill's reason", rep.Errors)
	}
}

// The machine running out of a resource the rows need (open files, disk space, inodes),
// or a fault of the spill's file system (issue 38: a permission error on the spill
// folder failed 16 of 24 jobs for good; EIO, EROFS and ESTALE took the same path), is
// not the job failing: the sweep stops with the finished jobs committed and says to
// resume, naming the cause; the job is not recorded, and --resume runs it.
func TestSpillResourceStopsTheSweep(t *testing.T) {
	t.Parallel()
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENOSPC, syscall.EACCES, syscall.EIO, syscall.EROFS, syscall.ESTALE} {
		t.Run(errno.Error(), func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int64
			openSpill := func(name string, flag int, perm os.FileMode) (*os.File, error) {
				if calls.Add(1) >= 3 {
					return nil, &os.PathError{Op: "open", Path: name, Err: errno}
				}
				return dirfs.OpenFile(name, flag, perm)
			}
			p := faultPlan(t)
			dir := filepath.Join(t.TempDir(), "out")
			rep, err := Run(context.Background(), p, emittingJob(200), Options{Dir: dir, Workers: 1, SpillEveryRow: true, hooks: hooks{openSpill: openSpill}})
			var me *MachineError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), "--resume") || !strings.Contains(err.Error(), errno.Error()) || me.Cause == "" {
				t.Fatalf("err %v, want the sweep stopped by the machine, naming %q and its cause, with a hint to resume", err, errno.Error())
			}
			// The job that met the fault, and one that started before the sweep stopped.
			if rep.OK != 2 || rep.Failed != 0 || rep.Machine < 1 {
				t.Fatalf("%d ok, %d failed, %d stopped by the machine; want 2, 0 and the job that met the fault", rep.OK, rep.Failed, rep.Machine)
			}
			// The resource is back: the spills open as in use.
			rep, err = Run(context.Background(), p, emittingJob(200), Options{Dir: dir, Workers: 1, Resume: true, SpillEveryRow: true})
			if err != nil || rep.OK != 4 || rep.Skipped != 2 {
				t.Fatalf("resume: %v, %d ok, %d skipped; want 4 and 2", err, rep.OK, rep.Skipped)
			}
			allOK(t, dir, 6, 200)
		})
	}
}

// A job's rows on disk are bounded by --max-disk-per-job: a job over it fails with the
// reason; the others are recorded whole.
func TestDiskBudgetFailsTheJob(t *testing.T) {
	t.Parallel()
	p := faultPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	// 50 rows (~7 KB spilled) fit 1 MiB; the job of LossyAlpha 16 emits 20,000 (~3 MB).
	job := bigAtAlpha16
	rep, err := Run(context.Background(), p, job, Options{Dir: dir, Workers: 2, MaxDiskPerJob: 1 << 20, SpillEveryRow: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != 5 || rep.Failed != 1 || !strings.Contains(strings.Join(rep.Errors, "\n"), "--max-disk-per-job") {
		t.Fatalf("%d ok, %d failed (%v); want 5 ok and the big job failed for its disk budget", rep.OK, rep.Failed, rep.Errors)
	}
	if entries, _ := os.ReadDir(spillDir(dir, sweep.Shard{})); len(entries) != 0 {
		t.Errorf("spill files left: %v", entries)
	}
}

// A job recorded invalid is decided again by --resume (issue 38: --skip-invalid on a
// nearly full disk recorded every job invalid for good, "estimated ... above the disk
// budget", and --retry did not take invalid): one whose point this run's plan finds
// valid (another budget, another machine) runs, alone, without any other job running
// again; one still invalid stays recorded; --retry invalid records it anew.
func TestInvalidDecidedAgain(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	over := errors.New("estimated at 9 GB of memory, above the limit per job (--max-mem-per-job 1 GB)")
	p := faultPlan(t)
	p.MarkInvalid(1, over)
	rep, err := Run(context.Background(), p, emittingJob(20), Options{Dir: dir, Workers: 2, SkipInvalid: true})
	if err != nil || rep.OK != 5 || rep.Invalid != 1 {
		t.Fatalf("first run: %v, %d ok, %d invalid; want 5 and 1", err, rep.OK, rep.Invalid)
	}
	// The same budget: nothing runs.
	p = faultPlan(t)
	p.MarkInvalid(1, over)
	rep, err = Run(context.Background(), p, emittingJob(20), Options{Dir: dir, Workers: 2, SkipInvalid: true, Resume: true})
	if err != nil || rep.OK+rep.Invalid != 0 || rep.Skipped != 6 {
		t.Fatalf("resume under the same budget: %v, %d ok, %d invalid, %d skipped; want 6 skipped", err, rep.OK, rep.Invalid, rep.Skipped)
	}
	// --retry invalid, still invalid: recorded anew, nothing else runs.
	rep, err = Run(context.Background(), p, emittingJob(20), Options{Dir: dir, Workers: 2, SkipInvalid: true, Resume: true, Retry: []journal.JobStatus{journal.StatusInvalid}})
	if err != nil || rep.OK != 0 || rep.Invalid != 1 || rep.Skipped != 5 {
		t.Fatalf("--retry invalid: %v, %d ok, %d invalid, %d skipped; want 0, 1 and 5", err, rep.OK, rep.Invalid, rep.Skipped)
	}
	// A larger budget: the job runs, alone.
	rep, err = Run(context.Background(), faultPlan(t), emittingJob(20), Options{Dir: dir, Workers: 2, Resume: true})
	if err != nil || rep.OK != 1 || rep.Skipped != 5 || rep.Recovery.Redecided != 1 || rep.Recovery.Withdrawn != 1 {
		t.Fatalf("resume under a larger budget: %v, %d ok, %d skipped, recovery %+v; want 1 ok (the invalid one) and 5 skipped", err, rep.OK, rep.Skipped, rep.Recovery)
	}
	allOK(t, dir, 6, 20)
}

// A disk budget that is a share of the free space (no --max-disk-per-job given) is the
// machine's: a job whose rows outgrow it stops the sweep unrecorded, naming a nearly full
// disk, and --resume runs it.
func TestDiskShareStopsTheSweep(t *testing.T) {
	t.Parallel()
	p := faultPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	job := bigAtAlpha16
	rep, err := Run(context.Background(), p, job, Options{Dir: dir, Workers: 1, MaxDiskPerJob: 1 << 20, MaxDiskShare: true, SpillEveryRow: true})
	var me *MachineError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "nearly full") || rep.Failed != 0 || rep.Machine != 1 {
		t.Fatalf("%v; %d failed, %d stopped by the machine; want the sweep stopped unrecorded, naming a nearly full disk", err, rep.Failed, rep.Machine)
	}
	rep, err = Run(context.Background(), p, job, Options{Dir: dir, Workers: 1, Resume: true, SpillEveryRow: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, status := rowsPerJob(t, dir); len(status) != 6 {
		t.Errorf("%d jobs recorded after --resume, want 6", len(status))
	}
}

// bigAtAlpha16 emits 50 rows (~7 KB spilled), but 20,000 (~3 MB) at LossyAlpha 16.
func bigAtAlpha16(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
	n := 50
	if cfg.Switch.SharedBufferManager.LossyAlpha == 16 {
		n = 20_000
	}
	return emittingJob(n)(ctx, cfg, id, emit)
}

// allOK checks that dir records jobs jobs, each ok with rows nd_stats rows.
func allOK(t *testing.T, dir string, jobs, rows int) {
	t.Helper()
	nd, status := rowsPerJob(t, dir)
	if len(status) != jobs {
		t.Fatalf("%d jobs recorded, want %d", len(status), jobs)
	}
	for id, st := range status {
		if st != "ok" || nd[id] != rows {
			t.Errorf("job %s: %s with %d rows; want ok with %d", id, st, nd[id], rows)
		}
	}
}
