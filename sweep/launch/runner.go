package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
)

// JobFunc runs one simulation: cfg is the job's resolved configuration (its Seed is the
// derived per-job seed) and jobID stamps every row. It must build its own engine and
// share nothing with other jobs (they run in parallel). It should return soon after ctx
// is done (check it every few thousand events): ctx ends at --max-wall-per-job or on a
// second Ctrl-C, and a job that ignores it is abandoned, still burning its CPU.
//
// emit is the function the job gives its recorder (fabric.Options.Emit) so that its rows
// leave it in batches while it runs; nil when the runner takes them from the Result at
// the end (the rows still held there are written after the emitted ones).
type JobFunc func(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error)

// Options configure Run. The zero value of each field means its default.
type Options struct {
	Dir           string
	Workers       int           // parallel jobs; default runtime.NumCPU()
	FailFast      bool          // stop taking jobs after the first failed or timed-out job
	MaxWallPerJob time.Duration // a job running longer is abandoned with status timeout; 0 = no limit
	// MaxDiskPerJob bounds the bytes of a job's rows held on disk while it runs (its
	// spill file): a job over it fails with the reason; 0 = no bound.
	MaxDiskPerJob int64
	// MaxDiskShare says that MaxDiskPerJob was not given but is a share of the free disk
	// space (ParseMaxDisk's default): a job over it stops the sweep unrecorded (the disk
	// is nearly full), and no job is refused by its estimate against it.
	MaxDiskShare bool
	// SpillEveryRow makes every job write its rows to a spill file, however few (a job
	// otherwise holds up to 4,096 in memory: spill.go): the same rows, through the
	// spill's file system, which scripts/chaos.sh fails on purpose.
	SpillEveryRow bool
	Shard         sweep.Shard
	// Jobs, when not nil, are the jobs to run instead of the plan's (still split by
	// Shard): a selection's round (Plan.JobFor makes jobs beyond the plan). The manifest
	// still records the plan.
	Jobs   []*sweep.Job
	Resume bool // run only the jobs absent from the journal
	Force  bool // accept a directory whose manifest has another plan or model version
	// Extend accepts a directory whose manifest has another plan of the same sweep (the
	// same swept columns, model version and format), e.g. an axis with more values, and
	// records this plan in its manifest; with Resume only the jobs it lacks run.
	Extend      bool
	SkipInvalid bool // record invalid jobs with status invalid instead of refusing the sweep
	Format      resultsdir.Format
	// Retry, with Resume, runs the jobs recorded with these statuses (failed, timeout)
	// again (sink.Options.Retry).
	Retry []journal.JobStatus
	// Selection, when not nil, marks the run as a sequential selection with these
	// settings (defaults applied); manifest.json records them (sweep/study).
	Selection *question.Config
	// Wait, for study.Select with a Shard: when this shard has run its jobs of a round,
	// look again for the other shards' jobs instead of returning (every 100 ms at
	// first, doubling up to every Wait); 0 returns.
	Wait time.Duration
	// WaitLimit bounds a Wait: when no job of the round the shard waits on has been
	// committed for WaitLimit, study.Select returns a *study.WaitLimitError naming the
	// shards whose jobs are missing. 0 waits without a limit.
	WaitLimit time.Duration
	// Isolate runs each job in a worker process with memory and wall limits (worker.go);
	// nil runs jobs as goroutines of this process (tests' fake jobs; `sim`).
	Isolate *Isolation
	// CommitInterval bounds how long finished jobs wait before they are durable
	// (sink.Options.CommitInterval); default 10 s.
	CommitInterval time.Duration
	FS             dirfs.FS // nil: the operating system (tests inject a full disk)

	Progress    io.Writer     // progress and the closing table; nil: nothing
	TTY         bool          // Progress is a terminal: a live bar instead of log lines
	LogEvery    time.Duration // period of the log lines without a TTY; default 5 s
	Abort       <-chan struct{}
	CommandLine []string
	ToolVersion string

	hooks hooks // the tests' (spill.go); zero in use
}

