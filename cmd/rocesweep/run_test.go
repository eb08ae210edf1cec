package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// childEnv makes the test binary act as the rocesweep binary (TestMain), so the crash
// and signal tests kill a real process. ROCESWEEP_TEST_WORK is the fake job's length;
// ROCESWEEP_TEST_WALL makes each job last that wall time without using CPU.
const childEnv = "ROCESWEEP_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain())
	}
	if filepath.Base(os.Args[0]) != scriptCommand {
		setUpTestProcess()
	}
	// testscript.Main runs the tests, or, in a copy of this binary named rocesweep that a
	// script (testdata/script) runs, childMain.
	testscript.Main(m, map[string]func(){scriptCommand: func() { os.Exit(childMain()) }})
}

// childMain is the rocesweep command in a child process (childEnv) or a script.
func childMain() int {
	// The job of the child process: the fake one, unless ROCESWEEP_TEST_REAL=1 keeps
	// jobFunc = launch.Simulate (the real simulation).
	if os.Getenv("ROCESWEEP_TEST_REAL") != "1" {
		jobFunc = childJob()
	}
	stderr := io.Writer(os.Stderr)
	jobFunc, stderr = childWrap(jobFunc, stderr)
	// ROCESWEEP_TEST_INPROCESS=1: the child's jobs run in its own process (--isolate's
	// default false), for the tests of something else than isolation (the k8s and Slurm
	// scripts); worker processes have their own tests (isolate_test.go).
	if os.Getenv("ROCESWEEP_TEST_INPROCESS") == "1" {
		defaultIsolate = false
	}
	if n, _ := strconv.ParseUint(os.Getenv("ROCESWEEP_TEST_NOFILE"), 10, 64); n > 0 && os.Args[1] != workerCommand {
		// The runner's open files limited, as `ulimit -n` does (not its workers').
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
			panic(err)
		}
	}
	ctx, stop := handleSignals()
	defer stop()
	return mainWithArgs(ctx, os.Args[1:], os.Stdout, stderr)
}

// The environment of a child process (runChild) for what an in-process test did by
// replacing jobFunc: countEnv names a file that gets a line for each job started, the
// process it runs in (the runner or a worker); failAlphaEnv fails the jobs of that LossyAlpha;
// interruptEnv=1 interrupts the run once its first job has finished.
const (
	countEnv     = "ROCESWEEP_TEST_COUNT"
	failAlphaEnv = "ROCESWEEP_TEST_FAIL_ALPHA"
	interruptEnv = "ROCESWEEP_TEST_INTERRUPT_AFTER_FIRST"
)

// childWrap wraps a child's job (fake or real) and stderr as countEnv, failAlphaEnv and
// interruptEnv ask.
func childWrap(job launch.JobFunc, stderr io.Writer) (launch.JobFunc, io.Writer) {
	if a := os.Getenv(failAlphaEnv); a != "" {
		alpha, _ := strconv.ParseFloat(a, 64)
		inner := job
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			if cfg.Switch.SharedBufferManager.LossyAlpha == alpha {
				return nil, fmt.Errorf("LossyAlpha %v fails", alpha)
			}
			return inner(ctx, cfg, id, emit)
		}
	}
	if name := os.Getenv(countEnv); name != "" {
		inner := job
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
			if err == nil {
				_, err = fmt.Fprintln(f, os.Getpid())
				f.Close()
			}
			if err != nil {
				panic(err)
			}
			return inner(ctx, cfg, id, emit)
		}
	}
	if os.Getenv(interruptEnv) == "1" {
		// As SIGTERM from scancel does, once the first job has finished: that job returns
		// only after the runner has said it stops taking jobs, so with -j 1 exactly one
		// job is recorded and the rest of the shard is missing.
		w := &signalWriter{w: stderr, want: "stopping:", seen: make(chan struct{})}
		inner := job
		var first atomic.Bool
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			res, err := inner(ctx, cfg, id, emit)
			if first.CompareAndSwap(false, true) {
				syscall.Kill(os.Getpid(), syscall.SIGTERM)
				select {
				case <-w.seen:
				case <-time.After(time.Minute): // a guard against a hang, not a synchronisation
					panic("the runner never said it was stopping")
				}
			}
			return res, err
		}
		stderr = w
	}
	return job, stderr
}

