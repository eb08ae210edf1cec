package sweep

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
)

// Isolation runs each job in a worker process (issue 14 "Isolate jobs"), the way
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
}

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
	Axes      []axisSetting
	Seed      uint64
	Replicate int
	JobID     string
	Spill     string // path of the job's spill file (spill.go)
	MaxMem    int64
}

type axisSetting struct{ Path, Text string }

func newWorkerRequest(p *Plan, j *Job) *workerRequest {
	req := &workerRequest{SpecFile: p.Spec.File, SpecText: p.Spec.Text, Sets: p.Spec.Sets,
		Seed: j.Seed, Replicate: j.Replicate, JobID: j.ID}
	for i, a := range p.Spec.Axes {
		req.Axes = append(req.Axes, axisSetting{a.Attr.Path, j.Values[i].Text})
	}
	return req
}

// config rebuilds the job's configuration the way Expand made it.
func (req *workerRequest) config() (config.Config, error) {
	s, err := ParseSpec(req.SpecFile, req.SpecText, req.Sets)
	if err != nil {
		return config.Config{}, err
	}
	cfg := s.Base
	for _, a := range req.Axes {
		if err := cfg.Set(a.Path, a.Text); err != nil {
			return config.Config{}, err
		}
	}
	cfg.Seed = req.Seed
	if id := jobID(&cfg, req.Replicate); id != req.JobID {
		return config.Config{}, fmt.Errorf("the worker rebuilt job %s as %s: this binary's planner differs from the runner's", req.JobID, id)
	}
	return cfg, nil
}

// workerResponse is what a worker writes to its stdout (gob) after its job.
type workerResponse struct {
	Summary stats.Summary
	Err     string // the job failed (an error or a panic); nothing to record but this
}

// ServeWorker is the worker process's side: it reads one job from stdin, runs it with job
// (its rows go to the job's spill file as they are produced), writes the result to stdout
// and returns. It exits the process when stdin closes before the job ends (the runner is
// gone). The caller should ignore stop signals: the runner decides when a job stops.
func ServeWorker(stdin io.Reader, stdout io.Writer, job JobFunc) error {
	var req workerRequest
	if err := gob.NewDecoder(stdin).Decode(&req); err != nil {
		return fmt.Errorf("worker: reading the job: %w", err)
	}
	go func() {
		io.Copy(io.Discard, stdin)
		os.Exit(3) // the runner closed the pipe: it died, or abandoned this job
	}()
	if req.MaxMem > 0 {
		debug.SetMemoryLimit(req.MaxMem - req.MaxMem/8)
	}
	sp := &spill{path: req.Spill}
	ctx := withEmitter(context.Background(), sp.write)
	begin := time.Now()
	var res *stats.Result
	cfg, err := req.config()
	if err == nil {
		res, err = callJob(ctx, job, cfg, req.JobID)
	}
	if err == nil && res.Rec != nil {
		b := res.Rec.Batch
		err = sp.write(b)
	}
	if err == nil {
		_, err = sp.close()
	}
	var resp workerResponse
	if err != nil {
		sp.discard()
		resp.Err = err.Error()
	} else {
		resp.Summary = res.Summary
		setWall(&resp.Summary, time.Since(begin))
	}
	return gob.NewEncoder(stdout).Encode(&resp)
}

// callJob runs job, turning a panic into an error and a nil result into one.
func callJob(ctx context.Context, job JobFunc, cfg config.Config, id string) (res *stats.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			res, err = nil, fmt.Errorf("panic: %v\n%s", v, stackHead(debug.Stack()))
		}
	}()
	res, err = job(ctx, cfg, id)
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

// runWorker runs job j in a worker process. ok is false when the job was abandoned by an
// abort (nothing to record).
func (r *runner) runWorker(ctx context.Context, j *Job) (outcome, bool) {
	iso := r.o.Isolate
	path := spillPath(r.o.Dir, r.o.Shard, j)
	cmd := exec.Command(iso.Command[0], iso.Command[1:]...)
	cmd.Env = append(os.Environ(), iso.Env...)
	var stdout bytes.Buffer
	stderr := &tail{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	setWorkerAttr(cmd)
	stdin, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		return outcome{job: j, status: "failed", err: fmt.Sprintf("starting a worker process: %v", err)}, true
	}
	// The request (the spec text and a few values) is small: the pipe's buffer (64 KiB)
	// takes it whatever the worker does; a larger one waits for the worker to read it.
	req := newWorkerRequest(r.plan, j)
	req.Spill, req.MaxMem = path, iso.MaxMem
	gob.NewEncoder(stdin).Encode(req)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	tick := time.NewTicker(rssPoll)
	defer tick.Stop()
	var waitErr error
	var peak int64
	oom := false
	kill := func() {
		cmd.Process.Kill()
		waitErr = <-exited
	}
wait:
	for {
		select {
		case waitErr = <-exited:
			break wait
		case <-ctx.Done():
			kill()
			break wait
		case <-tick.C:
			rss := processRSS(cmd.Process.Pid)
			peak = max(peak, rss)
			if iso.MaxMem > 0 && rss > iso.MaxMem {
				oom = true
				kill()
				break wait
			}
		}
	}
	peak = max(peak, exitPeakRSS(cmd.ProcessState))
	keep := false
	defer func() {
		if !keep {
			os.Remove(path)
		}
	}()
	switch {
	case r.abortCtx.Err() != nil:
		return outcome{}, false
	case oom:
		return outcome{job: j, status: "failed", err: fmt.Sprintf("out of memory: %s > limit %s (--max-mem-per-job); worker killed", gb(peak), gb(iso.MaxMem))}, true
	case ctx.Err() != nil:
		return outcome{job: j, status: "timeout", err: fmt.Sprintf("exceeded --max-wall-per-job %v; worker killed", r.o.MaxWallPerJob)}, true
	case waitErr != nil:
		return outcome{job: j, status: "failed", err: workerDied(waitErr, stderr.String(), peak, iso.MaxMem)}, true
	}
	var resp workerResponse
	if err := gob.NewDecoder(&stdout).Decode(&resp); err != nil {
		return outcome{job: j, status: "failed", err: fmt.Sprintf("the worker process gave no result (%v): %s", err, lastLines(stderr.String(), 4))}, true
	}
	if resp.Err != "" {
		return outcome{job: j, status: "failed", err: resp.Err}, true
	}
	o := outcome{job: j, status: "ok", res: &stats.Result{Summary: resp.Summary}}
	if _, err := os.Stat(path); err == nil {
		o.spill, keep = path, true
	}
	return o, true
}

// workerDied says why a worker ended without a result: the Go runtime's fatal error
// (out of memory above all), a signal (the kernel's OOM killer sends SIGKILL) or its exit
// status, with the last lines it wrote.
func workerDied(waitErr error, stderr string, peak, limit int64) string {
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
	if strings.Contains(fatal, "out of memory") {
		return fmt.Sprintf("out of memory: %s (%s); the Go runtime stopped the worker: %s", gb(peak), lim, fatal)
	}
	if fatal != "" {
		return fmt.Sprintf("the worker process crashed: %s\n%s", fatal, lastLines(stderr, 12))
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) && !ee.Exited() {
		return fmt.Sprintf("the worker process was killed (%v) at %s resident (%s): the system's OOM killer, or a kill from outside", ee, gb(peak), lim)
	}
	return fmt.Sprintf("the worker process ended with %v: %s", waitErr, lastLines(stderr, 12))
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
