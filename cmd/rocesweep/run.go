package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/buildinfo"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/selection"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// jobFunc is the job `run` runs: the fabric simulation. Tests replace it with a fake
// (sweep/sweeptest) before calling mainWithArgs.
var jobFunc launch.JobFunc = launch.Simulate

// cmdRun runs a sweep (design.md "Runner guarantees"). Bad input (spec, flags, invalid
// grid points, an unusable output directory) exits 2 before any job runs; failed jobs
// exit 1 and are rows of `jobs`; an interrupt exits 130 with a consistent journal.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	out := fl.StringP("output", "o", "", "results directory (default results/<name>)")
	workers := fl.IntP("jobs", "j", runtime.NumCPU(), "jobs run in parallel")
	resume := fl.Bool("resume", false, "run only the jobs absent from the journal; remove debris of an interrupted run")
	force := fl.Bool("force", false, "with --resume: accept a directory whose manifest has another plan or model version")
	retry := fl.StringSlice("retry", nil, "with --resume: run the jobs recorded as failed, timeout or invalid again (failed,timeout); implies --resume")
	extend := fl.Bool("extend", false, "run the jobs of SPEC that DIR lacks, DIR holding an earlier plan of the same axes (more values, another range); implies --resume")
	shard := fl.String("shard", "1/1", "run the deterministic K/N slice of the plan (jobs whose index mod N = K-1)")
	ov := addOverrideFlags(fl, "")
	rf := addRunFlags(fl)
	failFast := fl.Bool("fail-fast", false, "stop taking jobs after the first failed or timed-out job")
	skipInvalid := fl.Bool("skip-invalid", false, "record invalid grid points as status invalid and run the rest")
	metric := fl.String("metric", "", "summary metric of the closing table (default: the objective's metric)")
	selectFlag := fl.Bool("select", false, "run a sequential selection of the best point for the spec's objective (default: true when the spec has a select: block); --select=false runs the fixed design of replicates; an objective of smallest: or largest: always runs as a bisection")
	wait := fl.Bool("wait", false, "with a selection and --shard: after this shard's jobs of a round, wait for the other shards' jobs and go on to the next round (a Slurm array's tasks or a Kubernetes Job's pods run in lock-step), instead of exiting; nothing to wait for without a selection")
	waitLimit := fl.Duration("wait-limit", study.DefaultWaitLimit, "with --wait: stop (exit 3, naming the missing shards) when no job of the round this shard waits for has been committed for this long; 0 waits without a limit")
	logEvery := fl.Duration("progress-every", 5*time.Second, "period of the progress lines when stderr is not a terminal")
	spillEveryRow := fl.Bool("spill-every-row", false, "write every job's rows through a spill file, however few (the same rows; scripts/chaos.sh fails the spill's file system with it)")
	if err := fl.Parse(args); err != nil {
		return flagError("run", fl, err)
	}
	if *workers < 1 || *workers > specfile.MaxWorkers {
		return usagef("run: -j %d: want 1 to %d parallel jobs", *workers, specfile.MaxWorkers)
	}
	if err := rf.check("run"); err != nil {
		return err
	}
	sh, err := sweep.ParseShard(*shard)
	if err != nil {
		return usagef("run: %v", err)
	}
	if *metric != "" {
		if err := checkMetric(*metric); err != nil {
			return usagef("run: --metric: %v", err)
		}
	}
	spec, err := loadSpec("run", fl.Args(), ov, true)
	if err != nil {
		return err
	}
	selecting, w := spec.ChooseSelection(fl.Changed("select"), *selectFlag)
	if w != "" {
		fmt.Fprintf(stderr, "rocesweep: %s\n", w)
	}
	if *waitLimit < 0 {
		return usagef("run: --wait-limit %v: want a duration of 0 (no limit) or more", *waitLimit)
	}
	if fl.Changed("wait-limit") && !*wait {
		return usagef("run: --wait-limit goes with --wait")
	}
	p, err := expandSpec(spec)
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", p.Spec.Base.Name)
	}
	// The first command, typed again: the quickstart's directory holds this very plan, so
	// show its table again and run only what is missing instead of refusing.
	if fl.NArg() == 0 && !*resume && !*extend && launch.HoldsPlan(p, dir, rf.Format()) {
		*resume = true
		fmt.Fprintf(stderr, "rocesweep: %s holds this quickstart's results: finished jobs are not run again (--resume)\n", dir)
	}
	printWarnings(stderr, p)

	// A first interrupt cancels ctx (main's signal.NotifyContext): no new jobs, running
	// ones finish, results are flushed. A second one abandons the running jobs.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	abort := abortAfter(sigs, *rf.grace, stderr)

	var retryStatuses []journal.JobStatus
	for _, st := range *retry {
		s := journal.JobStatus(st)
		if s == journal.StatusOK || !s.Known() {
			return usagef("run: --retry %s: want failed, timeout, invalid or a list (failed,timeout)", st)
		}
		retryStatuses = append(retryStatuses, s)
	}
	iso, err := rf.Isolation(*workers)
	if err != nil {
		return err
	}
	if iso != nil && splitProcs && os.Getenv("GOMAXPROCS") == "" {
		// The machine's processors split between this runner and its workers
		// (launch.Procs); GOMAXPROCS in the environment sets both instead.
		runner, worker := launch.Procs(runtime.GOMAXPROCS(0), *workers)
		iso.Env = append(iso.Env, fmt.Sprintf("GOMAXPROCS=%d", worker))
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runner))
	}
	maxDisk, diskShare, err := rf.MaxDisk(dir, *workers)
	if err != nil {
		return err
	}
	// Estimate before running, as validate does: a point estimated above the memory or
	// the given disk budget per job is invalid (the run is refused, or with
	// --skip-invalid its jobs are recorded as invalid, and decided again by --resume),
	// not started to exhaust the machine. A share of today's free space refuses nothing:
	// the job that outgrows it stops the sweep unrecorded (launch.Options.MaxDiskShare).
	memLimit, memWhat := launch.MemBudget(iso)
	if diskShare {
		if w := sweep.OverDiskShare(p, maxDisk, dir); w != "" {
			fmt.Fprintf(stderr, "rocesweep: warning: %s\n", w)
		}
		sweep.MarkOverBudget(p, memLimit, memWhat, 0)
	} else {
		sweep.MarkOverBudget(p, memLimit, memWhat, maxDisk)
	}
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return usagef("run: -o %s is a file; -o names a results directory (new, or one run wrote)", dir)
	}
	opts := launch.Options{
		Dir: dir, Workers: *workers, FailFast: *failFast, MaxWallPerJob: *rf.maxWall, MaxDiskPerJob: maxDisk, MaxDiskShare: diskShare, SpillEveryRow: *spillEveryRow, Shard: sh,
		Resume: *resume || *extend || len(*retry) > 0, Retry: retryStatuses, Force: *force, Extend: *extend, SkipInvalid: *skipInvalid, Format: rf.Format(), Isolate: iso,
		CommitInterval: *rf.commit, Progress: stderr, TTY: isTerminal(stderr), LogEvery: *logEvery, Abort: abort,
		CommandLine: append([]string{"rocesweep", "run"}, args...), ToolVersion: buildinfo.Read().Short(),
	}
	var rep *launch.Report
	var dec *selection.Decision
	var bis *resultsdir.BisectionStatus
	var undecided error // a selection this shard stopped before its decision (exit 3)
	if selecting {
		headline := ""
		if p.Bisecting() {
			headline = bisectHeadline(p, p.BisectConfig())
		} else {
			headline = selectHeadline(p, p.SelectionConfig())
		}
		fmt.Fprintf(stderr, "rocesweep: %s -> %s (-j %d, shard %s)\n", headline, dir, *workers, sh.Tag())
		if *wait {
			opts.Wait, opts.WaitLimit = selectPoll, *waitLimit
		}
		var sr *study.SelectReport
		sr, err = study.Select(ctx, p, jobFunc, opts)
		if sr != nil {
			rep, dec = sr.Report, &sr.Decision
			what, round, need := "selection", sr.Decision.Round+1, len(sr.Decision.Need)
			if sr.Bisection != nil {
				dec, bis = nil, p.BisectionStatus(sr.Bisection)
				what, round, need = "bisection", sr.Bisection.Round, len(sr.Bisection.Need)
			}
			if sr.Waiting {
				undecided = fmt.Errorf("shard %s has run its jobs of %s round %d; %d jobs of other shards are still missing: %s. "+
					"The %s is not decided: run this command again when they are done, or with --wait",
					sh.Tag(), what, round, need, study.MissingText(sr.Missing), what)
			}
		}
	} else {
		fmt.Fprintf(stderr, "rocesweep: %s -> %s (-j %d, shard %s)\n", planHeadline(p), dir, *workers, sh.Tag())
		rep, err = launch.Run(ctx, p, jobFunc, opts)
	}
	var se *launch.SetupError
	if errors.As(err, &se) {
		return usageError{err}
	}
	var wl *study.WaitLimitError
	if errors.As(err, &wl) {
		undecided, err = err, nil
	}
	if rep != nil {
		printRunReport(stdout, stderr, p, rep, *metric, dec, bis)
		if rep.OK+rep.Skipped > 0 && err == nil {
			fmt.Fprintf(stdout, "next: rocesweep report %s   (charts and answers in %s)\n", dir, filepath.Join(dir, "report.html"))
			if rf.Format() == resultsdir.Arrow { // DuckDB reads no Arrow IPC file without an extension (reading-results.md "Arrow IPC results")
				fmt.Fprintf(stdout, "      rocesweep export %s   (CSV in %s for DuckDB and pandas)\n", dir, filepath.Join(dir, "csv"))
			}
		}
	}
	switch {
	case err != nil && rep != nil && rep.Stopped == "interrupted":
		return exitError{130, err}
	case err != nil:
		return err
	case rep.Failed+rep.Timeout > 0:
		return exitError{1, fmt.Errorf("%d of %d jobs failed or timed out (listed above; status and error are in %s/jobs)", rep.Failed+rep.Timeout, rep.Selected, dir)}
	case undecided != nil:
		return exitError{ExitUndecided, undecided}
	}
	return nil
}