// runChild runs one command line in a child process: the test binary as rocesweep, with
// the fake job of 1000 messages run in its own process (env adds to that or overrides
// it). It returns the exit status, the output and the number of jobs started.
func runChild(t *testing.T, env []string, args ...string) (code int, stdout, stderr string, jobs int64) {
	t.Helper()
	count := filepath.Join(t.TempDir(), "jobs")
	cmd := child(1000, args...)
	cmd.Env = append(append(cmd.Env, "ROCESWEEP_TEST_INPROCESS=1", countEnv+"="+count), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return code, out.String(), errb.String(), int64(len(jobPids(count)))
}

// jobsStarted is the number of jobs the child processes given countEnv=name started.
func jobsStarted(name string) int64 { return int64(len(jobPids(name))) }

// jobPids lists the process of each job the child processes given countEnv=name
// started.
func jobPids(name string) []int {
	data, _ := os.ReadFile(name)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	return pids
}

// setUpTestProcess sets the process that runs the tests once, before any runs: no test
// changes package state after it.
func setUpTestProcess() {
	// In-process tests run their jobs in this process.
	defaultIsolate = false
	splitProcs = false
	// The test process reads and writes many small results directories, draws reports
	// and runs the examples' simulations, with a live heap of a few MB: at the default
	// GOGC it collects every few MB it allocates, and its allocations paid for the
	// collections in assists (a fifth of its CPU at 400). Pacing only, no result changes;
	// the child processes (the branch above) keep the binary's own setting.
	debug.SetGCPercent(1000)
	// One processor for this process and, through the environment, for each child: the
	// package keeps several rocesweep processes running at once, beside the other
	// packages' tests, and a Go process with an idle processor wakes a thread at every
	// timer, pipe read and collection. On 2 cores that was a fifth of this package's CPU
	// time. A GOMAXPROCS of the caller's is kept.
	if os.Getenv("GOMAXPROCS") == "" {
		machineProcs = runtime.GOMAXPROCS(1)
		os.Setenv("GOMAXPROCS", "1")
	}
}

// machineProcs is the GOMAXPROCS a child process has without one in its environment (0:
// the caller set GOMAXPROCS, which every child inherits).
var machineProcs int

func childJob() launch.JobFunc {
	work, _ := strconv.Atoi(os.Getenv("ROCESWEEP_TEST_WORK"))
	job := sweeptest.Job(work)
	if wall, _ := time.ParseDuration(os.Getenv("ROCESWEEP_TEST_WALL")); wall > 0 {
		// Each job lasts wall (until ctx ends), as a long simulation does, without the
		// CPU: the crash and interrupt tests need jobs running when the signal comes, and
		// spinning workers only took the machine from the other tests.
		inner := job
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			select {
			case <-time.After(wall):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return inner(ctx, cfg, id, emit)
		}
	}
	if dir := os.Getenv("ROCESWEEP_TEST_PIDS"); dir != "" {
		// Each job leaves a file named by its process and job: which worker ran what.
		inner := job
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			if cfg.Switch.SharedBufferManager.LossyAlpha == 2 && os.Getenv("ROCESWEEP_TEST_CRASH_ALPHA2") == "1" {
				os.Exit(7) // the worker dies mid-job
			}
			// Its content is the worker's GOMAXPROCS (launch.Procs).
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d-%s", os.Getpid(), id)), []byte(strconv.Itoa(runtime.GOMAXPROCS(0))), 0o644)
			return inner(ctx, cfg, id, emit)
		}
	}
	if os.Getenv("ROCESWEEP_TEST_ALLOC_ALPHA2") == "1" {
		// The jobs of LossyAlpha 2 take 512 MB, far more than any estimate says.
		inner := job
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			if cfg.Switch.SharedBufferManager.LossyAlpha == 2 {
				greedy := make([]byte, 512<<20)
				for i := range greedy {
					greedy[i] = byte(i)
				}
				defer runtime.KeepAlive(greedy)
			}
			return inner(ctx, cfg, id, emit)
		}
	}
	if mode := os.Getenv("ROCESWEEP_TEST_SIGKILL_ALPHA2"); mode != "" {
		// The jobs of LossyAlpha 2 die by SIGKILL, as a worker killed from outside (the
		// OOM killer, kill -9) does: "always", or "once:DIR" (the first time each job
		// runs, noted in DIR).
		inner := job
		job = func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			if cfg.Switch.SharedBufferManager.LossyAlpha == 2 {
				note, once := strings.CutPrefix(mode, "once:")
				mark := filepath.Join(note, id)
				if _, err := os.Stat(mark); !once || err != nil {
					if once {
						os.WriteFile(mark, nil, 0o644)
					}
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					select {}
				}
			}
			return inner(ctx, cfg, id, emit)
		}
	}
	hangAfter, _ := strconv.Atoi(os.Getenv("ROCESWEEP_TEST_HANG_AFTER"))
	if hangAfter == 0 {
		return job
	}
	// The jobs after the first hangAfter that start in this process hang until ctx ends:
	// a sweep with finished jobs and running ones, whatever the timing.
	var started atomic.Int64
	return func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		if started.Add(1) > int64(hangAfter) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return job(ctx, cfg, id, emit)
	}
}

