package study

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// A sequential selection (`run --select`, studies.md "Selecting the best point") runs a
// study in rounds: every grid point runs select.initial replicates (the plan: Expand
// with that many replicates), then only the points still in contention run one more
// replicate per round, until the procedure of package selection decides. The decision is
// recomputed before every round from the committed jobs table alone (Decide), so a
// killed and resumed sweep, any -j and any number of shards reach the same rounds, the
// same jobs and the same decision.

// SelectReport is what Select did: its rounds' runs added up, and the decision it ended
// with.
type SelectReport struct {
	*launch.Report
	Decision selection.Decision
	// Bisection is the decision of a bisection (Bisect); nil for a selection.
	Bisection *selection.BisectDecision
	Rounds    int // rounds run in this session (first stage included)
	// Waiting is set when this shard has run all it can of the current round and the
	// other shards' jobs are still missing: run again when they finish. Missing lists
	// them by shard.
	Waiting bool
	Missing []ShardJobs
}

// ShardJobs is the jobs of one shard (K of Shard N) that a selection round still needs.
type ShardJobs struct {
	Shard sweep.Shard
	IDs   []string
}

// missingByShard groups the jobs a round needs by the shard that runs them (the shard
// of a job is its plan index mod n, resultsdir.InShard), in shard order.
func missingByShard(need []*sweep.Job, n int) []ShardJobs {
	var out []ShardJobs
	for k := 1; k <= max(n, 1); k++ {
		sj := ShardJobs{Shard: sweep.Shard{K: k, N: max(n, 1)}}
		for _, j := range need {
			if resultsdir.InShard(j.Index, k, n) {
				sj.IDs = append(sj.IDs, j.ID)
			}
		}
		if len(sj.IDs) > 0 {
			out = append(out, sj)
		}
	}
	return out
}

