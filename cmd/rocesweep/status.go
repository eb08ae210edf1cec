package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/selection"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
)

// cmdStatus summarises a results directory's progress per shard from its journals (issue
// 9): planned jobs, recorded ok/failed/timeout/invalid, missing. It only reads, so it is
// safe on the directory of a running array. The exit status is 0 for any results
// directory, finished or not (scripts read --json); a path that is not one is an error.
func cmdStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("status", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	asJSON := fl.Bool("json", false, "print the status as JSON")
	verify := fl.Bool("verify", false, "read every committed file whole and check its checksum (default: check presence and size); check every journal line's checksum, that its job is of the plan and committed once, and list files no commit names")
	if err := fl.Parse(args); err != nil {
		return flagError("status", fl, err)
	}
	if fl.NArg() != 1 {
		return usagef("status: want one DIR, got %d arguments", fl.NArg())
	}
	st, err := readStatus(fl.Arg(0), time.Now(), *verify)
	if err != nil {
		return usageError{fmt.Errorf("status: %w", err)}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	printStatus(stdout, st)
	return nil
}

// shardStatus is one shard's line of `status` (or the total line).
type shardStatus struct {
	Shard   string `json:"shard"`   // "2/3"; "total" for the total
	Journal string `json:"journal"` // file name in DIR; "" when the shard has not started
	Planned int    `json:"planned"`
	OK      int    `json:"ok"`
	Failed  int    `json:"failed"`
	Timeout int    `json:"timeout"`
	Invalid int    `json:"invalid"`
	Missing int    `json:"missing"` // planned, not in a complete commit of the journal
	// Updated is the journal's modification time (RFC 3339, UTC): the last commit, or the
	// shard's start. "" when the shard has not started.
	Updated string `json:"updated,omitempty"`
	// Writer is the process writing the shard now, in its own words ("pid 4711 on
	// node7, since 2026-11-30T01:02:03Z"); "" when none is (sink.ShardWriter).
	Writer string `json:"writer,omitempty"`
	age    time.Duration
	k, n   int // the shard, K of N
}

// statusReport is the --json form of `status`.
type statusReport struct {
	Dir      string `json:"dir"`
	Name     string `json:"name"`
	PlanSize int    `json:"plan_size"`
	// Started is false for a directory that holds only the array script (`rocesweep
	// slurm` wrote it, no task has run yet); Shards is then empty.
	Started bool          `json:"started"`
	Shards  []shardStatus `json:"shards"`
	Total   shardStatus   `json:"total"` // jobs counted once, whichever shard recorded them
	// Duplicates counts job ids recorded by more than one journal (shards of different
	// counts in one directory); their rows are in the tables more than once.
	Duplicates int `json:"duplicates"`
	// Damaged lists committed files that are missing or do not match the journal (size;
	// with --verify, checksum), each with the jobs whose rows it held: those jobs count
	// as missing, and `run --resume` runs them again.
	Damaged []sink.FileProblem `json:"damaged,omitempty"`
	// DamagedLines counts journal lines that did not parse (each costs its commit).
	DamagedLines int      `json:"damaged_lines,omitempty"`
	Complete     bool     `json:"complete"` // every planned job is recorded, every file sound
	Notes        []string `json:"notes,omitempty"`
	// Verify is what --verify found beyond the files' checksums (status_verify.go);
	// nil without --verify. Any problem in it makes Complete false.
	Verify *verifyReport `json:"verify,omitempty"`
	// Objective is the study's question (manifest.json). Selection is where a sequential
	// selection (run --select) stands, or, for a fixed design of 2 or more replicates,
	// what its results decide; nil when there is nothing to decide.
	Objective *selection.Objective `json:"objective,omitempty"`
	Selection *selectionStatus     `json:"selection,omitempty"`
	// StuckPause lists the jobs whose stuck_pause_ports is above 0 (issue 17): a switch
	// port stayed paused for more than half the run with its pool at or below Xon, the
	// trap of switch.md §4.6 condition 3, not congestion.
	StuckPause []string `json:"stuck_pause_jobs,omitempty"`
}

// readStatus reads dir's manifest and journals. now dates the journals' ages.
func readStatus(dir string, now time.Time, verify bool) (*statusReport, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPathError(err))
	}
	st := &statusReport{Dir: dir, Shards: []shardStatus{}}
	type journal struct {
		k, n int
		name string
	}
	var journals []journal
	counts := map[int]bool{}
	for _, e := range entries {
		if k, n, ok := sink.ParseJournalName(e.Name()); ok && !e.IsDir() {
			journals = append(journals, journal{k, n, e.Name()})
			counts[n] = true
		}
	}
	m, err := results.ReadManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(journals) == 0:
		script := filepath.Join(dir, slurmSubdir, slurmScriptName)
		if _, serr := os.Stat(script); serr == nil {
			st.Notes = append(st.Notes, fmt.Sprintf("no task has started yet (the array script is %s; squeue lists its tasks)", script))
			return st, nil
		}
		return nil, fmt.Errorf("%s is not a results directory: no manifest.json and no journal*.jsonl", dir)
	case errors.Is(err, fs.ErrNotExist):
		// The first shard creates its journal just before it writes the manifest.
		st.Notes = append(st.Notes, "manifest.json is not written yet: plan size unknown")
	case err != nil:
		return nil, err
	default:
		st.Name, st.PlanSize = m.Name, m.PlanSize
		if v := m.ModelVersion; v != "" && v != sweep.ModelVersion {
			st.Notes = append(st.Notes, fmt.Sprintf("the results are of model %s; this binary runs %s (run --resume refuses to add to them)", v, sweep.ModelVersion))
		}
	}
	st.Started = true

	// Every shard of every shard count found, started or not, in order.
	var ns []int
	for n := range counts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	if len(ns) > 1 {
		st.Notes = append(st.Notes, fmt.Sprintf("journals of %s shard counts: the shards overlap, jobs may be run twice", joinInts(ns, " and ")))
	}
	byShard := map[[2]int]journal{}
	for _, j := range journals {
		byShard[[2]int{j.k, j.n}] = j
	}
	var checks []journalCheck       // every journal read, for --verify
	recordedBy := map[string]int{}  // job id -> journals that hold it
	statusOf := map[string]string{} // job id -> its status (any one journal's)
	for _, n := range ns {
		for k := 1; k <= n; k++ {
			s := shardStatus{Shard: fmt.Sprintf("%d/%d", k, n), Planned: shardJobs(st.PlanSize, k, n), k: k, n: n}
			j, ok := byShard[[2]int{k, n}]
			if ok {
				path := filepath.Join(dir, j.name)
				check, err := sink.VerifyJournal(nil, dir, path, verify)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
				}
				checks = append(checks, journalCheck{name: j.name, shard: fmt.Sprintf("%dof%d", k, n), check: check})
				done := check.Done
				st.Damaged = append(st.Damaged, check.Problems...)
				st.DamagedLines += len(check.DamagedLines)
				if fi, err := os.Stat(path); err == nil {
					s.Updated = fi.ModTime().UTC().Format(time.RFC3339)
					s.age = now.Sub(fi.ModTime())
				}
				s.Journal = j.name
				for id, status := range done {
					s.count(status)
					recordedBy[id]++
					statusOf[id] = status
				}
			}
			if holder, running := sink.ShardWriter(dir, fmt.Sprintf("%dof%d", k, n)); running {
				s.Writer = cmp.Or(holder, "a process")
			}
			if m == nil || m.Select == nil { // a selection's rounds run beyond its first stage
				s.capAt(s.Planned)
			}
			st.Shards = append(st.Shards, s)
		}
	}
	if m != nil {
		st.Objective = m.Objective
	}
	var dec *selection.Decision
	var selPlan *sweep.Plan
	if m != nil && (m.Select != nil || m.Objective != nil) {
		d, p, err := sweep.DecideDir(dir)
		switch {
		case err != nil:
			st.Notes = append(st.Notes, fmt.Sprintf("the study's decision cannot be replayed: %v", err))
		case d != nil:
			dec, selPlan = d, p
			st.Selection = newSelectionStatus(d, p, m.Select != nil)
		}
	}
	if dec != nil && m.Select != nil {
		// A selection's plan grows by rounds: planned = recorded + the jobs it needs next.
		for i := range st.Shards {
			s := &st.Shards[i]
			k, n := s.k, s.n
			s.Missing = 0
			for _, nd := range dec.Need {
				if selPlan.JobFor(nd.Point, nd.Replicate).Index%n == k-1 {
					s.Missing++
				}
			}
			s.Planned = s.OK + s.Failed + s.Timeout + s.Invalid + s.Missing
		}
		st.PlanSize = len(statusOf) + len(dec.Need)
	}
	st.Total = shardStatus{Shard: "total", Planned: st.PlanSize}
	for id, status := range statusOf {
		st.Total.count(status)
		if recordedBy[id] > 1 {
			st.Duplicates++
		}
	}
	if extra := len(statusOf) - st.PlanSize; extra > 0 && st.PlanSize > 0 && (m == nil || m.Select == nil) {
		st.Notes = append(st.Notes, fmt.Sprintf("the journals hold %d jobs more than the plan's %d (lines not of this plan); counts are capped at the plan", extra, st.PlanSize))
	}
	st.Total.capAt(st.PlanSize)
	if st.DamagedLines > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%d journal lines are damaged; the jobs of their commits count as missing", st.DamagedLines))
	}
	st.Complete = st.PlanSize > 0 && st.Total.Missing == 0 && len(st.Damaged) == 0
	if dec != nil && m.Select != nil && dec.State == selection.Running {
		st.Complete = false // the selection goes on: run --resume
	}
	if verify {
		st.Verify = verifyDir(dir, st, checks)
		st.Complete = st.Complete && st.Verify.problems() == 0
	}
	st.StuckPause = stuckPauseJobs(dir)
	return st, nil
}

