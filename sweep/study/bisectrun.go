package study

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
)

// Bisect runs plan p's bisection (its objective is smallest: or largest:, sweep/bisect.go) in
// rounds: the plan (every condition's first probe, at the range's safe end), then the
// probes selection.BisectDecide asks for, replayed from the committed jobs table before
// every round, as a selection's rounds are (runRounds): a killed and resumed run, any
// -j and any shards reach the same probes, jobs and answers.
func Bisect(ctx context.Context, p *sweep.Plan, job launch.JobFunc, o launch.Options) (*SelectReport, error) {
	cfg := p.BisectConfig()
	want := 1
	if !p.Spec.Objective.Bisect.Deterministic {
		want = cfg.Initial
	}
	if p.Spec.Replicates != want {
		return nil, &launch.SetupError{Err: fmt.Errorf("sweep: a bisection's plan must have %d replicates of its first probe, has %d", want, p.Spec.Replicates)}
	}
	if cfg.MaxJobs < len(p.Jobs) {
		return nil, &launch.SetupError{Err: fmt.Errorf("%s: select.max_jobs %d is below the first probes' %d jobs (%d conditions × %d)", p.Spec.File, cfg.MaxJobs, len(p.Jobs), p.Points, want)}
	}
	o.Selection = &cfg
	sr := &SelectReport{Report: &launch.Report{Dir: o.Dir, Planned: len(p.Jobs), Summaries: map[*sweep.Job]*stats.Summary{}}}
	err := runRounds(ctx, p, job, o, sr, func(cache *resultsdir.PartCache) (nextRound, error) {
		dec, err := decideBisect(p, o.Dir, cache)
		if err != nil {
			return nextRound{}, err
		}
		sr.Bisection = &dec
		if dec.State != selection.Running {
			return nextRound{done: true, committed: dec.Jobs}, nil
		}
		nr := nextRound{round: dec.Round - 1, what: "bisection"}
		open := 0
		for _, c := range dec.Conditions {
			if c.State == selection.CondRunning {
				open++
			}
		}
		for _, n := range dec.Need {
			nr.need = append(nr.need, p.ProbeJob(n))
		}
		if dec.Round > 1 || sr.Rounds > 0 {
			nr.progress = fmt.Sprintf("bisection round %d: %d of %d conditions open, %d jobs", dec.Round, open, len(dec.Conditions), len(nr.need))
		}
		return nr, nil
	})
	return sr, err
}

// decideBisect replays the bisection over the jobs committed in dir (every shard),
// reading through cache. A directory without a jobs table yet is a bisection before its
// first probes.
func decideBisect(p *sweep.Plan, dir string, cache *resultsdir.PartCache) (selection.BisectDecision, error) {
	jobs, err := cache.ReadTable(dir, "jobs")
	if errors.Is(err, fs.ErrNotExist) {
		jobs, err = &resultsdir.Table{Name: "jobs"}, nil
	}
	if err != nil {
		return selection.BisectDecision{}, fmt.Errorf("bisection: reading %s: %w", dir, err)
	}
	prob, err := p.BisectProblem(jobs)
	if err != nil {
		return selection.BisectDecision{}, err
	}
	return selection.BisectDecide(prob), nil
}

// DecideBisect replays the bisection of plan p over the jobs committed in dir.
func DecideBisect(p *sweep.Plan, dir string) (selection.BisectDecision, error) {
	return decideBisect(p, dir, &resultsdir.PartCache{})
}

// BisectDir replays the bisection of the results in dir and states it as status,
// report and run show it (BisectionStatus). nil when dir's study is no bisection.
func BisectDir(dir string) (*resultsdir.BisectionStatus, *sweep.Plan, error) {
	p, _, err := Replan(dir)
	if err != nil {
		return nil, nil, err
	}
	if !p.Bisecting() {
		return nil, p, nil
	}
	dec, err := DecideBisect(p, dir)
	if err != nil {
		return nil, p, err
	}
	return p.BisectionStatus(&dec), p, nil
}

// bisectDecided is the status of a bisection for ReadStatus (DecideStatus): the jobs it
// waits for by plan index, and whether it goes on.
func bisectDecided(p *sweep.Plan, dir string) (*resultsdir.Decided, error) {
	dec, err := DecideBisect(p, dir)
	if err != nil {
		return nil, err
	}
	out := &resultsdir.Decided{Bisection: p.BisectionStatus(&dec), Going: dec.State == selection.Running}
	for _, n := range dec.Need {
		out.Need = append(out.Need, p.ProbeJob(n).Index)
	}
	return out, nil
}