// Report says what Run did.
type Report struct {
	Dir                          string
	Planned                      int // jobs in the plan
	Selected                     int // jobs of this shard
	Skipped                      int // already in the journal (resume)
	OK, Failed, Timeout, Invalid int
	Abandoned                    int    // running at an abort; not recorded, rerun by --resume
	WorkerProcesses              int    // worker processes started (Options.Isolate): jobs reuse them
	Lost                         int    // finished but not recorded: a commit failed (disk full); rerun by --resume
	Machine                      int    // ended by the machine, not the job (machine.go): not recorded, rerun by --resume
	NotRun                       int    // not started because the sweep stopped
	Stopped                      string // why the sweep stopped early: "interrupted", "fail-fast", "results"; "" if not
	Wall                         time.Duration
	Events                       int64
	Recovery                     sink.Recovery
	Sink                         sink.Stats
	// Summaries of the jobs that finished ok in this run, by job.
	Summaries map[*sweep.Job]*stats.Summary
	Errors    []string // "job 7 (...): error", failed and timed-out jobs of this run
}

// SetupError is a problem found before any job ran (bad directory, invalid jobs, a
// manifest of another plan): the command exits 2.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

type outcome struct {
	job    *sweep.Job
	status journal.JobStatus
	err    string
	res    *stats.Result // its Rec holds the rows its recorder held at its end (nil from a worker)
	spill  string        // the job's spill file (spill.go), "" if it spilled no rows
	held   stats.Batch   // the rows its spill held (spill.close; a worker's Rows), after the file's
	cause  string        // statusResource: the machine's cause (machineCause)
}

