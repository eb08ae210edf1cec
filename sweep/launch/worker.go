package launch

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// Isolation runs each job in a worker process, the way
// Nextflow and Snakemake isolate tasks: a job that exhausts memory, panics, crashes the
// Go runtime or overruns its wall time ends as a job (status failed or timeout, with the
// reason) and the sweep goes on. The runner watches each worker's resident memory and
// kills it above MaxMem, from its first instruction (fabric construction included); an
// abandoned or timed-out job's worker is killed, so it stops consuming at once.
type Isolation struct {
	// Command is the worker's command line: this binary and its hidden worker command,
	// which calls ServeWorker.
	Command []string
	Env     []string // added to this process's environment
	// MaxMem is the resident memory (bytes) above which a worker is killed and its job
	// fails with "out of memory"; 0 = no limit. The worker also sets it, less an eighth,
	// as its Go memory limit (debug.SetMemoryLimit), so it collects harder before that.
	MaxMem int64
	// MaxJobs is how many jobs a worker serves before a fresh process replaces it; 0 =
	// DefaultWorkerJobs. A worker is also replaced after any job that does not end with
	// a result (a failure of the process, a memory kill, a timeout, an abandoned job).
	MaxJobs int
}

// DefaultWorkerJobs is Isolation.MaxJobs when unset: a worker's start is then a small
// share of its jobs' time, and whatever a process accumulates beyond its jobs' rows
// (heap fragmentation, the collector's and huge-page state of earlier jobs) is bounded
// by a fresh start.
const DefaultWorkerJobs = 1000

// rssPoll is how often the runner reads a worker's resident memory. At 10 ms a job that
// allocates 1 GB/s overshoots its limit by ~10 MB before it is killed.
const rssPoll = 10 * time.Millisecond

// workerRequest is what the runner writes to a worker's stdin (gob); it then keeps the
// pipe open: its end (the runner died) ends the worker. The job's configuration travels
// as the planner made it: the spec as given, --set, the job's axis values and seed; the
// worker rebuilds it and checks that it hashes to the job's id.
type workerRequest struct {
	SpecFile  string
	SpecText  []byte
	Sets      []string
	Grids     []string
	Axes      []axisSetting
	Seed      uint64
	Replicate int
	JobID     string
	Spill     string // path of the job's spill file (spill.go)
	MaxMem    int64
	MaxDisk   int64 // the spill's bound (--max-disk-per-job); 0 = none
	// MaxDiskShare says that MaxDisk is a share of the free disk space, not a budget the
	// user gave (DiskBudgetError.Share).
	MaxDiskShare bool
	// SpillEveryRow: the spill holds no rows in memory (Options.SpillEveryRow).
	SpillEveryRow bool
}

type axisSetting struct{ Path, Text string }

func newWorkerRequest(p *sweep.Plan, j *sweep.Job) *workerRequest {
	req := &workerRequest{SpecFile: p.Spec.File, SpecText: p.Spec.Text, Sets: p.Spec.Sets, Grids: p.Spec.Grids,
		Seed: j.Seed, Replicate: j.Replicate, JobID: j.ID}
	for i, a := range p.Axes { // a bisection's attribute too (Plan.Axes)
		req.Axes = append(req.Axes, axisSetting{a.Attr.Path, j.Values[i].Text})
	}
	return req
}

// specCache is the spec a worker parsed last, with what it was parsed from: the jobs a
// worker serves come from one plan, so it parses the spec once, not once per job.
type specCache struct {
	file        string
	text        []byte
	sets, grids []string
	spec        *specfile.Spec
}

// parse returns the spec of req, parsing it unless it is the one parsed last.
func (c *specCache) parse(req *workerRequest) (*specfile.Spec, error) {
	if c.spec != nil && c.file == req.SpecFile && bytes.Equal(c.text, req.SpecText) &&
		slices.Equal(c.sets, req.Sets) && slices.Equal(c.grids, req.Grids) {
		return c.spec, nil
	}
	s, err := specfile.ParseOverrides(req.SpecFile, req.SpecText, specfile.Overrides{Sets: req.Sets, Grids: req.Grids})
	if err != nil {
		return nil, err
	}
	*c = specCache{file: req.SpecFile, text: req.SpecText, sets: req.Sets, grids: req.Grids, spec: s}
	return s, nil
}