// ExitUndecided is run's exit status when a shard of a selection stops before the
// selection is decided because jobs of other shards are missing: without --wait once it
// has run its part of a round, with --wait when none of them was committed within
// --wait-limit. Distinct from 1 (failed jobs) and 2 (bad input), so that a cluster does
// not count the shard as done.
const ExitUndecided = 3

// selectPoll is the longest pause between two looks of `run --select --wait` for the
// other shards' jobs (it starts at 100 ms and doubles up to this).
const selectPoll = 5 * time.Second

// selectHeadline says what a selection runs first: "name: selection over 42 points, first
// stage 210 jobs = 42 points x 5 replicates, at most 2100 jobs; 95% confidence".
func selectHeadline(p *sweep.Plan, c question.Config) string {
	what := "the best of " + report.Plural(p.Points, "point")
	if g, _ := p.Grid(); g != nil {
		what = fmt.Sprintf("%s over %s (combine: %s): %s", report.Plural(len(g.Settings), "setting"), report.Plural(len(g.Conditions), "condition"), g.Combine, report.Plural(p.Points, "point"))
	}
	s := fmt.Sprintf("%s: selection of %s for %s, first stage %s = %s x %s, at most %s; %g%% confidence",
		p.Spec.Base.Name, what, report.ObjectiveText(p.Spec.Objective, nil), report.Plural(len(p.Jobs), "job"), report.Plural(p.Points, "point"),
		report.Plural(c.Initial, "replicate"), report.Plural(c.MaxJobs, "job"), 100*c.Confidence)
	if bad := p.Invalid(); len(bad) > 0 {
		s += fmt.Sprintf("; %d points INVALID (see 'rocesweep validate')", len(bad))
	}
	return s
}