// Run runs the jobs of plan p (those of o.Shard not yet in the journal) with job, writing
// o.Dir. It returns a *SetupError before any job starts when the directory or the plan
// cannot be used. Failed jobs do not make Run fail: they are rows with status failed, in
// Report. Run returns an error when it stopped early (signal, --fail-fast) or the results
// could not be written (a *sink.Error: the journal is consistent, --resume continues).
func Run(ctx context.Context, p *sweep.Plan, job JobFunc, o Options) (*Report, error) {
	start := time.Now()
	if o.Workers <= 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.LogEvery <= 0 {
		o.LogEvery = 5 * time.Second
	}
	if o.Format == "" {
		o.Format = resultsdir.Parquet
	}
	if o.Progress != nil {
		o.Progress = &quietWriter{w: o.Progress}
	}
	rep := &Report{Dir: o.Dir, Planned: len(p.Jobs), Summaries: map[*sweep.Job]*stats.Summary{}}
	jobs := p.Jobs
	if o.Jobs != nil {
		jobs = o.Jobs
	}
	selected := o.Shard.Select(jobs)
	rep.Selected = len(selected)
	if !o.SkipInvalid {
		if bad := p.Invalid(); len(bad) > 0 {
			return nil, &SetupError{p.InvalidError(bad)}
		}
	}
	jt := newJobsTable(p.Axes)
	tables := append([]resultsdir.Schema{jt.table()}, RecordTableSchemas()...)
	if err := claimDir(p, o, start, tables); err != nil {
		return nil, &SetupError{err}
	}
	// A job recorded invalid is decided again: one whose point this run's plan finds
	// valid (a budget is a setting of the run and the machine, not of the job: more
	// memory, another -j, a freer disk) has its commit withdrawn and runs.
	byID := make(map[string]*sweep.Job, len(jobs))
	for _, j := range jobs {
		byID[j.ID] = j
	}
	redo := func(l journal.JobLine) bool {
		j := byID[l.ID]
		return l.Status == journal.StatusInvalid && j != nil && j.Invalid == nil
	}
	w, err := sink.Open(sink.Options{Dir: o.Dir, Format: o.Format, Shard: o.Shard.Tag(), Resume: o.Resume,
		CommitInterval: o.CommitInterval, FS: o.FS, Retry: o.Retry, Redo: redo}, tables)
	if err != nil {
		return nil, &SetupError{err}
	}
	rep.Recovery = w.Recovery()
	// Spill files of an earlier run of this shard are debris: their jobs were not
	// recorded. The shard lock is held, so no other process writes them.
	if err := os.RemoveAll(spillDir(o.Dir, o.Shard)); err != nil {
		w.Close()
		return nil, &SetupError{fmt.Errorf("output directory: %w", err)}
	}
	defer os.RemoveAll(spillDir(o.Dir, o.Shard))
	if err := writeManifest(p, o, start, tables); err != nil {
		w.Close()
		return nil, &SetupError{fmt.Errorf("output directory: %w", err)}
	}
	done := w.Done()
	var todo, invalid []*sweep.Job
	for _, j := range selected {
		switch {
		case done[j.ID] != "":
			rep.Skipped++
		case j.Invalid != nil:
			invalid = append(invalid, j)
		default:
			todo = append(todo, j)
		}
	}
	order := sweep.Shuffle(todo, p.Spec.Base.Seed)

	r := &runner{plan: p, job: job, o: o, jt: jt, w: w, rep: rep, stop: make(chan struct{})}
	r.abortCtx, r.abortCancel = context.WithCancel(context.Background())
	defer r.abortCancel()
	prog := newProgress(o, len(todo)+len(invalid))
	r.prog = prog

	// The invalid jobs are recorded first, in commits of their own, so that deciding one
	// again (redo above, --retry invalid) withdraws no other job.
	for _, j := range invalid {
		if err = r.record(outcome{job: j, status: journal.StatusInvalid, err: j.Invalid.Error()}); err != nil {
			break
		}
	}
	if err == nil && len(invalid) > 0 {
		err = w.Commit()
	}
	if err != nil {
		w.Close()
		prog.finish()
		rep.Stopped = "results"
		rep.recount(w.Done(), invalid)
		return rep, err
	}

	results := make(chan outcome, o.Workers)
	sinkDone := make(chan error, 1)
	go r.sinkLoop(results, sinkDone)

	finished := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.halt("interrupted")
		case <-finished:
			return
		}
		select {
		case <-o.Abort:
			r.abortCancel()
		case <-finished:
		}
	}()

	var g errgroup.Group
	g.SetLimit(o.Workers)
	var notRun atomic.Int64
	for i, j := range order {
		if r.stopping(ctx) {
			notRun.Add(int64(len(order) - i))
			break
		}
		g.Go(func() error {
			if r.stopping(ctx) {
				notRun.Add(1)
				return nil
			}
			out, ok := r.runOne(j)
			if ok {
				results <- out
			} else {
				r.mu.Lock()
				rep.Abandoned++
				r.mu.Unlock()
			}
			return nil
		})
	}
	g.Wait()
	r.workers.close()
	rep.WorkerProcesses = r.workers.started
	close(finished)
	close(results)
	sinkErr := <-sinkDone
	prog.finish()
	rep.NotRun = int(notRun.Load())
	rep.Wall = time.Since(start)
	rep.Sink = w.Stats()
	rep.Stopped = r.reason
	if sinkErr != nil {
		rep.Stopped = "results"
		rep.recount(w.Done(), append(append([]*sweep.Job(nil), todo...), invalid...))
		return rep, sinkErr
	}
	if r.resource != nil {
		return rep, r.resource
	}
	switch r.reason {
	case "interrupted":
		return rep, fmt.Errorf("interrupted: %d jobs recorded, %d not run, %d abandoned; the journal is consistent, run again with --resume", rep.OK+rep.Failed+rep.Timeout+rep.Invalid, rep.NotRun, rep.Abandoned)
	case "fail-fast":
		return rep, fmt.Errorf("stopped by --fail-fast after a job failed: %s", strings.Join(rep.Errors, "; "))
	}
	return rep, nil
}

type runner struct {
	plan        *sweep.Plan
	job         JobFunc
	o           Options
	jt          *jobsTable
	w           *sink.Writer
	rep         *Report
	prog        *progress
	abortCtx    context.Context
	abortCancel context.CancelFunc
	workers     workerPool // idle worker processes (Options.Isolate)

	mu       sync.Mutex
	stop     chan struct{}
	reason   string
	resource error // a job could not write its rows for want of disk, inodes or files
}

func (r *runner) halt(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reason == "" {
		r.reason = reason
		close(r.stop)
		if reason == "interrupted" && r.o.Progress != nil {
			fmt.Fprintf(r.o.Progress, "\nrocesweep: stopping: finished jobs committed, no new jobs; the %d running have --grace to finish (interrupt again to abandon them)\n", r.prog.running.Load())
		}
	}
}