// selectionStatus is the --json form of a decision (selection.Decision), each point
// named by its swept values.
type selectionStatus struct {
	// Sequential is true for a selection (run --select), false for a fixed design's
	// replicates read as a first stage.
	Sequential bool   `json:"sequential"`
	State      string `json:"state"` // running, decided, budget, infeasible
	Why        string `json:"why"`
	Round      int    `json:"round"` // rounds after the first stage
	// Best is the selected point (decided), or the best so far; nil when none.
	Best       *pointStatus   `json:"best"`
	Survivors  []pointStatus  `json:"survivors"`
	Eliminated []eliminatedPt `json:"eliminated"`
	Jobs       int            `json:"jobs"`       // jobs the procedure used
	NeedJobs   int            `json:"need_jobs"`  // jobs it waits for (state running)
	FixedJobs  int            `json:"fixed_jobs"` // jobs a fixed design of equal confidence would run
	Confidence float64        `json:"confidence"`
	// Indifference is in the objective metric's unit (Unit); resolved from a percent
	// when the objective states one.
	Indifference float64 `json:"indifference"`
	Unit         string  `json:"unit,omitempty"`
}

type pointStatus struct {
	Label      string            `json:"label"`
	Values     map[string]string `json:"values"` // jobs column → value as the spec writes it
	Mean       *float64          `json:"mean"`   // the objective over the replicates used
	Replicates int               `json:"replicates"`
}

