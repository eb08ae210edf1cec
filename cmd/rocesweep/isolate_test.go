package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// realChild is the test binary acting as rocesweep with the real simulation; its worker
// processes (the same binary, same environment) run the real simulation too.
func realChild(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1", "ROCESWEEP_TEST_REAL=1")
	return cmd
}

// poisonSpec is a 48-job grid in which one value of one axis
// (2,000,000 messages per sender: 14 M messages) needs far more memory than the others.
const poisonSpec = `name: poison
seed: 1
duration: 50us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
sweep:
  grid:
    switch.LossyAlpha: [0.25, 0.5, 1, 2]
    switch.StaticPoolXoffThreshold: [400KB, 700KB, 1MB]
    workload.messages: [1, 2, 3, 2000000]
`

// A 48-job sweep with one poison axis value: run estimates every point before it starts,
// refuses the 12 poison jobs that need more memory than --max-mem-per-job, and with
// --skip-invalid records them as invalid with the estimate in the reason and runs the 36
// others; --resume runs nothing again.
func TestPoisonSweepRefusedByItsEstimate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	spec := writeSpec(t, poisonSpec)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := realChild("run", spec, "-o", dir, "-j", "2", "--max-mem-per-job", "64MB").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "estimated at") {
		t.Fatalf("exit %v, want 2 naming the poison points' estimate\n%s", err, out)
	}
	out, err = realChild("run", spec, "-o", dir, "-j", "2", "--max-mem-per-job", "64MB", "--skip-invalid").CombinedOutput()
	if err != nil {
		t.Fatalf("--skip-invalid: %v\n%s", err, out)
	}
	type row struct {
		JobID    string `parquet:"job_id"`
		Status   string `parquet:"status"`
		Error    string `parquet:"error"`
		Messages int64  `parquet:"workload_messages"`
	}
	rows := readRows[row](t, dir, "jobs")
	counts := map[string]int{}
	for _, r := range rows {
		poison := r.Messages == 2000000
		switch {
		case poison && r.Status == "invalid" && strings.Contains(r.Error, "estimated at") && strings.Contains(r.Error, "--max-mem-per-job"):
			counts["poison invalid"]++
		case !poison && r.Status == "ok":
			counts["ok"]++
		default:
			t.Errorf("job %s (messages %d): %s %q", r.JobID, r.Messages, r.Status, r.Error)
		}
	}
	if counts["poison invalid"] != 12 || counts["ok"] != 36 || len(rows) != 48 {
		t.Errorf("jobs: %v in %d rows, want 12 poison invalid, 36 ok\n%s", counts, len(rows), out)
	}
	again, err := realChild("run", spec, "-o", dir, "-j", "2", "--max-mem-per-job", "64MB", "--skip-invalid", "--resume").CombinedOutput()
	if err != nil || !strings.Contains(string(again), "48 already done") {
		t.Errorf("--resume: %v, want nothing run again:\n%s", err, again)
	}
}

// A job its estimate underrates still cannot take the machine: its worker is killed at
// --max-mem-per-job, the job fails "out of memory", and every other job is recorded.
func TestJobOverMemoryLimitKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	// 4 jobs, the greedy one (LossyAlpha 2) first: its worker is killed and the other jobs
	// run in the workers that follow.
	text := sweeptest.GridSpec("oom", 1, 1, "50us")
	text = strings.Replace(text, "[0.25, 0.5, 1, 2]", "[2, 0.25, 0.5, 1]", 1)
	text = strings.Replace(text, "[400KB, 700KB, 1MB]", "[400KB]", 1)
	spec := writeSpec(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	cmd := child(1000, "run", spec, "-o", dir, "-j", "2", "--max-mem-per-job", "64MB", "--isolate")
	cmd.Env = append(cmd.Env, "ROCESWEEP_TEST_ALLOC_ALPHA2=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 (the greedy jobs failed)\n%s", err, out)
	}
	type row struct {
		Status string  `parquet:"status"`
		Error  string  `parquet:"error"`
		Alpha  float64 `parquet:"switch_LossyAlpha"`
	}
	failed, ok := 0, 0
	for _, r := range readRows[row](t, dir, "jobs") {
		switch {
		case r.Alpha == 2 && r.Status == "failed" && strings.HasPrefix(r.Error, "out of memory: ") && strings.Contains(r.Error, "> limit 64.0 MB"):
			failed++
		case r.Alpha != 2 && r.Status == "ok":
			ok++
		default:
			t.Errorf("alpha %v: %s %q", r.Alpha, r.Status, r.Error)
		}
	}
	if failed != 1 || ok != 3 {
		t.Errorf("%d failed out of memory, %d ok; want 1 and 3\n%s", failed, ok, out)
	}
}

