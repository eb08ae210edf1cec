package launch

import (
	"bufio"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// heldSpec is a 3-job sweep whose LossyAlpha picks each job's rows (heldCases).
const heldSpec = `name: held
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
sweep:
  grid:
    switch.LossyAlpha: [1, 2, 4]
`

// heldCases are the jobs of heldSpec by LossyAlpha: steps (a step is an nd_stats row,
// and a messages row every 4th step: 1.25 rows) and whether its spill makes a file.
var heldCases = map[float64]struct {
	steps int
	file  bool
}{
	1: {800, false},  // 1,000 rows, the quickstart's size
	2: {3200, false}, // 4,000 rows, just under holdRows
	4: {3400, true},  // 4,250 rows: the batch that passes holdRows makes the file
}

func heldPlan(t *testing.T) *sweep.Plan {
	t.Helper()
	s, err := specfile.Parse("held.yaml", []byte(heldSpec), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Jobs) != len(heldCases) {
		t.Fatalf("%d jobs, want %d", len(p.Jobs), len(heldCases))
	}
	return p
}

func heldSteps(cfg config.Config) int {
	return heldCases[cfg.Switch.SharedBufferManager.LossyAlpha].steps
}

// heldRows are the rows of job id after steps steps, in the order it produces them.
func heldRows(id string, steps int) stats.Batch {
	var b stats.Batch
	for k := range steps {
		heldStep(&b, id, k, steps)
	}
	return b
}

// heldStep appends step k of a job of steps steps to b. Every field that varies by row
// varies with k; NodeID is 0 at other rows in jobs of other steps, so that rows decoded
// into the memory of another job's (gob leaves zero fields out) show any value left.
func heldStep(b *stats.Batch, id string, k, steps int) {
	b.NdStats = append(b.NdStats, stats.NdStats{JobID: id, SimTimeSec: float64(k+1) * 1e-7, ComponentName: fmt.Sprintf("switch_%d", k%3),
		NdName: "nd", Ifid: int64(k), TotalPacketsTx: int64(7 * k), TxRateGbps: float64(k) / 8, NodeID: int64((k + steps/100) % 3)})
	if k%4 == 3 {
		b.Messages = append(b.Messages, stats.Message{JobID: id, MetricName: "fct", SimTimeSec: float64(k+1) * 1e-7,
			SrcNode: int64(k), DstNode: 7, FctUsec: float64(k) / 4, SizeBytes: int64(k) << 10})
	}
}

// heldJob produces heldRows through a stats.Recorder whose Emit is the runner's emitter,
// as the simulation does: the recorder emits a batch at each DefaultBatchRows and reuses
// its slices, and the rows of the last, partial batch stay in the Result.
func heldJob(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
	rec := stats.NewRecorder(id, nil)
	rec.Emit = emit
	steps := heldSteps(cfg)
	for k := range steps {
		heldStep(&rec.Batch, id, k, steps)
		rec.Spill()
	}
	if err := rec.Err(); err != nil {
		return nil, err
	}
	return &stats.Result{Rec: rec, Summary: stats.Summary{SimTimeSec: cfg.Duration.Seconds()}}, nil
}

// countSpillOpens returns hooks whose openSpill counts the spill files it opens, by job
// id, and the count of a job.
func countSpillOpens() (hooks, func(id string) int) {
	var mu sync.Mutex
	opens := map[string]int{}
	h := hooks{openSpill: func(name string, flag int, perm os.FileMode) (*os.File, error) {
		mu.Lock()
		opens[strings.TrimSuffix(filepath.Base(name), ".rows")]++
		mu.Unlock()
		return dirfs.OpenFile(name, flag, perm)
	}}
	return h, func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return opens[id]
	}
}