func printRunReport(stdout, stderr io.Writer, p *sweep.Plan, rep *launch.Report, metric string, dec *selection.Decision, bis *resultsdir.BisectionStatus) {
	for _, n := range runNotes(rep) {
		fmt.Fprintf(stderr, "rocesweep: %s\n", n)
	}
	if bis != nil {
		// A bisection's answer is its table: the probes chose the values, no grid to pivot.
		report.BisectTable(stdout, bis)
	} else {
		closingTable(stdout, stderr, p, rep, metric, dec)
	}
	fmt.Fprintln(stdout, runSummary(rep))
}

// bisectHeadline says what a bisection runs: "headroom: bisection of the smallest
// switch.HeadRoomPerPortLimit in [0, 1MB] to 1KB for 5 conditions, at most 12 probes
// each, first probes 5 jobs, at most 60 jobs; deterministic: one run per probe".
func bisectHeadline(p *sweep.Plan, c question.Config) string {
	b := p.Spec.Objective.Bisect
	s := fmt.Sprintf("%s: bisection of the %s %s in [%s, %s] to %s for %s, at most %d probes each, first probes %s, at most %s; ",
		p.Spec.Base.Name, b.Direction, b.Attr, b.FromText, b.ToText, b.ResolutionText, report.Plural(p.Points, "condition"), b.BisectProbes(),
		report.Plural(len(p.Jobs), "job"), report.Plural(c.MaxJobs, "job"))
	if b.Deterministic {
		s += "deterministic: one run per probe"
	} else {
		s += fmt.Sprintf("each probe a sequential test, %g%% confidence over all", 100*c.Confidence)
	}
	if bad := p.Invalid(); len(bad) > 0 {
		s += fmt.Sprintf("; %d conditions INVALID (see 'rocesweep validate')", len(bad))
	}
	return s
}

// closingTable prints metric over the swept axes for the whole results directory (every
// shard and every earlier session of a resumed sweep, with 95% intervals over the
// replicates: report.Pivot). If the directory cannot be read back (a damaged part), it
// falls back to the means of this session's jobs and says so.
func closingTable(stdout, stderr io.Writer, p *sweep.Plan, rep *launch.Report, metric string, dec *selection.Decision) {
	var b strings.Builder
	err := report.Pivot(&b, rep.Dir, metric, dec)
	if err == nil {
		io.WriteString(stdout, b.String())
		return
	}
	if len(rep.Summaries) > 0 {
		fmt.Fprintf(stderr, "rocesweep: closing table of this session's jobs only (%v)\n", err)
		if metric == "" {
			metric = "drops_total"
		}
		pivot(stdout, p, rep.Summaries, metric)
	}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
