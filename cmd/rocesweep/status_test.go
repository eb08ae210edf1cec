package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/slurm"
)

const ciSpec = "../../configs/ci.yaml"

// statusJSON runs `status DIR --json` in-process.
func statusJSON(t *testing.T, dir string) resultsdir.Status {
	t.Helper()
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"status", dir, "--json"}, &out, &errb); code != 0 {
		t.Fatalf("status exit %d: %s", code, errb.String())
	}
	var st resultsdir.Status
	if err := json.Unmarshal(out.Bytes(), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out.String())
	}
	return st
}

func statusText(t *testing.T, dir string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"status", dir}, &out, &errb); code != 0 {
		t.Fatalf("status exit %d: %s", code, errb.String())
	}
	return out.String()
}

func shardOf(t *testing.T, st resultsdir.Status, shard string) resultsdir.ShardStatus {
	t.Helper()
	for _, s := range st.Shards {
		if s.Shard == shard {
			return s
		}
	}
	t.Fatalf("status has no shard %s: %+v", shard, st.Shards)
	return resultsdir.ShardStatus{}
}

// signalWriter passes what is written on to w and closes seen once it has passed want.
type signalWriter struct {
	w    io.Writer
	mu   sync.Mutex
	buf  bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return w.w.Write(p)
}

// runInterruptedAfterFirstJob runs `run args...` with the real simulation and -j 1 in a
// child process, and interrupts it (as SIGTERM from scancel does) once the first job has
// finished (interruptEnv): exactly one job is recorded and the rest of the shard is
// missing.
func runInterruptedAfterFirstJob(t *testing.T, args ...string) {
	t.Helper()
	code, out, stderr, _ := runChild(t, []string{"ROCESWEEP_TEST_REAL=1", interruptEnv + "=1"}, append(append([]string{"run"}, args...), "-j", "1")...)
	if code != 130 {
		t.Fatalf("interrupted run: exit %d, want 130\n%s%s", code, out, stderr)
	}
}

// A real sweep (configs/ci.yaml, the simulation) in 3 shards, one of them interrupted
// after its first job: status counts each shard from its journal, and after the partial
// shard resumes it reports the sweep complete.
func TestStatusAcrossShards(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ci")
	p := expand(t, ciSpec)
	for _, shard := range []string{"1/3", "2/3"} {
		var out, errb bytes.Buffer
		if code := mainWithArgs(context.Background(), []string{"run", ciSpec, "-o", dir, "--shard", shard, "-j", "2"}, &out, &errb); code != 0 {
			t.Fatalf("shard %s: exit %d\n%s", shard, code, errb.String())
		}
	}
	runInterruptedAfterFirstJob(t, ciSpec, "-o", dir, "--shard", "3/3")
	// shard 3/3 is being written again (its lock is held) while status looks
	unlock, err := dirfs.OS{}.Lock(dirfs.LockName(dir, "3of3"))
	if err != nil {
		t.Fatal(err)
	}

	st := statusJSON(t, dir)
	if st.Name != "ci" || st.PlanSize != len(p.Jobs) || !st.Started || len(st.Shards) != 3 || st.Complete || st.Duplicates != 0 {
		t.Fatalf("status = %+v", st)
	}
	for _, want := range []resultsdir.ShardStatus{
		{Shard: "1/3", Journal: "journal-1of3.jsonl", Planned: 2, OK: 2},
		{Shard: "2/3", Journal: "journal-2of3.jsonl", Planned: 2, OK: 2},
		{Shard: "3/3", Journal: "journal-3of3.jsonl", Planned: 2, OK: 1, Missing: 1},
	} {
		got := shardOf(t, st, want.Shard)
		if running := strings.HasPrefix(got.Writer, fmt.Sprintf("pid %d on ", os.Getpid())); running != (want.Shard == "3/3") {
			t.Errorf("shard %s: writer %q", want.Shard, got.Writer)
		}
		got.Updated, got.Age, got.Writer = "", 0, ""
		if got != want {
			t.Errorf("shard %s: %+v, want %+v", want.Shard, got, want)
		}
	}
	if tot := st.Total; tot.Planned != 6 || tot.OK != 5 || tot.Missing != 1 {
		t.Errorf("total = %+v, want 6 planned, 5 ok, 1 missing", tot)
	}
	text := statusText(t, dir)
	for _, want := range []string{"ci: 6 jobs in 3 shards", "3/3    2        1   0       0        0        1", "in progress: 1 of 6 jobs still to run in 1 shard being written now",
		fmt.Sprintf("ago, running: pid %d on ", os.Getpid())} {
		if !strings.Contains(text, want) {
			t.Errorf("status text lacks %q:\n%s", want, text)
		}
	}
	if strings.Count(text, "running: ") != 1 {
		t.Errorf("status text: one shard runs:\n%s", text)
	}
	if strings.Contains(text, "jobs missing") || strings.Contains(text, "--resume") {
		t.Errorf("status text: the running shard's job is not missing and needs no --resume:\n%s", text)
	}
	unlock()

	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"run", ciSpec, "-o", dir, "--shard", "3/3", "--resume"}, &out, &errb); code != 0 {
		t.Fatalf("resume shard 3/3: exit %d\n%s", code, errb.String())
	}
	st = statusJSON(t, dir)
	if !st.Complete || st.Total.OK != 6 || st.Total.Missing != 0 || shardOf(t, st, "3/3").OK != 2 {
		t.Errorf("after resume: %+v", st)
	}
	if text := statusText(t, dir); !strings.Contains(text, "complete: all 6 jobs ok") {
		t.Errorf("after resume:\n%s", text)
	}
	// tables: each table's rows in the committed files of all three shards.
	if len(st.Tables) == 0 || st.Tables[0].Table != "jobs" || st.Tables[0].Rows != 6 || st.Tables[0].Files != 4 {
		t.Errorf("status --json tables = %+v, want jobs first: 6 rows in 4 files", st.Tables)
	}
	for _, tr := range st.Tables {
		if tb, err := resultsdir.ReadTable(dir, tr.Table, nil); err != nil || int64(tb.Rows) != tr.Rows {
			t.Errorf("status counts %d rows of %s; ReadTable: %v", tr.Rows, tr.Table, err)
		}
	}
}