// crashSpec: 4 x 3 points x 3 replicates = 36 jobs.
var crashSpec = sweeptest.GridSpec("crash", 5, 3, "100us")

// startUntilDone starts a rocesweep child whose jobs after the first finished hang until
// their context ends (ROCESWEEP_TEST_HANG_AFTER), and reads its stderr until the progress
// line "finished/total jobs done": the sweep then has finished jobs and running ones. It
// returns the child, the scanner and pipe of its stderr (to read on), and the lines read.
func startUntilDone(t *testing.T, finished, total int, args ...string) (*exec.Cmd, *bufio.Scanner, io.ReadCloser, *strings.Builder) {
	t.Helper()
	cmd := child(1000, args...)
	cmd.Env = append(cmd.Env, "ROCESWEEP_TEST_HANG_AFTER="+strconv.Itoa(finished))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	log := &strings.Builder{}
	want := fmt.Sprintf("%d/%d jobs done", finished, total)
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), want) {
			return cmd, sc, stderr, log
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("no %q line:\n%s", want, log.String())
	return nil, nil, nil, nil
}

func writeSpec(t *testing.T, text string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func child(work int, args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "ROCESWEEP_TEST_WORK="+strconv.Itoa(work))
	return cmd
}

func readRows[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	rows, err := resultsdir.ReadRows[T](dir, table)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

type jobsRow struct {
	JobID  string `parquet:"job_id"`
	Status string `parquet:"status"`
}

// checkExactlyOnce: every job of the plan is once in jobs, with status ok, and has in
// every record table (launch.RecordTables) the rows the fake job writes
// (sweeptest.RecordRows; none in a table it does not write); no other job is there; no
// temp files are left.
func checkExactlyOnce(t *testing.T, dir string, p *sweep.Plan) {
	t.Helper()
	for _, r := range readRows[jobsRow](t, dir, "jobs") {
		if r.Status != "ok" {
			t.Errorf("job %s status %s", r.JobID, r.Status)
		}
	}
	planned := map[string]bool{}
	for _, j := range p.Jobs {
		planned[j.ID] = true
	}
	for _, table := range append([]string{"jobs"}, launch.RecordTables()...) {
		per := jobRowsPerID(t, dir, table)
		for _, j := range p.Jobs {
			want := 1
			if table != "jobs" {
				want = sweeptest.RecordRows(j.Config)[table]
			}
			if got := per[j.ID]; got != want {
				t.Errorf("job %d (%s): %s has %d rows, want %d", j.Index, j.ID, table, got, want)
			}
		}
		for id := range per {
			if !planned[id] {
				t.Errorf("%s holds rows of job %s, which is not in the plan", table, id)
			}
		}
	}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".tmp") {
			t.Errorf("temp file left: %s", path)
		}
		return nil
	})
}

func ids[T any](rows []T, id func(T) string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = id(r)
	}
	return out
}