// stopping reports whether a job about to start must not, halting the runner first when
// ctx is done. The goroutine that watches ctx halts it too, but may not have run yet: a
// sweep whose context was cancelled before it began once ran its first job to completion
// and exited 0 when that goroutine saw the sweep finished first.
func (r *runner) stopping(ctx context.Context) bool {
	if ctx.Err() != nil {
		r.halt("interrupted")
	}
	return r.stopped()
}

func (r *runner) stopped() bool {
	select {
	case <-r.stop:
		return true
	default:
		return false
	}
}

// runOne runs job j with a deadline, in a worker process (Options.Isolate) or as a
// goroutine with panic recovery. ok is false when the job was abandoned by an abort
// (nothing to record).
func (r *runner) runOne(j *sweep.Job) (outcome, bool) {
	r.prog.running.Add(1)
	defer r.prog.running.Add(-1)
	ctx, cancel := context.WithCancel(r.abortCtx)
	if r.o.MaxWallPerJob > 0 {
		ctx, cancel = context.WithTimeout(r.abortCtx, r.o.MaxWallPerJob)
	}
	defer cancel()
	if r.o.Isolate != nil {
		return r.runWorker(ctx, j)
	}
	type ret struct {
		res *stats.Result
		err error
	}
	sp := newSpill(spillPath(r.o.Dir, r.o.Shard, j), r.o.MaxDiskPerJob, r.o.MaxDiskShare, r.o.hooks)
	sp.held = heldMemory()
	if r.o.SpillEveryRow {
		sp.hold = 0
	}
	ch := make(chan ret, 1) // buffered: an abandoned job can still finish and exit
	begin := time.Now()
	go func() {
		res, err := callJob(ctx, r.job, j.Config, j.ID, sp.write)
		ch <- ret{res, err}
	}()
	var x ret
	select {
	case x = <-ch:
	case <-ctx.Done():
	}
	wall := time.Since(begin)
	memory.JobDone()
	if r.abortCtx.Err() != nil {
		sp.discard()
		return outcome{}, false
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (x.err != nil || x.res == nil):
		sp.discard()
		return outcome{job: j, status: journal.StatusTimeout, err: fmt.Sprintf("exceeded --max-wall-per-job %v; abandoned", r.o.MaxWallPerJob)}, true
	case x.err != nil:
		sp.discard()
		if cause := machineCause(x.err); cause != "" {
			return outcome{job: j, status: statusResource, err: x.err.Error(), cause: cause}, true
		}
		return outcome{job: j, status: journal.StatusFailed, err: x.err.Error()}, true
	case x.res.Rec == nil:
		sp.discard()
		return outcome{job: j, status: journal.StatusFailed, err: "the job returned no result"}, true
	}
	path, held, err := sp.close()
	if err != nil {
		if cause := machineCause(err); cause != "" {
			return outcome{job: j, status: statusResource, err: err.Error(), cause: cause}, true
		}
		return outcome{job: j, status: journal.StatusFailed, err: err.Error()}, true
	}
	setWall(&x.res.Summary, wall)
	// The job's devices are garbage now: collect them before the sink encodes its rows.
	memory.CollectIfLarge()
	return outcome{job: j, status: journal.StatusOK, res: x.res, spill: path, held: held}, true
}

// stackHead keeps the first lines of a panic stack for the error column.
func stackHead(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	if len(lines) > 16 {
		lines = lines[:16]
	}
	return strings.Join(lines, "\n")
}

// recount makes the report's counts those of the journal, done (id → status), after a
// failed commit: of the jobs this run took on (ran), those finished but not recorded are
// not ok, they are lost: the summary counts what the journal holds.
func (rep *Report) recount(done map[string]journal.JobStatus, ran []*sweep.Job) {
	var n [4]int
	before := rep.OK + rep.Failed + rep.Timeout + rep.Invalid
	for _, j := range ran {
		switch done[j.ID] {
		case journal.StatusOK:
			n[0]++
		case journal.StatusFailed:
			n[1]++
		case journal.StatusTimeout:
			n[2]++
		case journal.StatusInvalid:
			n[3]++
		default:
			delete(rep.Summaries, j)
		}
	}
	rep.OK, rep.Failed, rep.Timeout, rep.Invalid = n[0], n[1], n[2], n[3]
	rep.Lost = max(0, before-(n[0]+n[1]+n[2]+n[3]))
}
