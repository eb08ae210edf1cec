package study_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// running reports whether a study's rounds are still running: its bisection's, or, for
// a selection, its decision's.
func running(sr *study.SelectReport) bool {
	if sr.Bisection != nil {
		return sr.Bisection.State == selection.Running
	}
	return sr.Decision.State == selection.Running
}

// selectKilled runs the study of plan in dir as a killed sweep is run again: each run
// is cancelled once every jobs more jobs have started, and the next resumes it, until
// the study has ended. It returns the last run's report.
func selectKilled(t *testing.T, plan func() *sweep.Plan, job launch.JobFunc, dir string, every int64) *study.SelectReport {
	t.Helper()
	var started atomic.Int64
	for attempt := 0; attempt <= 200; attempt++ {
		ctx, cancel := context.WithCancel(context.Background())
		stopAt := started.Load() + every
		killing := func(c context.Context, cfg config.Config, id string, emit func(stats.Batch) error) (*stats.Result, error) {
			if started.Add(1) >= stopAt {
				cancel()
			}
			return job(c, cfg, id, emit)
		}
		sr, err := study.Select(ctx, plan(), killing, launch.Options{Dir: dir, Workers: 2, Resume: attempt > 0})
		cancel()
		if err == nil && !running(sr) {
			return sr
		}
	}
	t.Fatal("still running after 200 kills")
	return nil
}

// selectShards runs the study in dir as two shards, 1/2 then 2/2, each in turn without
// waiting for the other (run with Shard and Resume set), until the study has ended. It
// returns the last run's report.
func selectShards(t *testing.T, dir string, run func(dir string, o launch.Options) *study.SelectReport) *study.SelectReport {
	t.Helper()
	for attempt := 0; attempt <= 200; attempt++ {
		var last *study.SelectReport
		for k := 1; k <= 2; k++ {
			last = run(dir, launch.Options{Workers: 1, Shard: sweep.Shard{K: k, N: 2}, Resume: true})
		}
		if !running(last) {
			return last
		}
	}
	t.Fatal("shards: still running after 200 turns")
	return nil
}