// expand is the plan of specFile, as run expands it after edit (e.g.
// (*specfile.Spec).UseSelection: the first stage of a selection).
func expand(t *testing.T, specFile string, edit ...func(*specfile.Spec)) *sweep.Plan {
	t.Helper()
	data, err := os.ReadFile(specFile)
	if err != nil {
		t.Fatal(err)
	}
	s, err := specfile.Parse(specFile, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range edit {
		e(s)
	}
	p, err := sweep.Expand(s, launch.ValidateJob)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCrashResume is the acceptance crash test: a real sweep in a child process is
// SIGKILLed at several random moments and resumed each time; in the end every job of the
// plan is exactly once in jobs and in every record table, and every Parquet file opens.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	dir := filepath.Join(t.TempDir(), "out")
	// 15 ms per job: 36 jobs take ~0.3 s on 2 workers. 5 rounds: each is killed mid-run
	// (10-260 ms after its start), under the 1ms, 20ms and 200ms commit intervals in turn.
	const rounds = 5
	kills := killAndResume(t, []string{childEnv + "=1", "ROCESWEEP_TEST_WORK=1000", "ROCESWEEP_TEST_WALL=15ms"}, rounds, "run", spec, "-o", dir, "-j", "2")
	t.Logf("%d of %d rounds killed mid-run", kills, rounds)
	if kills == 0 {
		t.Error("no round was killed mid-run: nothing was crashed")
	}
	checkExactlyOnce(t, dir, p)

	// The closing table covers the whole directory: a --resume with nothing left to run
	// prints the table of an uninterrupted run, intervals and all.
	ref := filepath.Join(t.TempDir(), "ref")
	code, refOut, stderr, _ := runMain(t, "run", spec, "-o", ref, "-j", "2")
	if code != 0 {
		t.Fatalf("uninterrupted run: exit %d\n%s", code, stderr)
	}
	code, out, stderr, jobs := runMain(t, "run", spec, "-o", dir, "-j", "2", "--resume")
	if code != 0 || jobs != 0 {
		t.Fatalf("resume of a finished sweep: exit %d, %d jobs run\n%s", code, jobs, stderr)
	}
	want, got := closingOf(refOut), closingOf(out)
	if !strings.Contains(want, "mean ± 95% CI over 3 replicates") || strings.Count(want, "±") < 1+12 { // header and 4 x 3 cells (and the best point's line)
		t.Errorf("the uninterrupted run's closing table lacks its intervals:\n%s", want)
	}
	if got != want {
		t.Errorf("closing table after kills and --resume:\n%s\nuninterrupted run:\n%s", got, want)
	}
}

// concurrently runs f as one subtest per case, all at once: the cases of a test that
// waits on child processes (signals, grace periods) overlap their waits. t.Run from
// several goroutines is allowed; the subtests do not take -parallel slots.
func concurrently[T any](t *testing.T, cases []T, name func(T) string, f func(t *testing.T, c T)) {
	t.Helper()
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name(c), func(t *testing.T) { f(t, c) })
		}()
	}
	wg.Wait()
}

// closingOf returns the closing table of run's stdout: the lines before "N jobs: ...".
func closingOf(out string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(out, "\n") {
		if strings.Contains(l, " jobs: ") {
			break
		}
		b.WriteString(l)
	}
	return b.String()
}

// The first SIGINT stops taking jobs and flushes (exit 130); the journal is consistent
// and --resume finishes the sweep. Two SIGINTs abandon the running jobs.
func TestInterruptExitsNonZeroJournalConsistent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // waits on child processes
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	concurrently(t, []int{1, 2}, func(n int) string { return fmt.Sprintf("%d signals", n) }, func(t *testing.T, signals int) {
		dir := filepath.Join(t.TempDir(), "out")
		cmd := child(1000, "run", spec, "-o", dir, "-j", "2")
		cmd.Env = append(cmd.Env, "ROCESWEEP_TEST_WALL=300ms") // 36 jobs, 5 s: running when the signal comes
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		var log strings.Builder
		for sc.Scan() { // wait for the run to start
			log.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), "-> "+dir) {
				break
			}
		}
		for i := 0; i < signals; i++ {
			cmd.Process.Signal(os.Interrupt)
			if i == 0 && signals == 2 {
				for sc.Scan() { // the first one was seen
					log.WriteString(sc.Text() + "\n")
					if strings.Contains(sc.Text(), "stopping") {
						break
					}
				}
			}
		}
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("exit %v, want 130\n%s", err, log.String())
		}
		if !strings.Contains(log.String(), "--resume") {
			t.Errorf("the message does not say how to continue:\n%s", log.String())
		}
		done, err := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(done) >= len(p.Jobs) {
			t.Errorf("the interrupted run finished all %d jobs", len(done))
		}
		final := child(1000, "run", spec, "-o", dir, "-j", "2", "--resume")
		if out, err := final.CombinedOutput(); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
		checkExactlyOnce(t, dir, p)
	})
}