// config rebuilds the job's configuration the way Expand made it, from the cached spec.
func (c *specCache) config(req *workerRequest) (config.Config, error) {
	s, err := c.parse(req)
	if err != nil {
		return config.Config{}, err
	}
	values := make([]string, 0, 2*len(req.Axes))
	for _, a := range req.Axes {
		values = append(values, a.Path, a.Text)
	}
	cfg, id, err := sweep.JobConfig(s, values, req.Seed, req.Replicate)
	if err == nil && id != req.JobID {
		err = fmt.Errorf("the worker rebuilt job %s as %s: this binary's planner differs from the runner's", req.JobID, id)
	}
	return cfg, err
}

// workerResponse is what a worker writes to its stdout (gob) after its job.
type workerResponse struct {
	Summary stats.Summary
	// Rows are the rows the runner writes after those of the job's spill file, if it
	// made one: the rows its spill held (all it emitted, when it made no file), then
	// those its Recorder still held at its end, as for a job run in-process. They travel
	// on the worker's pipe, whose gob stream describes the row types once per worker,
	// where a spill file's stream describes them again for every job.
	Rows    stats.Batch
	Spilled bool   // a spill file holds rows the job emitted, to be written before Rows
	Err     string // the job failed (an error or a panic); nothing to record but this
	// Cause, when not "", says that Err is the machine, not the job (machineCause: a
	// resource it lacks, a fault of the file system): the runner stops the sweep instead
	// of recording the job, so that --resume runs it again.
	Cause string
}

// ServeWorker is the worker process's side: it reads jobs from stdin one after another,
// runs each with job (the batches of rows it emits go to the job's spill as they are
// produced) and writes its result, with the rows its spill held and those it still held
// at its end, to stdout, flushed, before it reads the next. It returns when stdin closes between jobs
// (the runner is done with it) and exits the process when stdin closes during a job
// (the runner is gone). The caller should ignore stop signals: the
// runner decides when a job stops.
//
// A worker serves many jobs because starting one costs as much as a small job;
// the runner replaces it after any job that does not end with a result
// (killed for memory or time, crashed, abandoned). Jobs share nothing that moves a row:
// run --isolate=false runs every job in one process and writes the same rows
// (TestIsolatedRowsEqualInProcess); the spec they come from is parsed once, at the first
// job, and each job's configuration copied from it (specCache). Between jobs the worker hands a large heap back to
// the system, so the runner's memory watch sees the next job, not the last one's
// leftovers.
//
// The worker collects at memory.OneJobGCPercent, as a one-job process does, unless the
// GOGC environment variable is set: little stays live between its jobs (a job's rows
// leave with its response), so at Go's 100% the collector ran again and again through
// the fabric and rows of small jobs, freeing little. Its memory limit (MaxMem) still
// bounds it, a large fabric tightens the collector for its own job
// (memory.TightenIfLarge) and starts with a collection (memory.HugePages), and each
// job's own target ends with the job (serveJob).
func ServeWorker(stdin io.Reader, stdout io.Writer, job JobFunc) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(memory.OneJobGCPercent)
	}
	return serveWorker(stdin, stdout, job, hooks{})
}

// serveWorker is ServeWorker with the tests' hooks h.
func serveWorker(stdin io.Reader, stdout io.Writer, job JobFunc, h hooks) error {
	reqs := make(chan *workerRequest)
	var running atomic.Bool
	readErr := make(chan error, 1)
	go func() {
		dec := gob.NewDecoder(stdin)
		for {
			req := new(workerRequest)
			if err := dec.Decode(req); err != nil {
				if running.Load() {
					os.Exit(3) // the runner closed the pipe mid-job: it died, or abandoned the job
				}
				readErr <- err
				close(reqs)
				return
			}
			running.Store(true)
			reqs <- req
		}
	}()
	enc := gob.NewEncoder(stdout)
	flusher, _ := stdout.(interface{ Flush() error })
	var specs specCache
	var rows stats.Batch // the memory of the last response's rows, for the next job's
	for req := range reqs {
		resp := serveJob(req, job, &specs, rows, h)
		running.Store(false)
		if err := enc.Encode(resp); err != nil {
			return err
		}
		rows = resp.Rows // encoded: the next job's spill holds its rows there
		clearBatch(&rows)
		if flusher != nil {
			if err := flusher.Flush(); err != nil {
				return err
			}
		}
		releaseHeap()
	}
	if err := <-readErr; err != io.EOF {
		return fmt.Errorf("worker: reading the next job: %w", err)
	}
	return nil
}

