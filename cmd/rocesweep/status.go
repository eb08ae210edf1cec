package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep/slurm"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// cmdStatus summarises a results directory's progress per shard from its journals
// (resultsdir.ReadStatus): planned jobs, recorded ok/failed/timeout/invalid, missing. It
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
	st, err := study.ReadStatus(fl.Arg(0), time.Now(), *verify, slurm.ScriptName)
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

func printStatus(w io.Writer, st *resultsdir.Status) {
	name := st.Name
	if name == "" {
		name = "sweep"
	}
	if !st.Started {
		fmt.Fprintf(w, "%s: %s\n", st.Dir, strings.Join(st.Notes, "; "))
		return
	}
	fmt.Fprintf(w, "%s: %s in %s, %s\n", name, report.Plural(st.PlanSize, "job"), report.Plural(len(st.Shards), "shard"), st.Dir)
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
			report.Plural(sel.Jobs, "job"), report.Plural(sel.FixedJobs, "job"), sel.Why)
		if sel.Best != nil {
			what := "best so far"
			if sel.State == string(selection.Decided) {
				what = "selected"
			}
			line += fmt.Sprintf("; %s: %s", what, sel.Best.Label)
		}
		fmt.Fprintln(w, line)
	}
	if b := st.Bisection; b != nil {
		fmt.Fprintf(w, "bisection %s after round %d, %s used (at most %s): %s\n", b.State, b.Round, report.Plural(b.Jobs, "job"), report.Plural(b.MaxJobs, "job"), b.Why)
		for _, c := range b.Conditions {
			line := fmt.Sprintf("  %s: %s", c.Label, c.State)
			if c.AnswerText != "" {
				line += fmt.Sprintf(", %s %s", b.Direction, c.AnswerText)
			}
			if c.FailsText != "" {
				line += ", fails at " + c.FailsText
			}
			line += fmt.Sprintf(" (%s, %s)", report.Plural(len(c.Probes), "probe"), report.Plural(c.Jobs, "job"))
			if c.State != "answered" && c.State != "running" {
				line += ": " + c.Why
			}
			fmt.Fprintln(w, line)
		}
	}
	for _, n := range st.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, d := range st.Damaged {
		fmt.Fprintf(w, "damaged: %s\n", resultsdir.DamageText(d))
	}
	if len(st.Damaged) > 0 {
		fmt.Fprintf(w, "run the sweep again with --resume: it removes the rest of those commits and runs their jobs again\n")
	}
	if st.ManifestDamage != "" {
		fmt.Fprintf(w, "damaged: %s: %s; restore it (run refuses the directory until then; --force writes it anew from the run's spec)\n", resultsdir.ManifestFile, st.ManifestDamage)
	}
	if st.Verify != nil {
		damaged := len(st.Damaged) + st.DamagedLines
		if st.ManifestDamage != "" {
			damaged++
		}
		printVerify(w, st.Verify, damaged)
	}
	if msg := st.StuckPauseWarning(); msg != "" {
		fmt.Fprintf(w, "warning: %s\n", msg)
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
		running, idle, shards := st.MissingRunning()
		if running > 0 {
			fmt.Fprintf(w, "in progress: %d of %d jobs still to run in %s being written now\n", running, st.PlanSize, report.Plural(shards, "shard"))
		}
		if idle > 0 {
			fmt.Fprintf(w, "%d of %d jobs missing in shards not running now (stopped, or waiting in a queue): run them again with --resume (rocesweep slurm ... --submit resubmits an array)\n", idle, st.PlanSize)
		}
		if running+idle == 0 && st.ManifestDamage != "" {
			fmt.Fprintf(w, "not complete: %s is damaged (above)\n", resultsdir.ManifestFile)
		}
	}
}

// printVerify prints what status --verify found (resultsdir.VerifyReport.Findings), one
// problem a line, and what to do. damaged is what status's own file checks found (printed
// above it): the verdict then says that it adds nothing to them, not "no problem".
func printVerify(w io.Writer, v *resultsdir.VerifyReport, damaged int) {
	for _, f := range v.Findings() {
		fmt.Fprintln(w, f)
	}
	switch n := v.Problems(); {
	case n > 0:
		fmt.Fprintf(w, "verify: %s; run the sweep again with --resume: it withdraws damaged commits, runs their jobs again and removes stray files\n", report.Plural(n, "problem"))
	case len(v.Unverifiable) == 0 && damaged > 0:
		fmt.Fprintln(w, "verify: every journal line's checksum, job id and commit, and every table folder, checked: no problem beyond the damage above")
	case len(v.Unverifiable) == 0:
		fmt.Fprintln(w, "verify: every journal line's checksum, job id and commit, and every table folder, checked: no problem")
	}
}