// runMain runs one command line in a child process with the fake job (runChild).
func runMain(t *testing.T, args ...string) (code int, stdout, stderr string, jobs int64) {
	t.Helper()
	return runChild(t, nil, args...)
}

// Two runs of one shard at once (two hand-started --resume runs) would interleave
// journal lines and remove each other's temp files: the second is refused, exit 2,
// naming the first; other shards of the directory run beside it.
func TestSecondWriterOfAShardRefused(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(dir, 0o755)
	unlock, err := dirfs.OS{}.Lock(dirfs.LockName(dir, "2of3")) // a run of shard 2/3 in progress
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr, jobs := runMain(t, "run", spec, "-o", dir, "--shard", "2/3", "--resume")
	want := fmt.Sprintf("shard 2of3 is being written by another rocesweep (pid %d on ", os.Getpid())
	if code != 2 || jobs != 0 || !strings.Contains(stderr, want) {
		t.Errorf("second writer of shard 2/3: exit %d after %d jobs, want 2 before any job naming the first:\n%s", code, jobs, stderr)
	}
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--shard", "1/3", "--resume"); code != 0 {
		t.Errorf("shard 1/3 beside a running 2/3: exit %d\n%s", code, stderr)
	}
	unlock()
	if code, _, stderr, jobs := runMain(t, "run", spec, "-o", dir, "--shard", "2/3", "--resume"); code != 0 || jobs != 12 {
		t.Errorf("shard 2/3 once the first writer ended: exit %d after %d jobs\n%s", code, jobs, stderr)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// readGeneric reads every committed file of a table as rows of column → value text.
func readGeneric(t *testing.T, dir, table string) []map[string]string {
	t.Helper()
	var out []map[string]string
	scanGeneric(t, dir, table, func(cols [][]string, row parquet.Row) {
		m := map[string]string{}
		for _, v := range row {
			m[cols[v.Column()][0]] = v.String()
		}
		out = append(out, m)
	})
	return out
}

// rowKeys reads every committed file of a table as one key per row, sorted: a 64-bit
// hash (hash/maphash) of the row's values in the schema's column order, each as its column's
// name, its kind and its exact bytes (a null as a marker), without the columns named in
// drop. Two directories hold the same rows when their keys are equal (a hash collision
// aside). A key, not the text itself: the text of a row of a wide table is kilobytes,
// and the tables compared hold tens of thousands of rows.
func rowKeys(t *testing.T, dir, table string, drop ...string) []uint64 {
	t.Helper()
	var keys []uint64
	var b []byte
	var names [][]byte // a file's column names, nil where dropped
	var of [][]string  // the file they were made for
	scanGeneric(t, dir, table, func(cols [][]string, row parquet.Row) {
		if len(cols) == 0 || len(of) == 0 || &cols[0] != &of[0] {
			of, names = cols, make([][]byte, len(cols))
			for i, c := range cols {
				if !contains(drop, c[0]) {
					names[i] = append([]byte(c[0]), '=')
				}
			}
		}
		b = b[:0]
		for _, v := range row {
			name := names[v.Column()]
			if name == nil {
				continue
			}
			b = append(b, name...)
			if v.IsNull() {
				b = append(b, 0xff)
				continue
			}
			b = append(b, byte(v.Kind()))
			if k := v.Kind(); k == parquet.ByteArray || k == parquet.FixedLenByteArray {
				b = binary.AppendUvarint(b, uint64(len(v.ByteArray())))
			}
			b = v.AppendBytes(b)
		}
		keys = append(keys, maphash.Bytes(rowKeySeed, b))
	})
	slices.Sort(keys)
	return keys
}

// rowKeySeed seeds rowKeys' hash: keys compare within this process.
var rowKeySeed = maphash.MakeSeed()

// scanGeneric calls row for every row of every committed file of a table, with the
// file's column paths.
func scanGeneric(t *testing.T, dir, table string, row func(cols [][]string, row parquet.Row)) {
	t.Helper()
	files, err := resultsdir.Files(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		cols := pf.Schema().Columns()
		r := parquet.NewReader(pf)
		buf := make([]parquet.Row, 64)
		for {
			n, err := r.ReadRows(buf)
			for _, x := range buf[:n] {
				row(cols, x)
			}
			if err != nil {
				break
			}
		}
		r.Close()
		f.Close()
	}
}

// The shipped quickstart with the real simulation, at a coarser rare-event resolution
// (20%: a point waits 31 replicates, not 133) to keep it short: a selection over
// several rounds with the same jobs rows and decision with -j 1 and -j 8 (wall-clock
// columns aside), for Xoff 400KB. It decides around the quickstart's trap (sizing
// condition 3): some jobs hold lossless senders paused with an empty buffer
// (stuck_pause_ports), and the selected point's jobs have none, complete all 120
// lossless messages and drop none of them.
func TestQuickstartRealSimulationDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 24 simulations")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	rows := map[string][]string{}
	selected := regexp.MustCompile(`(?:selected:|the selection names) LossyAlpha=([0-9.]+), StaticPoolXoffThreshold=400KB`)
	for _, j := range []string{"1", "8"} {
		dir := filepath.Join(t.TempDir(), "qs")
		var out, errb bytes.Buffer
		if code := mainWithArgs(context.Background(), []string{"run", "-o", dir, "-j", j, "--set", "select.rare=20%"}, &out, &errb); code != 0 {
			t.Fatalf("-j %s: exit %d\n%s%s", j, code, out.String(), errb.String())
		}
		m := selected.FindStringSubmatch(out.String())
		var lines []string
		drops, stuck, best := 0, 0, 0
		for _, r := range readGeneric(t, dir, "jobs") {
			if r["status"] != "ok" {
				t.Errorf("job %s: %s %s", r["job_id"], r["status"], r["error"])
			}
			if r["drops_total"] != "0" {
				drops++
			}
			if r["stuck_pause_ports"] != "0" {
				stuck++
			}
			if m != nil && r["switch_LossyAlpha"] == m[1] && r["switch_StaticPoolXoffThreshold"] == "400000" {
				best++
				if r["msgs_completed_lossless"] != "120" || r["drops_lossless"] != "0" || r["stuck_pause_ports"] != "0" {
					t.Errorf("-j %s: selected point's job %s: %s lossless messages completed, %s dropped, %s stuck pause ports; want 120, 0, 0",
						j, r["job_id"], r["msgs_completed_lossless"], r["drops_lossless"], r["stuck_pause_ports"])
				}
			}
			delete(r, "wall_sec")
			delete(r, "events_per_sec")
			lines = append(lines, fmt.Sprint(r))
		}
		sort.Strings(lines)
		rows[j] = lines
		if len(lines) <= 60 || drops == 0 || m == nil || best == 0 {
			t.Errorf("-j %s: %d jobs rows, %d with drops, %d of the selected point; want more than the first stage's 60, some with drops, and Xoff 400KB selected:\n%s", j, len(lines), drops, best, out.String())
		}
		if stuck == 0 {
			t.Errorf("-j %s: no job has a stuck pause: the quickstart no longer shows the trap its comment describes", j)
		}
	}
	if strings.Join(rows["1"], "\n") != strings.Join(rows["8"], "\n") {
		t.Errorf("jobs rows differ between -j 1 and -j 8:\n%s\n---\n%s", strings.Join(rows["1"], "\n"), strings.Join(rows["8"], "\n"))
	}
}