// serveJob runs one job of a worker, its configuration rebuilt from specs. Its spill
// holds its rows in rows' memory (empty tables), as do the response's Rows.
func serveJob(req *workerRequest, job JobFunc, specs *specCache, rows stats.Batch, h hooks) *workerResponse {
	if req.MaxMem > 0 {
		debug.SetMemoryLimit(req.MaxMem - req.MaxMem/8)
	}
	// The collector's target as the job found it: a job's own policy (a large fabric's
	// tighter target, internal/memory) ends with the job, not with the process.
	gc := debug.SetGCPercent(-1)
	debug.SetGCPercent(gc)
	defer debug.SetGCPercent(gc)
	sp := newSpill(req.Spill, req.MaxDisk, req.MaxDiskShare, h)
	sp.held = rows
	if req.SpillEveryRow {
		sp.hold = 0
	}
	begin := time.Now()
	var res *stats.Result
	cfg, err := specs.config(req)
	if err == nil {
		res, err = callJob(context.Background(), job, cfg, req.JobID, sp.write)
	}
	var spilled string
	var held stats.Batch
	if err == nil {
		spilled, held, err = sp.close()
	}
	resp := new(workerResponse)
	if err != nil {
		sp.discard()
		resp.Err, resp.Cause = err.Error(), machineCause(err)
	} else {
		resp.Summary = res.Summary
		resp.Spilled = spilled != ""
		resp.Rows = held
		if res.Rec != nil {
			appendBatch(&resp.Rows, res.Rec.Batch) // after the held rows, table by table
		}
		setWall(&resp.Summary, time.Since(begin))
	}
	return resp
}

// releaseHeap returns a large heap's free pages to the system after a job (above 64 MiB
// of heap; a small one is not worth the collection it takes).
func releaseHeap() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapSys-ms.HeapReleased > 64<<20 {
		debug.FreeOSMemory()
	}
}

// callJob runs job with the emitter emit, turning a panic into an error and a nil result
// into one.
func callJob(ctx context.Context, job JobFunc, cfg config.Config, id string, emit func(stats.Batch) error) (res *stats.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("panic: %v\n%s", v, stackHead(debug.Stack()))
		}
	}()
	res, err = job(ctx, cfg, id, emit)
	if err == nil && res == nil {
		err = errors.New("the job returned no result")
	}
	return res, err
}

func setWall(s *stats.Summary, wall time.Duration) {
	s.WallSec = wall.Seconds()
	if wall > 0 {
		s.EventsPerSec = float64(s.Events) / wall.Seconds()
	}
}

// worker is a running worker process, serving jobs one at a time (ServeWorker).
type worker struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	enc     *gob.Encoder
	replies chan workerReply // results as they come; an error ends them
	exited  chan error       // cmd.Wait's result, once
	stderr  *tail
	rss     rssReader // its resident memory, polled while it runs a job
	waitErr error     // after exit
	done    bool      // exited (waitErr is set)
	jobs    int       // jobs it has served with a result
}

type workerReply struct {
	resp workerResponse
	err  error // no more results: the worker's stdout ended
}

// workerPool keeps the idle workers of a run, so that its jobs reuse processes.
type workerPool struct {
	mu      sync.Mutex
	idle    []*worker
	started int // processes started (Report.WorkerProcesses)
}

// get returns an idle worker, or starts one.
func (p *workerPool) get(iso *Isolation) (*worker, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return w, nil
	}
	p.started++
	p.mu.Unlock()
	return startWorker(iso)
}