type eliminatedPt struct {
	pointStatus
	Round  int    `json:"round"` // 0: right after the first stage
	Reason string `json:"reason"`
}

func newSelectionStatus(d *selection.Decision, p *sweep.Plan, sequential bool) *selectionStatus {
	point := func(i int) pointStatus {
		ps := pointStatus{Label: d.Labels[i], Values: map[string]string{}, Replicates: d.Used[i]}
		for k, v := range p.PointValues(i) {
			ps.Values[p.Axes[k].Column] = v.Text
		}
		if m := d.Means[i]; !math.IsNaN(m) && !math.IsInf(m, 0) && d.Used[i] > 0 {
			ps.Mean = &m
		}
		return ps
	}
	ss := &selectionStatus{Sequential: sequential, State: string(d.State), Why: d.Why, Round: d.Round, Jobs: d.Jobs,
		NeedJobs: len(d.Need), FixedJobs: d.FixedJobs, Confidence: d.Confidence, Indifference: d.Delta,
		Unit: sweep.MetricUnit(p.Spec.Objective.Metric), Survivors: []pointStatus{}, Eliminated: []eliminatedPt{}}
	if d.Best >= 0 {
		b := point(d.Best)
		ss.Best = &b
	}
	for _, i := range d.Survivors {
		ss.Survivors = append(ss.Survivors, point(i))
	}
	for _, e := range d.Eliminated {
		ss.Eliminated = append(ss.Eliminated, eliminatedPt{pointStatus: point(e.Point), Round: e.Round, Reason: e.Reason})
	}
	return ss
}

// stuckPauseJobs returns the ids of the jobs whose stuck_pause_ports is above 0, read
// from DIR/jobs; none when the table or the column is absent (older results).
func stuckPauseJobs(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, "jobs")); err != nil {
		return nil
	}
	jobs, err := results.ReadTable(dir, "jobs", nil)
	if err != nil {
		return nil
	}
	ids, stuck := jobs.Col("job_id"), jobs.Col("stuck_pause_ports")
	if ids == nil || stuck == nil || stuck.IsString() {
		return nil
	}
	var out []string
	for i := 0; i < jobs.Rows; i++ {
		if stuck.Num[i] > 0 {
			out = append(out, ids.Text(i))
		}
	}
	return out
}

// stuckPauseWarning explains the jobs of stuckPauseJobs in one line.
func stuckPauseWarning(ids []string) string {
	shown := ids[:min(len(ids), 5)]
	more := ""
	if len(ids) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(ids)-len(shown))
	}
	return fmt.Sprintf("%d jobs have a stuck pause (%s%s): a switch port stayed paused for more than half the run while its pool sat at or below Xon. "+
		"A lossless class shares its pool with a lossy one (switch.md §4.6 condition 3; rocesweep explain warns): their pause and FCT figures measure that trap, not congestion (column stuck_pause_ports of jobs)",
		len(ids), strings.Join(shown, ", "), more)
}