// Jobs in worker processes write the same rows as jobs in this process, also when one
// worker runs one job after another and when their rows leave them in several batches
// (report_interval=250ns: 16,000 nd_stats rows per job, batches of 8,192 rows).
func TestIsolatedRowsEqualInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	qs, err := os.ReadFile(filepath.Join("..", "..", "configs", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(qs), "switch.LossyAlpha: [0.25, 1, 4, 16]", "switch.LossyAlpha: [1, 16]", 1)
	text = strings.Replace(text, "switch.StaticPoolXoffThreshold: [100KB, 200KB, 400KB]", "switch.StaticPoolXoffThreshold: [400KB]", 1)
	if text == string(qs) {
		t.Fatal("the quickstart's grid has changed: update this test's edits")
	}
	t.Parallel()               // waits on child processes
	spec := writeSpec(t, text) // 2 jobs (--select=false, one replicate)
	tables := map[string][]uint64{}
	var mu sync.Mutex
	// The isolated and the in-process run at once.
	concurrently(t, []string{"true", "false"}, func(iso string) string { return "isolate=" + iso }, func(t *testing.T, iso string) {
		dir := filepath.Join(t.TempDir(), "out")
		// -j 1 isolated: one worker runs both jobs, the second after the first.
		j := map[string]string{"true": "1", "false": "2"}[iso]
		count := filepath.Join(t.TempDir(), "jobs")
		cmd := realChild("run", spec, "-o", dir, "-j", j, "--select=false", "--set", "duration=250us", "--set", "report_interval=250ns", "--isolate="+iso)
		cmd.Env = append(cmd.Env, countEnv+"="+count)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("--isolate=%s: %v\n%s", iso, err, out)
		}
		// Where the jobs ran: isolated, both in one worker (not the runner); in-process, in
		// the runner. Without this, a run that ignored --isolate passed.
		pids := jobPids(count)
		if len(pids) != 2 || pids[0] != pids[1] || (pids[0] == cmd.Process.Pid) == (iso == "true") {
			t.Errorf("--isolate=%s: the jobs ran in processes %v, the runner is %d", iso, pids, cmd.Process.Pid)
		}
		for _, table := range append([]string{"jobs"}, launch.RecordTables()...) {
			keys := rowKeys(t, dir, table, "wall_sec", "events_per_sec", "time_utc")
			mu.Lock()
			tables[table+" "+iso] = keys
			mu.Unlock()
		}
	})
	if t.Failed() {
		return
	}
	for _, table := range append([]string{"jobs"}, launch.RecordTables()...) {
		a, b := tables[table+" true"], tables[table+" false"]
		if !slices.Equal(a, b) {
			t.Errorf("%s: %d rows isolated, %d in-process, and they differ", table, len(a), len(b))
		}
		if table == "nd_stats" && len(a) < 2*stats.DefaultBatchRows {
			t.Errorf("nd_stats: %d rows; the test wants more than one batch per job", len(a))
		}
	}
}