// put makes w available to the next job.
func (p *workerPool) put(w *worker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// retire ends w, a worker that has served its Isolation.MaxJobs: its stdin closes, it
// returns from ServeWorker and exits (killed if it has not within 5 s).
func (p *workerPool) retire(w *worker) {
	w.stdin.Close()
	go func() {
		select {
		case w.waitErr = <-w.exited:
			w.done = true
			w.rss.close()
		case <-time.After(5 * time.Second):
			w.kill()
		}
	}()
}

// close ends the idle workers: their stdin closes, they return from ServeWorker and exit
// (killed if one has not within 5 s).
func (p *workerPool) close() {
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, w := range idle {
		w.stdin.Close()
	}
	for _, w := range idle {
		select {
		case w.waitErr = <-w.exited:
			w.rss.close()
		case <-time.After(5 * time.Second):
			w.kill()
		}
	}
}

func startWorker(iso *Isolation) (*worker, error) {
	cmd := exec.Command(iso.Command[0], iso.Command[1:]...)
	cmd.Env = append(os.Environ(), iso.Env...)
	w := &worker{cmd: cmd, stderr: &tail{max: 16 << 10}, replies: make(chan workerReply, 2), exited: make(chan error, 1)}
	cmd.Stderr = w.stderr
	setWorkerAttr(cmd)
	// Our own pipe for stdout, so that Wait does not close it under the reader: the
	// reader sees EOF when the worker exits, after everything it wrote.
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = pw
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	pw.Close()
	if err != nil {
		pr.Close()
		return nil, err
	}
	w.stdin, w.enc = stdin, gob.NewEncoder(stdin)
	go func() {
		defer pr.Close()
		dec := gob.NewDecoder(bufio.NewReader(pr))
		for {
			var r workerReply
			r.resp.Rows = heldMemory() // the rows of a response, once recorded, are free
			r.err = dec.Decode(&r.resp)
			w.replies <- r // at most one result and one error are ever unread
			if r.err != nil {
				return
			}
		}
	}()
	go func() { w.exited <- cmd.Wait() }()
	return w, nil
}

// kill ends the worker process and waits for it.
func (w *worker) kill() {
	if !w.done {
		w.cmd.Process.Kill()
	}
	w.wait()
}

func (w *worker) wait() {
	if !w.done {
		w.waitErr, w.done = <-w.exited, true
	}
	w.rss.close()
}

// runWorker runs job j in a worker process, reusing an idle one. ok is false when the
// job was abandoned by an abort (nothing to record). A worker that ends without a result
// for a reason the job did not cause (killed by a signal from outside, its pipe broken)
// costs one more try in a fresh worker; a second such end, or a worker that cannot be
// started or handed the job, is the machine's (statusResource: the sweep stops, the job
// is not recorded, --resume runs it).
func (r *runner) runWorker(ctx context.Context, j *sweep.Job) (outcome, bool) {
	o, ok, again := r.runWorkerOnce(ctx, j)
	if !again {
		return o, ok
	}
	if r.o.Progress != nil {
		fmt.Fprintf(r.o.Progress, "\nrocesweep: %s: %s; trying it once more in a fresh worker\n", r.plan.Label(j), firstLine(o.err))
	}
	first := o.err
	if o, ok, again = r.runWorkerOnce(ctx, j); again {
		o.status = statusResource
		o.err = "twice: " + first + "; then " + o.err
	}
	return o, ok
}

// runWorkerOnce runs job j in a worker process once. again is true when the worker
// ended without a result for a reason of the machine that a fresh worker may not meet
// (o says which, with the cause).
func (r *runner) runWorkerOnce(ctx context.Context, j *sweep.Job) (o outcome, ok, again bool) {
	iso := r.o.Isolate
	path := spillPath(r.o.Dir, r.o.Shard, j)
	req := newWorkerRequest(r.plan, j)
	req.Spill, req.MaxMem, req.MaxDisk, req.MaxDiskShare, req.SpillEveryRow = path, iso.MaxMem, r.o.MaxDiskPerJob, r.o.MaxDiskShare, r.o.SpillEveryRow
	var w *worker
	for attempt := 0; ; attempt++ {
		var err error
		if w, err = r.workers.get(iso); err != nil {
			cause := machineCause(err)
			if cause == "" {
				cause = "the worker process cannot be started"
			}
			return outcome{job: j, status: statusResource, err: fmt.Sprintf("starting a worker process: %v", err), cause: cause}, true, false
		}
		// The request (the spec text and a few values) is small: the pipe's buffer
		// (64 KiB) takes it whatever the worker does. An idle worker that has died since
		// its last job (killed from outside) cannot take it: start another, once.
		if err = w.enc.Encode(req); err == nil {
			break
		}
		w.kill()
		if attempt == 1 {
			return outcome{job: j, status: statusResource, err: fmt.Sprintf("handing the job to a worker process: %v", err),
				cause: "the worker processes end before they read their job (" + lastLines(w.stderr.String(), 2) + ")"}, true, false
		}
	}
	tick := time.NewTicker(rssPoll)
	defer tick.Stop()
	var reply workerReply
	var peak int64
	oom, got := false, false
wait:
	for {
		select {
		case reply = <-w.replies:
			if reply.err == nil {
				got = true
			} else {
				w.wait() // the worker's stdout ended: it is exiting
			}
			break wait
		case err := <-w.exited:
			w.waitErr, w.done = err, true
			break wait
		case <-ctx.Done():
			w.kill()
			break wait
		case <-tick.C:
			rss := w.rss.read(w.cmd.Process.Pid)
			peak = max(peak, rss)
			if iso.MaxMem > 0 && rss > iso.MaxMem {
				oom = true
				w.kill()
				break wait
			}
		}
	}
	if got && r.abortCtx.Err() == nil && ctx.Err() == nil {
		w.jobs++
		if maxJobs := cmp.Or(iso.MaxJobs, DefaultWorkerJobs); w.jobs >= maxJobs {
			r.workers.retire(w)
		} else {
			r.workers.put(w)
		}
	} else {
		w.kill()
		peak = max(peak, exitPeakRSS(w.cmd.ProcessState))
	}
	keep := false
	defer func() {
		if !keep {
			os.Remove(path)
		}
	}()
	switch {
	case r.abortCtx.Err() != nil:
		return outcome{}, false, false
	case oom:
		return outcome{job: j, status: journal.StatusFailed, err: fmt.Sprintf("out of memory: %s > limit %s (--max-mem-per-job); worker killed", gb(peak), gb(iso.MaxMem))}, true, false
	case ctx.Err() != nil:
		return outcome{job: j, status: journal.StatusTimeout, err: fmt.Sprintf("exceeded --max-wall-per-job %v; worker killed", r.o.MaxWallPerJob)}, true, false
	case !got && w.waitErr != nil:
		why, cause, external := workerDied(w.waitErr, w.stderr.String(), peak, iso.MaxMem)
		switch {
		case external:
			return outcome{job: j, status: statusResource, err: why, cause: cause}, true, true
		case cause != "":
			return outcome{job: j, status: statusResource, err: why, cause: cause}, true, false
		}
		return outcome{job: j, status: journal.StatusFailed, err: why}, true, false
	case !got:
		return outcome{job: j, status: statusResource, err: fmt.Sprintf("the worker process gave no result (%v): %s", reply.err, lastLines(w.stderr.String(), 4)),
			cause: "the worker process's pipe ended without its result"}, true, true
	}
	resp := reply.resp
	if resp.Err != "" {
		if resp.Cause != "" {
			return outcome{job: j, status: statusResource, err: resp.Err, cause: resp.Cause}, true, false
		}
		return outcome{job: j, status: journal.StatusFailed, err: resp.Err}, true, false
	}
	o = outcome{job: j, status: journal.StatusOK, res: &stats.Result{Summary: resp.Summary}, held: resp.Rows}
	if resp.Spilled {
		o.spill = path
	}
	keep = true // the spill is the outcome's now, or was never written
	return o, true, false
}

// workerDied says why a worker ended without a result: the Go runtime's fatal error
// (out of memory above all), a signal (the kernel's OOM killer sends SIGKILL) or its exit
// status, with the last lines it wrote. cause is the machine's part, "" when the job
// caused it (machine.go): a runtime that could not start a thread met the limit of
// processes; external is true for a signal from outside (rocesweep kills a worker only
// at a limit of the job's, or when it abandons the job, which never gets here), which a
// fresh worker may not meet.
func workerDied(waitErr error, stderr string, peak, limit int64) (why, cause string, external bool) {
	var fatal string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "fatal error: ") || strings.HasPrefix(line, "runtime: out of memory") {
			fatal = line
			break
		}
	}
	lim := "no limit"
	if limit > 0 {
		lim = "limit " + gb(limit)
	}
	if c, line := workerCrashCause(stderr); c != "" {
		return "the worker process crashed: " + line, c, false
	}
	if strings.Contains(fatal, "out of memory") {
		return fmt.Sprintf("out of memory: %s (%s); the Go runtime stopped the worker: %s", gb(peak), lim, fatal), "", false
	}
	if fatal != "" {
		return fmt.Sprintf("the worker process crashed: %s\n%s", fatal, lastLines(stderr, 12)), "", false
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) && !ee.Exited() {
		return fmt.Sprintf("the worker process was killed (%v) at %s resident (%s)", ee, gb(peak), lim),
			"a signal from outside: the system's OOM killer (dmesg) or another process; rocesweep kills a worker only at --max-mem-per-job or --max-wall-per-job", true
	}
	for _, sig := range []string{"SIGQUIT: quit", "SIGABRT: abort"} {
		if strings.Contains(stderr, sig) {
			return fmt.Sprintf("the worker process was stopped by %s", sig),
				"a signal from outside (" + sig[:7] + "), sent by another process", true
		}
	}
	return fmt.Sprintf("the worker process ended with %v: %s", waitErr, lastLines(stderr, 12)), "", false
}

// gb formats bytes in decimal units: "6.1 GB", "70.2 MB".
func gb(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1e3)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tail keeps the last max bytes written to it (a worker's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 2*t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return string(b)
}