// capAt makes the counts fit a plan of planned jobs (a journal with foreign lines must
// not report more jobs done than planned) and sets Missing.
func (s *shardStatus) capAt(planned int) {
	for _, n := range []*int{&s.OK, &s.Failed, &s.Timeout, &s.Invalid} {
		*n = min(*n, planned)
		planned -= *n
	}
	s.Missing = planned
}

func (s *shardStatus) count(status string) {
	switch status {
	case "ok":
		s.OK++
	case "failed":
		s.Failed++
	case "timeout":
		s.Timeout++
	case "invalid":
		s.Invalid++
	}
}

// shardJobs is the number of jobs of shard k/n in a plan of size jobs: the indices i in
// [0, jobs) with i mod n = k-1 (sweep.Shard).
func shardJobs(jobs, k, n int) int {
	if jobs < k {
		return 0
	}
	return (jobs-k)/n + 1
}

// unwrapPathError drops the path an *fs.PathError repeats (the message names it once).
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func printStatus(w io.Writer, st *statusReport) {
	name := st.Name
	if name == "" {
		name = "sweep"
	}
	if !st.Started {
		fmt.Fprintf(w, "%s: %s\n", st.Dir, strings.Join(st.Notes, "; "))
		return
	}
	fmt.Fprintf(w, "%s: %s in %s, %s\n", name, plural(st.PlanSize, "job"), plural(len(st.Shards), "shard"), st.Dir)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "shard\tplanned\tok\tfailed\ttimeout\tinvalid\tmissing\tjournal updated\t")
	for _, s := range append(st.Shards, st.Total) {
		updated := ""
		switch {
		case s.Shard == "total":
		case s.Journal == "":
			updated = "not started"
		default:
			updated = fmt.Sprintf("%s ago", s.age.Round(time.Second))
		}
		if s.Writer != "" {
			updated += ", running: " + s.Writer
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", s.Shard, s.Planned, s.OK, s.Failed, s.Timeout, s.Invalid, s.Missing, updated)
	}
	tw.Flush()
	if sel := st.Selection; sel != nil && sel.Sequential {
		line := fmt.Sprintf("selection %s after round %d, %s used (a fixed design of equal confidence: %s): %s", sel.State, sel.Round,
			plural(sel.Jobs, "job"), plural(sel.FixedJobs, "job"), sel.Why)
		if sel.Best != nil {
			what := "best so far"
			if sel.State == string(selection.Decided) {
				what = "selected"
			}
			line += fmt.Sprintf("; %s: %s", what, sel.Best.Label)
		}
		fmt.Fprintln(w, line)
	}
	for _, n := range st.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, d := range st.Damaged {
		fmt.Fprintf(w, "damaged: %s: %s; %d jobs of commit %d count as missing\n", d.File, d.Problem, len(d.Jobs), d.Commit)
	}
	if len(st.Damaged) > 0 {
		fmt.Fprintf(w, "run the sweep again with --resume: it removes the rest of those commits and runs their jobs again\n")
	}
	if st.Verify != nil {
		printVerify(w, st.Verify)
	}
	if len(st.StuckPause) > 0 {
		fmt.Fprintf(w, "warning: %s\n", stuckPauseWarning(st.StuckPause))
	}
	if st.Duplicates > 0 {
		fmt.Fprintf(w, "warning: %d jobs are recorded by more than one shard; their rows are in the tables more than once\n", st.Duplicates)
	}
	t := st.Total
	switch {
	case st.Complete && t.Failed+t.Timeout+t.Invalid == 0:
		fmt.Fprintf(w, "complete: all %d jobs ok\n", st.PlanSize)
	case st.Complete:
		fmt.Fprintf(w, "complete: all %d jobs recorded, %d not ok (status and error are in %s)\n", st.PlanSize, t.Failed+t.Timeout+t.Invalid, filepath.Join(st.Dir, "jobs"))
	default:
		// Jobs of a shard a process is writing are still to run, not lost: only the
		// others need --resume.
		running, idle := 0, 0
		for _, s := range st.Shards {
			if s.Writer != "" {
				running += s.Missing
			} else {
				idle += s.Missing
			}
		}
		if running > 0 {
			fmt.Fprintf(w, "in progress: %d of %d jobs still to run in %s being written now\n", running, st.PlanSize, plural(countRunning(st.Shards), "shard"))
		}
		if idle > 0 {
			fmt.Fprintf(w, "%d of %d jobs missing in shards not running now (stopped, or waiting in a queue): run them again with --resume (rocesweep slurm ... --submit resubmits an array)\n", idle, st.PlanSize)
		}
	}
}

func countRunning(shards []shardStatus) int {
	n := 0
	for _, s := range shards {
		if s.Writer != "" {
			n++
		}
	}
	return n
}