// MissingText names the shards of m and their jobs: "shard 2/3 (4 jobs: 1a2b..., ...)".
func MissingText(m []ShardJobs) string {
	var parts []string
	for _, sj := range m {
		ids := sj.IDs
		more := ""
		if len(ids) > 3 {
			ids, more = ids[:3], ", ..."
		}
		parts = append(parts, fmt.Sprintf("shard %s (%d %s: %s%s)", sj.Shard.Tag(), len(sj.IDs), plural(len(sj.IDs), "job"), strings.Join(ids, ", "), more))
	}
	return strings.Join(parts, "; ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// DefaultWaitLimit is `run --wait-limit`'s default: long enough for another shard's
// slowest job of a round (an overnight study's jobs take seconds to minutes), short
// enough that a shard whose peers never started gives up the same hour.
const DefaultWaitLimit = time.Hour

// WaitLimitError is Select's error when a waiting shard (Options.Wait) saw none of the
// jobs it waits for committed within Options.WaitLimit: the shards that should run them
// are stopped, stuck or never started. The selection is not decided; the journal is
// consistent, so the same command resumes.
type WaitLimitError struct {
	Round   int
	Shard   sweep.Shard
	Limit   time.Duration
	Missing []ShardJobs
}

func (e *WaitLimitError) Error() string {
	n := 0
	for _, sj := range e.Missing {
		n += len(sj.IDs)
	}
	return fmt.Sprintf("selection round %d: shard %s has run its jobs and waited --wait-limit %v for %d %s of other shards, and none was committed in that time: %s. "+
		"The selection is not decided. Start those shards (rocesweep status DIR shows them), then run this command again (it resumes), or raise --wait-limit",
		e.Round+1, e.Shard.Tag(), e.Limit, n, plural(n, "job"), MissingText(e.Missing))
}

// waiting is a shard's wait for the other shards' jobs of a round: when it started (or
// last saw one of them committed) and how long it sleeps next.
type waiting struct {
	round, need int
	since       time.Time
	pause       time.Duration
}

// next returns how long to sleep before looking again, and stuck when none of the jobs
// the shard waits for was committed within limit (0: no limit). A new round, or fewer
// jobs missing than at the last look, restarts the limit and the polling at 100 ms,
// which doubles up to every maxPause.
func (w *waiting) next(round, need int, maxPause, limit time.Duration) (pause time.Duration, stuck bool) {
	now := time.Now()
	if w.since.IsZero() || round != w.round || need < w.need {
		*w = waiting{round: round, need: need, since: now, pause: min(100*time.Millisecond, maxPause)}
	} else {
		w.pause = min(2*w.pause, maxPause)
	}
	if limit > 0 && now.Sub(w.since) >= limit {
		return 0, true
	}
	if limit > 0 {
		return min(w.pause, w.since.Add(limit).Sub(now)), false
	}
	return w.pause, false
}

// Select runs plan p as a sequential selection (see above), or, when its objective is a
// bisection, as a bisection (Bisect). p must have been expanded with
// Spec.Replicates = the first stage's replicates (SelectionConfig().Initial). It
// reads the results directory back between rounds (either format: resultsdir.Parts). The
// returned report adds up every round of this session; its error is the first round's
// error that stopped it (an interrupt, --fail-fast, a results error).
func Select(ctx context.Context, p *sweep.Plan, job launch.JobFunc, o launch.Options) (*SelectReport, error) {
	if p.Bisecting() {
		return Bisect(ctx, p, job, o)
	}
	cfg := p.SelectionConfig()
	if cfg.Initial != p.Spec.Replicates {
		return nil, &launch.SetupError{Err: fmt.Errorf("sweep: a selection plan must have %d replicates (select.initial), has %d", cfg.Initial, p.Spec.Replicates)}
	}
	if min := p.Points * cfg.Initial; cfg.MaxJobs < min {
		return nil, &launch.SetupError{Err: fmt.Errorf("%s: select.max_jobs %d is below the first stage's %d jobs (%d points × %d replicates)", p.Spec.File, cfg.MaxJobs, min, p.Points, cfg.Initial)}
	}
	o.Selection = &cfg
	sr := &SelectReport{Report: &launch.Report{Dir: o.Dir, Planned: len(p.Jobs), Summaries: map[*sweep.Job]*stats.Summary{}}}
	err := runRounds(ctx, p, job, o, sr, func(cache *resultsdir.PartCache) (nextRound, error) {
		dec, committed, err := decide(p, o.Dir, cache)
		if err != nil {
			return nextRound{}, err
		}
		sr.Decision = dec
		if dec.State != selection.Running {
			return nextRound{done: true, committed: committed}, nil
		}
		nr := nextRound{round: dec.Round, what: "selection"}
		for _, n := range dec.Need {
			nr.need = append(nr.need, p.JobFor(n.Point, n.Replicate))
		}
		if dec.Stage > 0 || sr.Rounds > 0 {
			nr.progress = fmt.Sprintf("selection round %d: %d points in contention, %d jobs", dec.Round+1, len(dec.Survivors), len(nr.need))
		}
		return nr, nil
	})
	return sr, err
}

// nextRound is what a sequential procedure asks for next (runRounds): the jobs of its
// next round, or done when it has ended (committed: the jobs it has, for a session that
// found it ended by what earlier sessions committed).
type nextRound struct {
	done      bool
	committed int
	need      []*sweep.Job
	round     int    // the round waited for, from 0 (for messages)
	what      string // the procedure, for messages: "selection", "bisection"
	progress  string // the progress line before the round runs; "" for none
}

// runRounds runs a sequential procedure's rounds (a selection's, a bisection's): next
// decides from the committed results what to run, runRounds runs this shard's part of
// it (or waits for the other shards' with Options.Wait), then asks again, until next
// says done, a round fails, or a shard has nothing left to run. sr adds up the rounds.
func runRounds(ctx context.Context, p *sweep.Plan, job launch.JobFunc, o launch.Options, sr *SelectReport, next func(*resultsdir.PartCache) (nextRound, error)) error {
	resume := o.Resume
	var last []string // the jobs the previous round asked for
	var cache resultsdir.PartCache
	var w waiting
	for {
		nr, err := next(&cache)
		if err != nil {
			return err
		}
		if nr.done {
			if sr.Rounds == 0 { // decided by what an earlier session committed
				sr.Selected, sr.Skipped = nr.committed, nr.committed
			}
			return nil
		}
		var ids []string
		for _, j := range nr.need {
			ids = append(ids, j.ID)
		}
		mine := o.Shard.Select(nr.need)
		if len(mine) == 0 && o.Wait > 0 {
			// Lock-step shards: wait for the others' jobs of this round, as long as they
			// keep committing some within WaitLimit.
			pause, stuck := w.next(nr.round, len(nr.need), o.Wait, o.WaitLimit)
			if stuck {
				return &WaitLimitError{Round: nr.round, Shard: o.Shard, Limit: o.WaitLimit, Missing: missingByShard(nr.need, o.Shard.N)}
			}
			select {
			case <-ctx.Done():
				sr.Report.Stopped = "interrupted" // exit 130, as an interrupt while jobs run
				return fmt.Errorf("interrupted while waiting for %d jobs of other shards; the journal is consistent, run again with --resume", len(nr.need))
			case <-time.After(pause):
			}
			resume = true
			continue
		}
		if len(mine) == 0 || slices.Equal(ids, last) && sr.Rounds > 0 {
			// This shard has nothing left of the round (the other shards' jobs are
			// missing), or the round it ran did not commit what it needed.
			sr.Waiting = len(mine) == 0
			if !sr.Waiting {
				return fmt.Errorf("%s: round %d ran but %d of its jobs are still not committed; run again with --resume", nr.what, nr.round, len(nr.need))
			}
			sr.Missing = missingByShard(nr.need, o.Shard.N)
			return nil
		}
		w = waiting{}
		last = ids
		if o.Progress != nil && nr.progress != "" {
			fmt.Fprintf(o.Progress, "rocesweep: %s\n", nr.progress)
		}
		ro := o
		ro.Jobs, ro.Resume = nr.need, resume
		rep, err := launch.Run(ctx, p, job, ro)
		sr.Rounds++
		sr.add(rep)
		if err != nil {
			return err
		}
		resume = true
	}
}

// add adds the counts of one round's report.
func (sr *SelectReport) add(r *launch.Report) {
	if r == nil {
		return
	}
	t := sr.Report
	t.Selected += r.Selected
	t.Skipped += r.Skipped
	t.OK += r.OK
	t.Failed += r.Failed
	t.Timeout += r.Timeout
	t.Invalid += r.Invalid
	t.Abandoned += r.Abandoned
	t.WorkerProcesses += r.WorkerProcesses
	t.Lost += r.Lost
	t.Machine += r.Machine
	t.NotRun += r.NotRun
	t.Stopped = r.Stopped
	t.Wall += r.Wall
	t.Events += r.Events
	t.Recovery = r.Recovery
	t.Sink.Commits += r.Sink.Commits
	t.Sink.Jobs += r.Sink.Jobs
	t.Sink.Rows += r.Sink.Rows
	t.Sink.Bytes += r.Sink.Bytes
	t.Sink.Files += r.Sink.Files
	for j, s := range r.Summaries {
		t.Summaries[j] = s
	}
	t.Errors = append(t.Errors, r.Errors...)
}

// Decide replays the selection over the jobs committed in dir (every shard) and returns
// where it stands. A directory without a jobs table yet is a selection before its first
// stage.
func Decide(p *sweep.Plan, dir string) (selection.Decision, error) {
	d, _, err := decide(p, dir, &resultsdir.PartCache{})
	return d, err
}

// decide is Decide reading through cache (Select keeps one across its rounds: each
// committed part is read once). It also returns the selection's committed jobs, which
// may be more than the decision used: jobs run ahead, or after a point left.
func decide(p *sweep.Plan, dir string, cache *resultsdir.PartCache) (selection.Decision, int, error) {
	jobs, err := cache.ReadTable(dir, "jobs")
	if errors.Is(err, fs.ErrNotExist) {
		jobs, err = &resultsdir.Table{Name: "jobs"}, nil
	}
	if err != nil {
		return selection.Decision{}, 0, fmt.Errorf("selection: reading %s: %w", dir, err)
	}
	prob, err := p.Problem(jobs, p.SelectionConfig())
	if err != nil {
		return selection.Decision{}, 0, err
	}
	committed := 0
	for _, pt := range prob.Points {
		for _, o := range pt.Reps {
			if o.State != selection.Missing {
				committed++
			}
		}
	}
	dec, err := p.DecideProblem(prob)
	return dec, committed, err
}

// Replan re-plans the sweep that wrote dir from its manifest.json (the spec as given,
// its --set overrides, its objective and selection settings), as the run planned it,
// without validating jobs. A selection's plan is its first stage.
func Replan(dir string) (*sweep.Plan, *resultsdir.Manifest, error) {
	m, err := resultsdir.ReadManifestFS(nil, dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := specfile.ParseOverrides(m.SpecFile, []byte(m.Spec), specfile.Overrides{Sets: m.Sets, Grids: m.Grids})
	if err != nil {
		return nil, m, fmt.Errorf("%s: the spec in manifest.json does not parse: %w", dir, err)
	}
	if m.Objective != nil {
		o := *m.Objective
		s.Objective = &o
	}
	if m.Select != nil {
		c := *m.Select
		s.Select = &c
		s.UseSelection()
	}
	p, err := sweep.Expand(s, nil)
	if err != nil {
		return nil, m, fmt.Errorf("%s: the spec in manifest.json does not plan: %w", dir, err)
	}
	return p, m, nil
}

// DecideDir replays the decision of the results in dir: a selection's (run --select),
// or, for a fixed design of 2 or more replicates, what the procedure concludes from its
// replicates taken as a first stage (usually that more jobs are needed: a fixed design
// rarely decides). nil without a decision to make (one replicate, one point) and for a
// bisection, whose answers BisectDir replays.
func DecideDir(dir string) (*selection.Decision, *sweep.Plan, error) {
	p, m, err := Replan(dir)
	if err != nil {
		return nil, nil, err
	}
	if p.Bisecting() {
		return nil, p, nil // a bisection decides per condition: BisectDir
	}
	if m.Select == nil && (p.Spec.Replicates < 2 || p.Points < 1) {
		return nil, p, nil
	}
	dec, err := Decide(p, dir)
	if err != nil {
		return nil, p, err
	}
	return &dec, p, nil
}