// checkHeldTables checks that each table of dir holds exactly every job's rows, in the
// order the job produced them.
func checkHeldTables(t *testing.T, dir string, p *sweep.Plan) {
	t.Helper()
	nd, err := resultsdir.ReadRows[stats.NdStats](dir, "nd_stats")
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := resultsdir.ReadRows[stats.Message](dir, "messages")
	if err != nil {
		t.Fatal(err)
	}
	ndBy, msgsBy := map[string][]stats.NdStats{}, map[string][]stats.Message{}
	for _, r := range nd {
		ndBy[r.JobID] = append(ndBy[r.JobID], r)
	}
	for _, r := range msgs {
		msgsBy[r.JobID] = append(msgsBy[r.JobID], r)
	}
	for _, j := range p.Jobs {
		want := heldRows(j.ID, heldSteps(j.Config))
		if got := ndBy[j.ID]; !reflect.DeepEqual(got, want.NdStats) {
			t.Errorf("job %s: nd_stats holds %d rows, they differ from the %d it produced (%s)", j.ID, len(got), len(want.NdStats), firstDiff(got, want.NdStats))
		}
		if got := msgsBy[j.ID]; !reflect.DeepEqual(got, want.Messages) {
			t.Errorf("job %s: messages holds %d rows, they differ from the %d it produced (%s)", j.ID, len(got), len(want.Messages), firstDiff(got, want.Messages))
		}
	}
	if len(ndBy) != len(p.Jobs) || len(msgsBy) != len(p.Jobs) {
		t.Errorf("rows of %d and %d jobs, want %d", len(ndBy), len(msgsBy), len(p.Jobs))
	}
}

// firstDiff names the first row where got and want differ.
func firstDiff[T any](got, want []T) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("row %d is %+v, want %+v", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("%d rows, want %d", len(got), len(want))
}

// A job's rows reach the tables whole and in order whether its spill held them all (no
// spill file is made) or passed its bound (the file holds the held rows, then the later
// batches; the last, partial batch comes from the Result).
func TestHeldRowsInProcess(t *testing.T) {
	t.Parallel()
	h, opens := countSpillOpens()
	p := heldPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), p, heldJob, Options{Dir: dir, Workers: 2, CommitInterval: time.Hour, hooks: h})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != len(p.Jobs) {
		t.Fatalf("%d ok of %d (errors %v)", rep.OK, len(p.Jobs), rep.Errors)
	}
	for _, j := range p.Jobs {
		c := heldCases[j.Config.Switch.SharedBufferManager.LossyAlpha]
		if want := map[bool]int{false: 0, true: 1}[c.file]; opens(j.ID) != want {
			t.Errorf("job of %d steps opened %d spill files, want %d", c.steps, opens(j.ID), want)
		}
	}
	checkHeldTables(t, dir, p)
}

