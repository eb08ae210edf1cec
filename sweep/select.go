package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/results"
	"github.com/rocesweep/rocesweep/selection"
)

// A sequential selection (`run --select`, studies.md "Selecting the best point") runs a
// study in rounds: every grid point runs select.initial replicates (the plan: Expand
// with that many replicates), then only the points still in contention run one more
// replicate per round, until the procedure of package selection decides. The decision is
// recomputed before every round from the committed jobs table alone (Decide), so a
// killed and resumed sweep, any -j and any number of shards reach the same rounds, the
// same jobs and the same decision.

// UseSelection makes s a selection's spec: its plan runs the first stage, select.initial
// replicates of every point (default selection.DefaultInitial), in place of
// `replicates` (a bisection's spec: its first probes, useBisection). It returns a
// warning when that drops a `replicates` the spec set.
func (s *Spec) UseSelection() string {
	if s.Objective != nil && s.Objective.Bisect != nil {
		return s.useBisection()
	}
	if s.Select == nil {
		s.Select = &selection.Config{}
	}
	n := s.Select.Initial
	if n == 0 {
		n = selection.DefaultInitial
	}
	warn := ""
	if s.Replicates > 1 && s.Replicates != n {
		warn = fmt.Sprintf("replicates: %d is not used by a selection: its first stage runs select.initial = %d replicates of every point, then more where the best point is still open", s.Replicates, n)
	}
	s.Select.Initial, s.Replicates = n, n
	return warn
}

// SelectionConfig is the selection procedure's settings for plan p (the spec's select:
// block, defaults applied for p's points).
func (p *Plan) SelectionConfig() selection.Config {
	var c selection.Config
	if p.Spec.Select != nil {
		c = *p.Spec.Select
	}
	if c.Initial == 0 {
		c.Initial = p.Spec.Replicates
	}
	return c.WithDefaults(p.Points)
}

// SelectReport is what Select did: its rounds' runs added up, and the decision it ended
// with.
type SelectReport struct {
	*Report
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
	Shard Shard
	IDs   []string
}