// A job that panics, or overruns --max-wall-per-job, in a worker process ends as a job:
// failed with the panic, or timeout; the worker is killed and the sweep goes on.
func TestWorkerPanicAndTimeoutAreJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	for _, c := range []struct {
		name, status, err string
		args              []string
	}{
		{"panic", "failed", "panic: fake panic", nil},
		{"hang", "timeout", "exceeded --max-wall-per-job 200ms; worker killed", []string{"--max-wall-per-job", "200ms"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := writeSpec(t, strings.Replace(sweeptestGrid, "name: grid", "name: "+c.name, 1))
			dir := filepath.Join(t.TempDir(), "out")
			out, err := child(1000, append([]string{"run", spec, "-o", dir, "-j", "2"}, c.args...)...).CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("exit %v, want 1\n%s", err, out)
			}
			type row struct {
				Status string `parquet:"status"`
				Error  string `parquet:"error"`
			}
			rows := readRows[row](t, dir, "jobs")
			if len(rows) != 4 {
				t.Fatalf("%d jobs rows, want 4", len(rows))
			}
			for _, r := range rows {
				if r.Status != c.status || !strings.HasPrefix(r.Error, c.err) {
					t.Errorf("job: %s %q, want %s %q", r.Status, r.Error, c.status, c.err)
				}
			}
			if done, _ := journal.Read(nil, filepath.Join(dir, "journal.jsonl")); len(done) != 4 {
				t.Errorf("journal: %d jobs, want 4", len(done))
			}
		})
	}
}

// sweeptestGrid is a 4-job sweep of the fake job (sweeptest.Job); its name selects the
// fake's behaviour.
const sweeptestGrid = `name: grid
seed: 1
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
sweep:
  grid:
    switch.LossyAlpha: [0.25, 0.5, 1, 2]
`

// Failed jobs are recorded and --resume leaves them; --retry failed runs exactly them
// again (each was committed alone), and the directory ends with every job once, ok.
func TestRetryFailedRunsThemAgain(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	dir := filepath.Join(t.TempDir(), "out")
	count := filepath.Join(t.TempDir(), "jobs")
	failAlpha := "1"
	run := func(args ...string) (int, string) {
		code, out, stderr, _ := runChild(t, []string{countEnv + "=" + count, failAlphaEnv + "=" + failAlpha}, append([]string{"run", spec, "-o", dir, "-j", "2"}, args...)...)
		return code, out + stderr
	}
	if code, out := run(); code != 1 || jobsStarted(count) != 36 {
		t.Fatalf("first run: exit %d after %d jobs, want 1 after 36\n%s", code, jobsStarted(count), out)
	}
	if code, out := run("--resume"); code != 0 || jobsStarted(count) != 36 {
		t.Fatalf("--resume: exit %d, %d jobs run in all; want 0 and none again\n%s", code, jobsStarted(count), out)
	}
	failAlpha = ""
	code, out := run("--retry", "failed")
	if code != 0 || jobsStarted(count) != 36+9 || !strings.Contains(out, "--retry: 9 failed or timed-out jobs run again\n") {
		t.Fatalf("--retry failed: exit %d, %d jobs run in all; want 0 and the 9 failed again\n%s", code, jobsStarted(count), out)
	}
	checkExactlyOnce(t, dir, p)
	if code, out := run("--retry", "ok"); code != 2 || !strings.Contains(out, "--retry ok: want failed, timeout") {
		t.Errorf("--retry ok: exit %d\n%s", code, out)
	}
}

