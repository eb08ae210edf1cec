package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/selection"
	"github.com/rocesweep/rocesweep/sweep"
)

// cmdStatus summarises a results directory's progress per shard from its journals
// (results.ReadStatus): planned jobs, recorded ok/failed/timeout/invalid, missing. It
// only reads, so it is safe on the directory of a running array. The exit status is 0
// for any results directory, finished or not (scripts read --json); a path that is not
// one is an error.
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

// readStatus is results.ReadStatus with what this binary adds: its model version, the
// decision sweep replays, and with verify the plan's job ids (planMember).
func readStatus(dir string, now time.Time, verify bool) (*results.Status, error) {
	o := results.StatusOptions{ModelVersion: sweep.ModelVersion, Decide: decide, Verify: verify, SlurmScript: slurmScriptName}
	if verify {
		member, err := planMember(dir)
		o.Member = member
		if err != nil {
			o.MemberNote = err.Error()
		}
	}
	return results.ReadStatus(dir, now, o)
}

// decide replays the decision of the study in dir (sweep.DecideDir) for ReadStatus.
func decide(dir string) (*results.Decided, error) {
	d, p, err := sweep.DecideDir(dir)
	if err != nil || d == nil {
		return nil, err
	}
	m, _ := results.ReadManifest(dir)
	sequential := m != nil && m.Select != nil
	out := &results.Decided{Selection: newSelectionStatus(d, p, sequential), Going: d.State == selection.Running}
	for _, nd := range d.Need {
		out.Need = append(out.Need, p.JobFor(nd.Point, nd.Replicate).Index)
	}
	return out, nil
}

func newSelectionStatus(d *selection.Decision, p *sweep.Plan, sequential bool) *results.SelectionStatus {
	point := func(i int) results.PointStatus {
		ps := results.PointStatus{Label: d.Labels[i], Values: map[string]string{}, Replicates: d.Used[i]}
		for k, v := range p.PointValues(i) {
			ps.Values[p.Axes[k].Column] = v.Text
		}
		if m := d.Means[i]; !math.IsNaN(m) && !math.IsInf(m, 0) && d.Used[i] > 0 {
			ps.Mean = &m
		}
		return ps
	}
	ss := &results.SelectionStatus{Sequential: sequential, State: string(d.State), Why: d.Why, Round: d.Round, Jobs: d.Jobs,
		NeedJobs: len(d.Need), FixedJobs: d.FixedJobs, Confidence: d.Confidence, Indifference: d.Delta,
		Unit: sweep.MetricUnit(p.Spec.Objective.Metric), Survivors: []results.PointStatus{}, Eliminated: []results.EliminatedPt{}}
	if d.Best >= 0 {
		b := point(d.Best)
		ss.Best = &b
	}
	for _, i := range d.Survivors {
		ss.Survivors = append(ss.Survivors, point(i))
	}
	for _, e := range d.Eliminated {
		ss.Eliminated = append(ss.Eliminated, results.EliminatedPt{PointStatus: point(e.Point), Round: e.Round, Reason: e.Reason})
	}
	return ss
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

func printStatus(w io.Writer, st *results.Status) {
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
			updated = fmt.Sprintf("%s ago", s.Age.Round(time.Second))
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

func countRunning(shards []results.ShardStatus) int {
	n := 0
	for _, s := range shards {
		if s.Writer != "" {
			n++
		}
	}
	return n
}