// killAndResume runs `run args...` in child processes, SIGKILLed at rounds random moments
// (each later round with --resume), then a final --resume to the end.
func killAndResume(t *testing.T, env []string, rounds int, args ...string) (kills int) {
	t.Helper()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("ROCESWEEP_KILL_SEED"); s != "" { // to replay a failure's kill moments
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	t.Logf("kill moments from seed %d (ROCESWEEP_KILL_SEED replays them)", seed)
	for round := 0; round < rounds; round++ {
		a := append([]string{}, args...)
		a = append(a, "--commit-interval", []string{"1ms", "20ms", "200ms"}[round%3])
		if round > 0 {
			a = append(a, "--resume")
		}
		cmd := exec.Command(os.Args[0], a...)
		cmd.Env = append(os.Environ(), env...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(time.Duration(rng.IntN(250)+10)*time.Millisecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
		err := cmd.Wait()
		timer.Stop()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && ee.ProcessState.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
			kills++
		default:
			t.Fatalf("round %d: %v\n%s", round, err, stderr.String())
		}
	}
	final := exec.Command(os.Args[0], append(args, "--resume")...)
	final.Env = append(os.Environ(), env...)
	if out, err := final.CombinedOutput(); err != nil {
		t.Fatalf("final resume: %v\n%s", err, out)
	}
	return kills
}

// The crash test with the real simulation: the killed-and-resumed directory holds the
// same jobs rows (wall-clock aside) and the same number of rows per job in every record
// table as an uninterrupted run, and every Parquet file opens.
func TestCrashResumeRealSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // waits on child processes
	env := []string{childEnv + "=1", "ROCESWEEP_TEST_REAL=1"}
	spec := filepath.Join("..", "..", "configs", "quickstart.yaml")
	// 36 jobs: a run takes ~0.6 s on 2 workers, so the kills (10-260 ms after each start)
	// land mid-run with jobs finished, running and not started; 4 rounds see each commit
	// interval of killAndResume at least once.
	base := []string{"run", spec, "-j", "2", "--select=false", "--set", "replicates=3"}
	ref := filepath.Join(t.TempDir(), "ref")
	cmd := exec.Command(os.Args[0], append(base, "-o", ref)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reference run: %v\n%s", err, out)
	}
	dir := filepath.Join(t.TempDir(), "crash")
	const rounds = 4
	kills := killAndResume(t, env, rounds, append(base, "-o", dir)...)
	t.Logf("%d of %d rounds killed mid-run", kills, rounds)
	if kills == 0 {
		t.Error("no round was killed mid-run: nothing was crashed")
	}
	for _, table := range append([]string{"jobs"}, launch.RecordTables()...) {
		want, got := jobRowsPerID(t, ref, table), jobRowsPerID(t, dir, table)
		if fmt.Sprint(want) != fmt.Sprint(got) {
			t.Errorf("%s: rows per job differ from the uninterrupted run (%d vs %d jobs)", table, len(got), len(want))
		}
	}
	jobsOf := func(d string) []uint64 { return rowKeys(t, d, "jobs", "wall_sec", "events_per_sec") }
	if !slices.Equal(jobsOf(ref), jobsOf(dir)) {
		t.Error("jobs rows differ from the uninterrupted run")
	}
}

// A stop signal commits every finished job at once: SIGTERM (or SIGINT, or SIGHUP)
// followed by SIGKILL 1 s later (docker stop, a Slurm grace period) keeps every job that
// had finished, although the commit interval is an hour and a job is still running.
func TestStopSignalThenKillKeepsFinishedJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	t.Parallel() // waits on child processes
	const finished = 5
	concurrently(t, []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP}, syscall.Signal.String, func(t *testing.T, sig syscall.Signal) {
		dir := filepath.Join(t.TempDir(), "out")
		// The first jobs finished, the next one hangs.
		cmd, _, stderr, log := startUntilDone(t, finished, len(p.Jobs), "run", spec, "-o", dir, "-j", "1", "--commit-interval", "1h", "--progress-every", "1ns", "--isolate=false")
		defer cmd.Process.Kill()
		cmd.Process.Signal(sig)
		time.Sleep(time.Second) // the grace period is the scenario, not a synchronisation
		cmd.Process.Signal(syscall.SIGKILL)
		go io.Copy(io.Discard, stderr)
		cmd.Wait()
		done, err := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(done) != finished {
			t.Errorf("the journal holds %d jobs, want the %d that had finished\n%s", len(done), finished, log.String())
		}
		final := child(1000, "run", spec, "-o", dir, "-j", "2", "--resume", "--isolate=false")
		if out, err := final.CombinedOutput(); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
		checkExactlyOnce(t, dir, p)
	})
}