// TestWorkersAreReused: a worker process serves job after job; a fresh one starts only
// after a job that ended without a result (here the worker exits mid-job: the job fails,
// no other) or after the worker has served its jobs per worker (-j 1, 5 a worker: 12
// jobs in 3 processes).
func TestWorkersAreReused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	for _, tc := range []struct {
		name       string
		j          string
		env        []string
		ok, failed int
		procs      int  // worker processes, at most
		exactProcs bool // exactly procs
	}{
		{name: "reused", j: "2", ok: 12, procs: 2},
		// -j 1: one worker until each of the 3 crashing jobs kills it.
		{name: "crash", j: "1", env: []string{"ROCESWEEP_TEST_CRASH_ALPHA2=1"}, ok: 9, failed: 3, procs: 4},
		{name: "jobs-per-worker", j: "1", env: []string{workerJobsEnv + "=5"}, ok: 12, procs: 3, exactProcs: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := writeSpec(t, strings.Replace(sweeptestGrid, "    switch.LossyAlpha: [0.25, 0.5, 1, 2]",
				"    switch.LossyAlpha: [0.25, 0.5, 1, 2]\n    switch.StaticPoolXoffThreshold: [100KB, 200KB, 300KB]", 1))
			dir := filepath.Join(t.TempDir(), "out")
			pids := t.TempDir()
			cmd := child(1000, "run", spec, "-o", dir, "-j", tc.j)
			cmd.Env = append(append(cmd.Env, "ROCESWEEP_TEST_PIDS="+pids), tc.env...)
			if machineProcs > 0 {
				cmd.Env = append(cmd.Env, "GOMAXPROCS=") // the machine's, so that run splits them
			}
			out, err := cmd.CombinedOutput()
			if (tc.failed > 0) != (err != nil) {
				t.Fatalf("exit %v\n%s", err, out)
			}
			type row struct {
				Status string `parquet:"status"`
				Error  string `parquet:"error"`
			}
			rows := readRows[row](t, dir, "jobs")
			status := map[string]int{}
			for _, r := range rows {
				status[r.Status]++
			}
			entries, _ := os.ReadDir(pids)
			procs := map[string]int{}
			for _, e := range entries {
				procs[strings.SplitN(e.Name(), "-", 2)[0]]++
			}
			if status["ok"] != tc.ok || status["failed"] != tc.failed || len(entries) != tc.ok || // a crashing job exits before its file
				len(procs) > tc.procs || (tc.exactProcs && len(procs) != tc.procs) {
				t.Errorf("jobs %v, %d jobs ran in %d worker processes %v; want %d ok and %d failed in at most %d\n%s",
					status, len(entries), len(procs), procs, tc.ok, tc.failed, tc.procs, out)
			}
			// Each worker runs with its share of the processors, the runner with the rest.
			j, _ := strconv.Atoi(tc.j)
			_, want := launch.Procs(machineProcs, j)
			if machineProcs == 0 {
				want, _ = strconv.Atoi(os.Getenv("GOMAXPROCS")) // the caller's setting, for both
			}
			for _, e := range entries {
				if b, _ := os.ReadFile(filepath.Join(pids, e.Name())); string(b) != strconv.Itoa(want) {
					t.Errorf("job %s ran with GOMAXPROCS %s, want %d (launch.Procs)", e.Name(), b, want)
				}
			}
			for _, r := range rows {
				if r.Status == "failed" && !strings.Contains(r.Error, "exit status 7") {
					t.Errorf("failed job: %q, want the worker's exit status 7", r.Error)
				}
			}
		})
	}
}

// workerJobsEnv sets the jobs per worker of a child `run` (workerJobs), so that a test
// sees workers replaced without running a thousand jobs.
const workerJobsEnv = "ROCESWEEP_TEST_WORKER_JOBS"

func init() {
	if os.Getenv(childEnv) == "1" {
		workerJobs, _ = strconv.Atoi(os.Getenv(workerJobsEnv))
	}
}