// Failed jobs count as recorded, not missing; shards of the array that have not started
// are listed with everything missing.
func TestStatusFailedAndNotStarted(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runChild(t, []string{failAlphaEnv + "=2"}, "run", spec, "-o", dir, "--shard", "1/4", "-j", "2"); code != 1 {
		t.Fatalf("exit %d, want 1 (failed jobs)\n%s", code, stderr)
	}
	failed := 0
	mine := sweep.Shard{K: 1, N: 4}.Select(p.Jobs)
	for _, j := range mine {
		if j.Config.Switch.SharedBufferManager.LossyAlpha == 2 {
			failed++
		}
	}
	st := statusJSON(t, dir)
	if len(st.Shards) != 4 || st.Complete {
		t.Fatalf("status = %+v", st)
	}
	s1 := shardOf(t, st, "1/4")
	if s1.Planned != len(mine) || s1.Failed != failed || s1.OK != len(mine)-failed || s1.Missing != 0 || failed == 0 {
		t.Errorf("shard 1/4 = %+v, want %d planned, %d failed", s1, len(mine), failed)
	}
	for _, k := range []string{"2/4", "3/4", "4/4"} {
		s := shardOf(t, st, k)
		if s.Journal != "" || s.Planned != 9 || s.Missing != 9 || s.Updated != "" {
			t.Errorf("shard %s = %+v, want not started, 9 missing", k, s)
		}
	}
	if tot := st.Total; tot.Planned != 36 || tot.Failed != failed || tot.Missing != 27 {
		t.Errorf("total = %+v", tot)
	}
	if text := statusText(t, dir); !strings.Contains(text, "not started") || !strings.Contains(text, "27 of 36 jobs missing") {
		t.Errorf("status text:\n%s", text)
	}
}

// A path that is not a results directory is refused, naming it; a directory holding only
// the array script (no task started yet) is a status, exit 0.
func TestStatusNotAResultsDir(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	for _, dir := range []string{empty, filepath.Join(empty, "nope")} {
		var out, errb bytes.Buffer
		code := mainWithArgs(context.Background(), []string{"status", dir}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), dir) {
			t.Errorf("status %s: exit %d, want 2 naming the path:\n%s", dir, code, errb.String())
		}
	}
	os.MkdirAll(filepath.Join(empty, slurm.Subdir), 0o755)
	os.WriteFile(filepath.Join(empty, slurm.Subdir, slurm.ScriptName), []byte("#!/bin/bash\n"), 0o755)
	st := statusJSON(t, empty)
	if st.Started || len(st.Shards) != 0 || len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "no task has started") {
		t.Errorf("status of a submitted, not started array = %+v", st)
	}
}