// A closed stdout and stderr (`rocesweep run ... | head -1`) never kill a sweep: the
// progress goes quiet and every job is recorded.
func TestClosedOutputDoesNotKillTheSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // waits on a child process
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	dir := filepath.Join(t.TempDir(), "out")
	cmd := child(1000, "run", spec, "-o", dir, "-j", "2", "--progress-every", "1ns")
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stderr).ReadString('\n') // like head -1
	if err != nil {
		t.Fatal(err)
	}
	stderr.Close()
	stdout.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after the first line %q: %v", line, err)
	}
	checkExactlyOnce(t, dir, p)
}

// The quickstart typed again shows its table and runs nothing (its directory holds the
// same plan); a sweep named on the command line is still refused without --resume. The
// end of a run names the next command.
func TestQuickstartAgain(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "qs")
	code, out, _, jobs := runMain(t, "run", "-o", dir)
	if code != 0 || jobs != 60 || !strings.Contains(out, "next: rocesweep report "+dir+" ") {
		t.Fatalf("first run: exit %d, %d jobs:\n%s", code, jobs, out)
	}
	code, out, errs, jobs := runMain(t, "run", "-o", dir)
	if code != 0 || jobs != 0 || !strings.Contains(out, "fct_p99_usec_lossless (µs): mean ± 95% CI over 5 replicates") || !strings.Contains(out, "60 already done") ||
		!strings.Contains(errs, "holds this quickstart's results: finished jobs are not run again") {
		t.Errorf("quickstart again: exit %d, %d jobs\nstdout:\n%s\nstderr:\n%s", code, jobs, out, errs)
	}
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o644)
	for _, args := range [][]string{{"run", "-o", file}, {"run", "-o", file, "--force"}} {
		if code, _, errs, jobs := runMain(t, args...); code != 2 || jobs != 0 || !strings.Contains(errs, "rocesweep: run: -o "+file+" is a file; -o names a results directory") {
			t.Errorf("%q: exit %d, %d jobs, %s", args, code, jobs, errs)
		}
	}
	spec := writeSpec(t, crashSpec)
	other := filepath.Join(t.TempDir(), "crash")
	if code, _, _, _ := runMain(t, "run", spec, "-o", other, "--set", "replicates=1"); code != 0 {
		t.Fatalf("spec run: exit %d", code)
	}
	if code, _, errs, jobs := runMain(t, "run", spec, "-o", other, "--set", "replicates=1"); code != 2 || jobs != 0 || !strings.Contains(errs, "--resume") {
		t.Errorf("spec again: exit %d, %d jobs, %s", code, jobs, errs)
	}
}