// The poison sweep of a report interval of 1 ps on 2 of 4 points (2 replicates, -j 2):
// run refuses it by the estimate, or with --skip-invalid records the 4 poison jobs as
// invalid with their estimate and runs the 4 others, in seconds, the results directory
// staying small (the poison rows would take terabytes).
func TestPoisonReportInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // no package state changed: runs beside the other parallel tests
	spec := writeSpec(t, `name: poison
seed: 1
replicates: 2
duration: 1ms
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 256KB}
sweep:
  grid:
    switch.LossyAlpha: [0.5, 1]
    global.NDStatsReportInterval: [1ps, 100us]
`)
	dir := filepath.Join(t.TempDir(), "out")
	out, err := realChild("run", spec, "-o", dir, "-j", "2").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "2 of 4 grid points break a rule") {
		t.Fatalf("exit %v, want 2 naming the poison points\n%s", err, out)
	}
	out, err = realChild("run", spec, "-o", dir, "-j", "2", "--skip-invalid").CombinedOutput()
	if err != nil {
		t.Fatalf("--skip-invalid: %v\n%s", err, out)
	}
	type row struct {
		Status   string  `parquet:"status"`
		Error    string  `parquet:"error"`
		Interval float64 `parquet:"global_NDStatsReportInterval"`
	}
	counts := map[string]int{}
	for _, r := range readRows[row](t, dir, "jobs") {
		switch {
		case r.Interval < 1e-9 && r.Status == "invalid" && strings.Contains(r.Error, "of memory"):
			counts["poison invalid"]++
		case r.Interval >= 1e-9 && r.Status == "ok":
			counts["ok"]++
		default:
			t.Errorf("interval %g: %s %q", r.Interval, r.Status, r.Error)
		}
	}
	if counts["poison invalid"] != 4 || counts["ok"] != 4 {
		t.Errorf("jobs %v, want 4 poison invalid and 4 ok\n%s", counts, out)
	}
	var size int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	if size > 10<<20 {
		t.Errorf("the results directory holds %d bytes", size)
	}
}

// What is the machine is never a job's failure (issue 38). A worker that cannot be
// started (`ulimit -n 12`: "pipe2: too many open files") stops the sweep unrecorded,
// naming the cause and the limit, and --resume without the limit runs every job. A
// worker killed from outside (SIGKILL, as the OOM killer sends) is tried once more in
// a fresh worker; killed again, the sweep stops unrecorded. No job is recorded failed.
func TestMachineIsNotTheJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel()
	for _, tc := range []struct {
		name   string
		env    func(t *testing.T) []string
		code   int
		stderr []string // substrings
		ok     int      // jobs recorded ok by the first run (all recorded jobs are ok)
	}{
		{"ulimit -n", func(*testing.T) []string { return []string{"ROCESWEEP_TEST_NOFILE=12"} }, 1,
			[]string{"starting a worker process: ", "too many open files", "ulimit -n is 12", "Not the job's failure", "--resume"}, -1},
		{"killed once", func(t *testing.T) []string { return []string{"ROCESWEEP_TEST_SIGKILL_ALPHA2=once:" + t.TempDir()} }, 0,
			[]string{"the worker process was killed (signal: killed)", "trying it once more in a fresh worker"}, 4},
		{"killed twice", func(*testing.T) []string { return []string{"ROCESWEEP_TEST_SIGKILL_ALPHA2=always"} }, 1,
			[]string{"twice: the worker process was killed", "a signal from outside", "Not the job's failure", "--resume"}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := writeSpec(t, sweeptestGrid)
			dir := filepath.Join(t.TempDir(), "out")
			cmd := child(1000, "run", spec, "-o", dir, "-j", "1")
			cmd.Env = append(cmd.Env, tc.env(t)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			if code := cmd.ProcessState.ExitCode(); code != tc.code {
				t.Fatalf("exit %d (%v), want %d\n%s", code, err, tc.code, stderr.String())
			}
			for _, s := range tc.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
				}
			}
			done, _ := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
			for id, st := range done {
				if st != "ok" {
					t.Errorf("job %s recorded %s: the machine's fault recorded as the job's", id, st)
				}
			}
			if tc.ok >= 0 && len(done) != tc.ok {
				t.Errorf("%d jobs recorded, want %d", len(done), tc.ok)
			}
			out, err := child(1000, "run", spec, "-o", dir, "-j", "1", "--resume").CombinedOutput()
			if err != nil {
				t.Fatalf("--resume without the fault: %v\n%s", err, out)
			}
			if done, _ := journal.Read(nil, filepath.Join(dir, "journal.jsonl")); len(done) != 4 {
				t.Errorf("after --resume: %d jobs recorded, want 4", len(done))
			}
		})
	}
}