// missingByShard groups the jobs a round needs by the shard that runs them (the shard
// of a job is its plan index mod n, results.InShard), in shard order.
func missingByShard(need []*Job, n int) []ShardJobs {
	var out []ShardJobs
	for k := 1; k <= max(n, 1); k++ {
		sj := ShardJobs{Shard: Shard{K: k, N: max(n, 1)}}
		for _, j := range need {
			if results.InShard(j.Index, k, n) {
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
	Shard   Shard
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
// bisection, as a bisection (bisect.go, Bisect). p must have been expanded with
// Spec.Replicates = the first stage's replicates (SelectionConfig().Initial). It
// reads the results directory back between rounds (either format: results.Parts). The
// returned report adds up every round of this session; its error is the first round's
// error that stopped it (an interrupt, --fail-fast, a results error).
func Select(ctx context.Context, p *Plan, job JobFunc, o Options) (*SelectReport, error) {
	if p.Bisecting() {
		return Bisect(ctx, p, job, o)
	}
	cfg := p.SelectionConfig()
	if cfg.Initial != p.Spec.Replicates {
		return nil, &SetupError{fmt.Errorf("sweep: a selection plan must have %d replicates (select.initial), has %d", cfg.Initial, p.Spec.Replicates)}
	}
	if min := p.Points * cfg.Initial; cfg.MaxJobs < min {
		return nil, &SetupError{fmt.Errorf("%s: select.max_jobs %d is below the first stage's %d jobs (%d points × %d replicates)", p.Spec.File, cfg.MaxJobs, min, p.Points, cfg.Initial)}
	}
	o.Selection = &cfg
	sr := &SelectReport{Report: &Report{Dir: o.Dir, Planned: len(p.Jobs), Summaries: map[*Job]*stats.Summary{}}}
	err := runRounds(ctx, p, job, o, sr, func(cache *results.PartCache) (nextRound, error) {
		dec, committed, err := p.decide(o.Dir, cache)
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
	need      []*Job
	round     int    // the round waited for, from 0 (for messages)
	what      string // the procedure, for messages: "selection", "bisection"
	progress  string // the progress line before the round runs; "" for none
}

// runRounds runs a sequential procedure's rounds (a selection's, a bisection's): next
// decides from the committed results what to run, runRounds runs this shard's part of
// it (or waits for the other shards' with Options.Wait), then asks again, until next
// says done, a round fails, or a shard has nothing left to run. sr adds up the rounds.
func runRounds(ctx context.Context, p *Plan, job JobFunc, o Options, sr *SelectReport, next func(*results.PartCache) (nextRound, error)) error {
	resume := o.Resume
	var last []string // the jobs the previous round asked for
	var cache results.PartCache
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
		rep, err := Run(ctx, p, job, ro)
		sr.Rounds++
		sr.add(rep)
		if err != nil {
			return err
		}
		resume = true
	}
}

// add adds the counts of one round's report.
func (sr *SelectReport) add(r *Report) {
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
func (p *Plan) Decide(dir string) (selection.Decision, error) {
	d, _, err := p.decide(dir, &results.PartCache{})
	return d, err
}

// decide is Decide reading through cache (Select keeps one across its rounds: each
// committed part is read once). It also returns the selection's committed jobs, which
// may be more than the decision used: jobs run ahead, or after a point left.
func (p *Plan) decide(dir string, cache *results.PartCache) (selection.Decision, int, error) {
	jobs, err := cache.ReadTable(dir, "jobs")
	if errors.Is(err, fs.ErrNotExist) {
		jobs, err = &results.Table{Name: "jobs"}, nil
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

// Problem builds the selection problem of plan p from a jobs table: point i's replicate
// r is the row whose job_id is JobFor(i, r)'s, so rows of other plans in the directory
// (an extended sweep, another spec) are ignored. cfg must have its defaults applied.
func (p *Plan) Problem(jobs *results.Table, cfg selection.Config) (selection.Problem, error) {
	obj := p.Spec.Objective
	prob := selection.Problem{Goal: obj.Goal, Delta: obj.Indifference, DeltaPercent: obj.IndifferencePercent, Config: cfg, Metric: obj.Metric}
	var near *results.Column
	if t := obj.Then; t != nil {
		// A secondary objective: select on then's metric among the points near the best
		// on the primary (selection.Near).
		prob.Near = &selection.Near{Metric: obj.Metric, Goal: obj.Goal, Delta: obj.Indifference}
		prob.Goal, prob.Delta, prob.DeltaPercent, prob.Metric = t.Goal, t.Indifference, t.IndifferencePercent, t.Metric
		near = jobs.Col(obj.Metric)
	}
	var reqs []*constraint.Requirement
	for _, text := range obj.SubjectTo {
		c, err := constraint.ParseRequirement(text)
		if err != nil {
			return prob, fmt.Errorf("objective.subject_to: %v", err)
		}
		reqs = append(reqs, c)
		prob.Constraints = append(prob.Constraints, selection.Constraint{Text: text, Kind: c.Kind, Sense: c.Sense, Bound: c.Bound, Tolerance: c.Tolerance})
	}
	row := map[string]int{}
	maxRep := 0
	if ids := jobs.Col("job_id"); ids != nil && ids.IsString() {
		for r, id := range ids.Str {
			row[id] = r
		}
		if rc := jobs.Col("replicate"); rc != nil && !rc.IsString() {
			for r := range rc.Num {
				if !rc.Null[r] {
					maxRep = max(maxRep, int(rc.Num[r])+1)
				}
			}
		}
	}
	var vec []*results.Column
	for _, o := range obj.Pareto {
		prob.Pareto = append(prob.Pareto, selection.Objective2{Metric: o.Metric, Goal: o.Goal, Delta: o.Indifference})
		vec = append(vec, jobs.Col(o.Metric))
	}
	status, errCol, metric := jobs.Col("status"), jobs.Col("error"), jobs.Col(prob.Metric)
	labels := p.PointLabels()
	for i := 0; i < p.Points; i++ {
		pt := selection.Point{Label: labels[i]}
		for r := 0; r < maxRep; r++ {
			k, ok := row[p.JobFor(i, r).ID]
			if !ok {
				pt.Reps = append(pt.Reps, selection.Obs{State: selection.Missing}) // another shard's, or not run yet
				continue
			}
			o := observe(jobs, k, status, errCol, metric, reqs)
			for _, c := range vec {
				x := math.NaN()
				if c != nil && !c.IsString() && !c.Null[k] {
					x = c.Num[k]
				}
				o.Vec = append(o.Vec, x)
			}
			if prob.Near != nil {
				o.Near = math.NaN()
				if near != nil && !near.IsString() && !near.Null[k] {
					o.Near = near.Num[k]
				}
			}
			pt.Reps = append(pt.Reps, o)
		}
		prob.Points = append(prob.Points, pt)
	}
	return prob, nil
}

// observe reads row k of jobs as one observation.
func observe(jobs *results.Table, k int, status, errCol, metric *results.Column, reqs []*constraint.Requirement) selection.Obs {
	if status != nil && status.Text(k) != "ok" {
		o := selection.Obs{State: selection.Failed, Err: status.Text(k)}
		if errCol != nil && errCol.Text(k) != "" {
			o.Err += ": " + firstLine(errCol.Text(k))
		}
		return o
	}
	o := selection.Obs{State: selection.OK, X: math.NaN()}
	if metric != nil && !metric.IsString() && !metric.Null[k] {
		o.X = metric.Num[k]
	}
	if metric != nil && metric.Null[k] {
		o.Err = notReached(jobs, k, metric.Name)
	}
	env := func(name string) (any, error) {
		c := jobs.Col(name)
		if c == nil {
			return nil, fmt.Errorf("%s: no such jobs column", name)
		}
		if c.Null[k] {
			return math.NaN(), nil
		}
		if c.IsString() {
			return c.Str[k], nil
		}
		return c.Num[k], nil
	}
	for _, c := range reqs {
		o.Values = append(o.Values, c.Observe(env))
	}
	return o
}

// notReached says why a percentile metric is null in row k of jobs (records.md RC-24:
// it falls among messages not completed by the job's end): "not reached: 6 of 120
// lossless messages completed". "" for other metrics.
func notReached(jobs *results.Table, k int, metric string) string {
	if !strings.Contains(metric, "fct_") && !strings.Contains(metric, "slowdown_") {
		return ""
	}
	class := ""
	for _, c := range []string{"_lossless", "_lossy"} {
		if strings.HasSuffix(metric, c) {
			class = c
		}
	}
	started, done := jobs.Col("msgs_started"+class), jobs.Col("msgs_completed"+class)
	if strings.HasPrefix(metric, "host_") {
		done = jobs.Col("msgs_host_completed" + class)
	}
	if started == nil || done == nil || started.IsString() || done.IsString() || started.Null[k] || done.Null[k] {
		return "not reached"
	}
	what := "messages"
	if class != "" {
		what = class[1:] + " messages"
	}
	return fmt.Sprintf("not reached: %d of %d %s completed", int64(done.Num[k]), int64(started.Num[k]), what)
}

// PointLabels names every grid point of p for people, in plan order: its swept values
// by their short names, "LossyAlpha=0.5, StaticPoolXoffThreshold=150KB" ("the one
// configuration" with nothing swept).
func (p *Plan) PointLabels() []string {
	short := p.shortNames()
	out := make([]string, p.Points)
	for i, pp := range p.points {
		if len(p.Axes) == 0 {
			out[i] = "the one configuration"
			continue
		}
		parts := make([]string, len(p.Axes))
		for k := range p.Axes {
			parts[k] = short[k] + "=" + pp.values[k].Text
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out
}

// Replan re-plans the sweep that wrote dir from its manifest.json (the spec as given,
// its --set overrides, its objective and selection settings), as the run planned it,
// without validating jobs. A selection's plan is its first stage.
func Replan(dir string) (*Plan, *results.Manifest, error) {
	m, err := results.ReadManifestFS(nil, dir)
	if err != nil {
		return nil, nil, err
	}
	s, err := ParseSpecOverrides(m.SpecFile, []byte(m.Spec), Overrides{m.Sets, m.Grids})
	if err != nil {
		return nil, m, fmt.Errorf("%s: the spec in manifest.json does not parse: %v", dir, err)
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
	p, err := Expand(s, nil)
	if err != nil {
		return nil, m, fmt.Errorf("%s: the spec in manifest.json does not plan: %v", dir, err)
	}
	return p, m, nil
}

// DecideDir replays the decision of the results in dir: a selection's (run --select),
// or, for a fixed design of 2 or more replicates, what the procedure concludes from its
// replicates taken as a first stage (usually that more jobs are needed: a fixed design
// rarely decides). nil without a decision to make (one replicate, one point) and for a
// bisection, whose answers BisectDir replays.
func DecideDir(dir string) (*selection.Decision, *Plan, error) {
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
	dec, err := p.Decide(dir)
	if err != nil {
		return nil, p, err
	}
	return &dec, p, nil
}

// PointValues are grid point i's swept values, in the order of p.Axes.
func (p *Plan) PointValues(i int) []Value { return p.points[i].values }

// MarkInvalid makes every job of grid point `point` invalid with err, for a rule the
// planner cannot check itself (run refuses a point estimated above its memory or disk
// budget): Run then refuses the plan, or records the point's jobs as invalid with
// --skip-invalid.
func (p *Plan) MarkInvalid(point int, err error) {
	pp := &p.points[point]
	pp.invalid = err
	for r := 0; r < p.Spec.Replicates; r++ {
		p.Jobs[pp.first+r].Invalid = err
	}
	for key, j := range p.extra {
		if key[0] == point {
			j.Invalid = err
		}
	}
}