// A stop signal ends a sweep promptly: the running jobs have --grace to finish, then they
// are abandoned (not recorded: --resume runs them), the finished ones committed, exit 130.
// With --grace 0 they are abandoned at once.
func TestStopSignalGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	t.Parallel() // waits on child processes
	const finished = 3
	concurrently(t, []string{"300ms", "0s"}, func(g string) string { return g }, func(t *testing.T, grace string) {
		dir := filepath.Join(t.TempDir(), "out")
		// The first jobs finished, the next ones hang until abandoned.
		cmd, sc, _, log := startUntilDone(t, finished, len(p.Jobs), "run", spec, "-o", dir, "-j", "2", "--grace", grace, "--progress-every", "1ns", "--isolate=false")
		defer cmd.Process.Kill()
		cmd.Process.Signal(syscall.SIGTERM)
		go func() {
			for sc.Scan() {
				log.WriteString(sc.Text() + "\n")
			}
		}()
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
		select {
		case err = <-exited:
		case <-time.After(30 * time.Second): // hanging jobs never end: only the grace can stop it
			t.Fatalf("--grace %s: still running 30 s after SIGTERM\n%s", grace, log.String())
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit %v, want 130\n%s", err, log.String())
		}
		done, err := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if len(done) != finished {
			t.Errorf("the journal holds %d jobs, want the %d that had finished", len(done), finished)
		}
		final := child(1000, "run", spec, "-o", dir, "-j", "2", "--resume", "--isolate=false")
		if out, err := final.CombinedOutput(); err != nil {
			t.Fatalf("resume: %v\n%s", err, out)
		}
		checkExactlyOnce(t, dir, p)
	})
}
