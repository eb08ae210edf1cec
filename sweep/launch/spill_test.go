package launch_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// streamingJob is sweeptest's job whose rows leave it through the emitter one row per
// batch (nd_stats and messages), the rest staying in the Result: the runner must write
// both, emitted rows first, so each table holds exactly the rows of the fake's Result.
func streamingJob(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
	res := sweeptest.Result(cfg, id, 1)
	if emit == nil {
		panic("the runner gave no emitter")
	}
	nd, msgs := res.Rec.NdStats, res.Rec.Messages
	for _, r := range nd[:len(nd)-1] {
		if err := emit(stats.Batch{NdStats: []stats.NdStats{r}}); err != nil {
			return nil, err
		}
	}
	if err := emit(stats.Batch{Messages: msgs}); err != nil {
		return nil, err
	}
	res.Rec.NdStats, res.Rec.Messages = nd[len(nd)-1:], nil
	return res, nil
}

func TestStreamedRowsReachTheTablesOnce(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		dir := filepath.Join(t.TempDir(), "out")
		if _, err := run(t, p, streamingJob, launch.Options{Dir: dir, Workers: 3, Format: format}); err != nil {
			t.Fatal(err)
		}
		if format == resultsdir.Arrow {
			continue // sink's tests read Arrow; here: the spill folder is gone
		}
		exactlyOnce(t, dir, p.Jobs)
		got := readTable[stats.NdStats](t, dir, "nd_stats")
		var want []stats.NdStats
		for _, j := range p.Jobs {
			want = append(want, sweeptest.Result(j.Config, j.ID, 1).Rec.NdStats...)
		}
		key := func(r stats.NdStats) string { return r.JobID + string(rune(r.Ifid)) }
		sort.SliceStable(got, func(a, b int) bool { return key(got[a]) < key(got[b]) })
		sort.SliceStable(want, func(a, b int) bool { return key(want[a]) < key(want[b]) })
		if !reflect.DeepEqual(got, want) {
			t.Errorf("nd_stats: %d rows differ from the %d the jobs produced", len(got), len(want))
		}
		if _, err := os.Stat(filepath.Join(dir, ".spill-1of1")); !os.IsNotExist(err) {
			t.Errorf("spill folder left after the run: %v", err)
		}
	}
}

// A failed job's emitted rows never reach the tables.
func TestFailedJobsEmittedRowsDropped(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := filepath.Join(t.TempDir(), "out")
	failing := func(ctx context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
		res, err := streamingJob(ctx, cfg, id, emit)
		if cfg.Switch.SharedBufferManager.LossyAlpha == 1 {
			return nil, os.ErrDeadlineExceeded
		}
		return res, err
	}
	rep, err := run(t, p, failing, launch.Options{Dir: dir, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ok := map[string]bool{}
	for _, r := range readTable[jobRow](t, dir, "jobs") {
		ok[r.JobID] = r.Status == "ok"
	}
	for _, r := range readTable[stats.NdStats](t, dir, "nd_stats") {
		if !ok[r.JobID] {
			t.Fatalf("nd_stats holds a row of failed job %s", r.JobID)
		}
	}
	if rep.Failed != 6 || rep.OK != 18 {
		t.Errorf("%d ok, %d failed; want 18, 6", rep.OK, rep.Failed)
	}
}