// The same rows when each job runs in a worker process (this test binary as the worker:
// TestMain), its held rows in its response.
func TestHeldRowsIsolated(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts child processes")
	}
	p := heldPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	iso := &Isolation{Command: []string{os.Args[0]}, Env: []string{heldWorkerEnv + "=1"}}
	// One worker: its second and third jobs find the spec it parsed for the first.
	rep, err := Run(context.Background(), p, heldJob, Options{Dir: dir, Workers: 1, Isolate: iso, CommitInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK != len(p.Jobs) || rep.WorkerProcesses != 1 {
		t.Fatalf("%d ok of %d, %d workers, want 1 (errors %v)", rep.OK, len(p.Jobs), rep.WorkerProcesses, rep.Errors)
	}
	checkHeldTables(t, dir, p)
}

// heldWorkerEnv makes this test binary a worker process serving heldJob (TestMain).
const heldWorkerEnv = "SWEEP_TEST_HELD_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(heldWorkerEnv) == "1" {
		out := bufio.NewWriter(os.Stdout)
		err := ServeWorker(os.Stdin, out, heldJob)
		if ferr := out.Flush(); err == nil {
			err = ferr
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A worker hands a job's held rows back in its response and makes no spill file for
// them; a job past the bound leaves its file, holding the rows before the response's.
func TestWorkerHeldRows(t *testing.T) {
	t.Parallel()
	h, opens := countSpillOpens()
	p := heldPlan(t)
	jobs := slices.Concat(p.Jobs, p.Jobs) // each job again after the others
	var reqs []*workerRequest
	for _, j := range jobs {
		reqs = append(reqs, newWorkerRequest(p, j))
	}
	serveJobs(t, reqs, heldJob, h, func(i int, req *workerRequest, resp *workerResponse) {
		j := jobs[i]
		c := heldCases[j.Config.Switch.SharedBufferManager.LossyAlpha]
		_, statErr := os.Stat(req.Spill)
		if resp.Err != "" || resp.Spilled != c.file || (statErr == nil) != c.file {
			t.Fatalf("job %d (%d steps): err %q, spilled %v, file %v; want no error, spilled and a file %v", i, c.steps, resp.Err, resp.Spilled, statErr, c.file)
		}
		var got stats.Batch
		if resp.Spilled {
			got = readSpill(t, req.Spill)
			os.Remove(req.Spill) // as the runner does once it replayed it
		}
		appendBatch(&got, resp.Rows)
		want := heldRows(j.ID, c.steps)
		if !reflect.DeepEqual(got.NdStats, want.NdStats) || !reflect.DeepEqual(got.Messages, want.Messages) || got.Rows() != want.Rows() {
			t.Errorf("job %d (%d steps): the rows differ from those it produced (nd_stats: %s; messages: %s)", i, c.steps, firstDiff(got.NdStats, want.NdStats), firstDiff(got.Messages, want.Messages))
		}
	})
	for _, j := range p.Jobs {
		c := heldCases[j.Config.Switch.SharedBufferManager.LossyAlpha]
		if want := map[bool]int{false: 0, true: 2}[c.file]; opens(j.ID) != want {
			t.Errorf("job of %d steps, run twice, opened %d spill files, want %d", c.steps, opens(j.ID), want)
		}
	}
}

// serveJobs runs ServeWorker with job over pipes and hands it each request in turn
// (their spill files in a temporary folder), passing each response to check.
func serveJobs(t *testing.T, reqs []*workerRequest, job JobFunc, h hooks, check func(i int, req *workerRequest, resp *workerResponse)) {
	t.Helper()
	dir := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := serveWorker(inR, outW, job, h)
		outW.CloseWithError(fmt.Errorf("the worker returned (%v)", err))
		done <- err
	}()
	enc, dec := gob.NewEncoder(inW), gob.NewDecoder(outR)
	for i, req := range reqs {
		req.Spill = filepath.Join(dir, fmt.Sprintf("%s.rows", req.JobID))
		if err := enc.Encode(req); err != nil {
			t.Fatal(err)
		}
		var resp workerResponse
		if err := dec.Decode(&resp); err != nil {
			t.Fatal(err)
		}
		check(i, req, &resp)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// readSpill decodes every batch of a spill file into one Batch, in order.
func readSpill(t *testing.T, path string) stats.Batch {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := rowDecoder{r: bufio.NewReader(f)}
	var all, b stats.Batch
	for {
		if err := dec.decode(&b); err == io.EOF {
			return all
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		appendBatch(&all, b)
	}
}

// The spill at its bound, batch by batch: batches whose rows stay at or under hold are
// held (copies: the caller reuses its slices), the batch that would pass it makes the
// file, which holds the held rows as its first batch, then that batch and the later
// ones; close hands back what is held, nothing once there is a file.
func TestSpillBound(t *testing.T) {
	for _, c := range []struct {
		name    string
		batches []int // rows per batch
		file    bool
		first   int // rows of the file's first batch
	}{
		{"none", nil, false, 0},
		{"under", []int{3, 3}, false, 0},
		{"at the bound", []int{4, 4}, false, 0},
		{"one past", []int{4, 4, 1}, true, 8},
		{"past at once", []int{9, 2}, true, 9},
		{"past at the second", []int{5, 4, 2}, true, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "j.rows")
			s := &spill{path: path, hold: 8}
			var want stats.Batch
			var reused []stats.NdStats // one slice for every batch, as the recorder does
			k := 0
			for _, n := range c.batches {
				reused = reused[:0]
				for range n {
					reused = append(reused, stats.NdStats{JobID: "j", Ifid: int64(k)})
					k++
				}
				want.NdStats = append(want.NdStats, reused...)
				if err := s.write(stats.Batch{NdStats: reused}); err != nil {
					t.Fatal(err)
				}
			}
			for i := range reused {
				reused[i] = stats.NdStats{JobID: "overwritten"}
			}
			got, held, err := s.close()
			if err != nil {
				t.Fatal(err)
			}
			if (got != "") != c.file {
				t.Fatalf("close returned path %q; want a file: %v", got, c.file)
			}
			_, statErr := os.Stat(path)
			if (statErr == nil) != c.file {
				t.Fatalf("spill file: %v; want one: %v", statErr, c.file)
			}
			var rows stats.Batch
			if c.file {
				if held.Rows() != 0 {
					t.Errorf("a spill with a file still held %d rows", held.Rows())
				}
				f, _ := os.Open(path)
				var first stats.Batch
				if err := (&rowDecoder{r: bufio.NewReader(f)}).decode(&first); err != nil || len(first.NdStats) != c.first {
					t.Errorf("the file's first batch: %d rows (%v), want the %d held", len(first.NdStats), err, c.first)
				}
				f.Close()
				rows = readSpill(t, path)
			}
			appendBatch(&rows, held)
			if !reflect.DeepEqual(rows.NdStats, want.NdStats) {
				t.Errorf("rows %+v, want %+v", rows.NdStats, want.NdStats)
			}
		})
	}
}

// Held rows follow the spill's rules: a write after close (an abandoned job) gets
// errAbandoned and is held nowhere; a spill that failed hands back no rows; the disk
// budget bounds the file, not the rows held.
func TestSpillHeldRules(t *testing.T) {
	row := stats.Batch{NdStats: []stats.NdStats{{JobID: "j", NdName: strings.Repeat("x", 100)}}}

	s := newSpill(filepath.Join(t.TempDir(), "j.rows"), 0, false, hooks{})
	s.write(row)
	s.discard()
	if err := s.write(row); !errors.Is(err, errAbandoned) {
		t.Errorf("a write after discard: %v, want errAbandoned", err)
	}
	if path, held, err := s.close(); path != "" || held.Rows() != 0 || err != nil {
		t.Errorf("close after discard: %q, %d rows, %v; want nothing", path, held.Rows(), err)
	}

	dir := filepath.Join(t.TempDir(), "x")
	os.WriteFile(dir, nil, 0o644) // the spill folder cannot be made: a file is in its way
	s = &spill{path: filepath.Join(dir, "j.rows"), hold: 1}
	s.write(row)
	err := s.write(row) // the second row makes the file
	if err == nil {
		t.Fatal("a spill whose folder cannot be made wrote its file")
	}
	if err2 := s.write(row); err2 != err {
		t.Errorf("the write after an error: %v, want the first error %v", err2, err)
	}
	if path, held, cerr := s.close(); path != "" || held.Rows() != 0 || cerr != err {
		t.Errorf("close of a failed spill: %q, %d rows, %v; want no rows and %v", path, held.Rows(), cerr, err)
	}

	// 100 rows (~12 KB) held under a 64-byte budget; the file they then go to is over it.
	for _, past := range []bool{false, true} {
		s = &spill{path: filepath.Join(t.TempDir(), "j.rows"), hold: 100, maxBytes: 64}
		for range 100 {
			if err := s.write(row); err != nil {
				t.Fatalf("a held row met the disk budget: %v", err)
			}
		}
		if past {
			s.write(row) // its error, or close's when the file's buffer is flushed
		}
		path, held, err := s.close()
		var be *DiskBudgetError
		switch {
		case !past && (err != nil || held.Rows() != 100 || path != ""):
			t.Errorf("100 rows held: close returned %q, %d rows, %v; want the rows and no file", path, held.Rows(), err)
		case past && (!errors.As(err, &be) || held.Rows() != 0 || path != ""):
			t.Errorf("the file past a 64-byte budget: close returned %q, %d rows, %v; want a DiskBudgetError", path, held.Rows(), err)
		}
	}
}

// appendBatch copies every table: a Batch field it left out would lose rows.
func TestAppendBatchCopiesEveryTable(t *testing.T) {
	var b stats.Batch
	bv := reflect.ValueOf(&b).Elem()
	for i := 0; i < bv.NumField(); i++ {
		s := bv.Field(i)
		row := reflect.New(s.Type().Elem()).Elem()
		row.FieldByName("JobID").SetString("j")
		s.Set(reflect.Append(s, row, row))
	}
	var dst stats.Batch
	appendBatch(&dst, b)
	appendBatch(&dst, b)
	if dst.Rows() != 2*b.Rows() || b.Rows() != 2*bv.NumField() {
		t.Fatalf("%d rows from twice %d", dst.Rows(), b.Rows())
	}
	dv := reflect.ValueOf(&dst).Elem()
	for i := 0; i < bv.NumField(); i++ {
		bv.Field(i).Index(0).FieldByName("JobID").SetString("overwritten")
		if got := dv.Field(i); got.Len() != 4 || got.Index(0).FieldByName("JobID").String() != "j" {
			t.Errorf("%s: %d rows, first of job %q; want 4 copies of job j's", bv.Type().Field(i).Name, got.Len(), got.Index(0).FieldByName("JobID"))
		}
	}
}

// A job abandoned (a second interrupt) after it emitted rows, which its spill holds,
// leaves none of them in the tables, nor the rows it emits once abandoned; the jobs
// finished before it keep all theirs.
func TestAbandonedJobsHeldRowsDropped(t *testing.T) {
	t.Parallel()
	p := heldPlan(t)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	abort := make(chan struct{})
	var abandoned string
	after := make(chan error, 1)
	job := func(jctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		if cfg.Switch.SharedBufferManager.LossyAlpha != 2 {
			return heldJob(jctx, cfg, id, emit)
		}
		abandoned = id
		b := heldRows(id, 100)
		if err := emit(b); err != nil {
			return nil, err
		}
		cancel()     // the first stop signal
		close(abort) // the second: the running job is abandoned
		<-jctx.Done()
		after <- emit(b)
		return &stats.Result{Rec: stats.NewRecorder(id, nil)}, nil
	}
	_, err := Run(ctx, p, job, Options{Dir: dir, Workers: 1, Abort: abort, CommitInterval: time.Hour})
	if err == nil {
		t.Fatal("an interrupted sweep returned no error")
	}
	<-after // the abandoned job has emitted its last batch
	nd, status := rowsPerJob(t, dir)
	if _, ok := status[abandoned]; ok || nd[abandoned] != 0 {
		t.Errorf("the abandoned job is recorded %q with %d nd_stats rows; want neither", status[abandoned], nd[abandoned])
	}
	for _, j := range p.Jobs {
		if st, ok := status[j.ID]; ok && (st != "ok" || nd[j.ID] != heldSteps(j.Config)) {
			t.Errorf("job %s: %s with %d rows, want ok with %d", j.ID, st, nd[j.ID], heldSteps(j.Config))
		}
	}
}

// The memory freeHeld hands on has every row zeroed, up to its capacity: gob decodes a
// worker's response into it and leaves zero fields out, so a value left from the rows
// written would stay in the next job's.
func TestFreeHeldZeroesTheMemory(t *testing.T) {
	b := heldRows("j", 100)
	nd, msgs := b.NdStats[:cap(b.NdStats)], b.Messages[:cap(b.Messages)]
	freeHeld(b)
	for i, r := range nd {
		if r != (stats.NdStats{}) {
			t.Fatalf("nd_stats row %d of the memory freed: %+v", i, r)
		}
	}
	for i, r := range msgs {
		if r != (stats.Message{}) {
			t.Fatalf("messages row %d of the memory freed: %+v", i, r)
		}
	}
}
