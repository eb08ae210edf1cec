package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/ci"
	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/selection"
)

// orEmpty is sep + s, or "" when s is.
func orEmpty(sep, s string) string {
	if s == "" {
		return ""
	}
	return sep + s
}

// cmdCompare compares the jobs tables of two results directories (design.md "Commands
// users type"): a delta table (or --json), jobs on one side only, and exit status 1 when
// any chosen metric moved beyond tolerance. --by params pairs jobs by their swept values
// and replicate instead of job id, and fails only on a move beyond tolerance whose paired
// 95% interval excludes zero. --bench prints NEW_DIR's metrics as Go benchmark lines
// named by parameters for benchstat. Unreadable directories, unknown metrics and bad
// flags exit 2; 1 means a metric moved (a regression).
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	metrics := fs.StringSlice("metric", nil, "metric to compare (repeatable; default: every summary metric except wall_sec, events_per_sec)")
	rtol := fs.Float64("rtol", 1e-9, "relative tolerance: beyond when |new-base| > atol + rtol*|base|")
	atol := fs.Float64("atol", 0, "absolute tolerance")
	by := fs.String("by", "job_id", "pair jobs by job_id (same configuration) or params (same swept values and replicate: A/B of a non-swept change)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	failOn := fs.String("fail-on", "any", "exit 1 on any move beyond tolerance (any), or only on moves that are worse by the objective's direction and on status changes (worse)")
	bench := fs.Bool("bench", false, "print Go benchmark lines (BenchmarkSweep/LossyAlpha=0.25/StaticPoolXoffThreshold=100KB/<metric> 1 <value> <unit>) for benchstat, of the objective's metric and its also metrics unless --metric says; with one DIR, just that directory")
	if err := fs.Parse(args); err != nil {
		return flagError("compare", fs, err)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"rtol", *rtol}, {"atol", *atol}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) || f.v < 0 {
			return usagef("compare: --%s %g: want a finite tolerance >= 0", f.name, f.v)
		}
	}
	if *by != "job_id" && *by != "params" {
		return usagef("compare: --by %q: want job_id or params", *by)
	}
	if *failOn != "any" && *failOn != "worse" {
		return usagef("compare: --fail-on %q: want any or worse", *failOn)
	}
	dirs := fs.Args()
	if *bench && len(dirs) == 1 {
		return writeBench(dirs[0], *metrics, stdout)
	}
	if len(dirs) != 2 {
		return usagef("compare: want BASE_DIR NEW_DIR, got %d arguments", len(dirs))
	}
	if b, n := compare.ModelVersions(dirs[0], dirs[1]); b != n {
		fmt.Fprintf(stderr, "rocesweep: compare: warning: %s ran model_version %s, %s ran %s: differences may come from the model, not the change under test\n",
			dirs[0], orUnknown(b), dirs[1], orUnknown(n))
	}
	opts := compare.Options{Metrics: *metrics, RTol: *rtol, ATol: *atol, Objective: studyObjective(dirs[1], dirs[0]), FailOnWorse: *failOn == "worse"}
	var res interface {
		WriteText(io.Writer) error
		WriteJSON(io.Writer) error
		Failed() bool
	}
	var failure func() string
	if *by == "params" {
		r, err := compare.DirsByParams(dirs[0], dirs[1], opts)
		if err != nil {
			return usagef("compare: %v", err)
		}
		res, failure = r, func() string { return pointFailureLine(r) }
	} else {
		r, err := compare.Dirs(dirs[0], dirs[1], opts)
		if err != nil {
			return usagef("compare: %v", err)
		}
		res, failure = r, func() string { return failureLine(r) }
	}
	switch {
	case *bench:
		if err := writeBench(dirs[1], *metrics, stdout); err != nil {
			return err
		}
	case *asJSON:
		if err := res.WriteJSON(stdout); err != nil {
			return err
		}
	default:
		if err := res.WriteText(stdout); err != nil {
			return err
		}
	}
	if res.Failed() {
		return exitError{code: 1, err: fmt.Errorf("compare: %s differs from %s: %s", dirs[1], dirs[0], failure())}
	}
	return nil
}

// studyObjective is the objective manifest.json records in the first of dirs that has
// one (nil when none does): what makes a move better or worse.
func studyObjective(dirs ...string) *selection.Objective {
	for _, d := range dirs {
		if m, err := results.ReadManifest(d); err == nil && m.Objective != nil {
			return m.Objective
		}
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

// pointFailureLine names the first few moves of a --by params comparison.
func pointFailureLine(r *compare.PointResult) string {
	b := r.MovedDeltas()
	s := fmt.Sprintf("%d values moved beyond tolerance and noise", len(b))
	for i, d := range b {
		if i == 3 {
			s += ", ..."
			break
		}
		s += fmt.Sprintf("%s %s %s %s -> %s (delta %s%s)", map[bool]string{true: ":", false: ","}[i == 0], d.Point, d.Metric,
			ci.Num(d.Base), ci.Num(d.New), ci.Interval{N: d.Pairs, Mean: d.Delta, Half: d.Half}, orEmpty(", ", d.Verdict))
	}
	if n := len(r.Status); n > 0 {
		s += fmt.Sprintf("; %d status changes (first: %s %s -> %s)", n, r.Status[0].JobID, r.Status[0].Base, r.Status[0].New)
	}
	for _, m := range r.Metrics {
		if m.Missing != "" {
			s += fmt.Sprintf("; metric %s missing in %s", m.Metric, m.Missing)
		}
	}
	if n := len(r.OnlyBase) + len(r.OnlyNew); n > 0 {
		s += fmt.Sprintf("; %d jobs on one side only", n)
	}
	return s
}

// failureLine names the first few jobs and metrics beyond tolerance.
func failureLine(r *compare.Result) string {
	b := r.Beyond()
	s := fmt.Sprintf("%d values beyond tolerance", len(b))
	for i, d := range b {
		if i == 3 {
			s += ", ..."
			break
		}
		s += fmt.Sprintf("%s job %s %s %s -> %s%s", map[bool]string{true: ":", false: ","}[i == 0], d.JobID, d.Metric,
			results.FormatNum(d.Base), results.FormatNum(d.New), orEmpty(" ", d.Verdict))
	}
	if n := len(r.Status); n > 0 {
		s += fmt.Sprintf("; %d status changes (first: job %s %s -> %s)", n, r.Status[0].JobID, r.Status[0].Base, r.Status[0].New)
	}
	for _, m := range r.Metrics {
		if m.Missing != "" {
			s += fmt.Sprintf("; metric %s missing in %s", m.Metric, m.Missing)
		}
	}
	if n := len(r.OnlyBase) + len(r.OnlyNew); n > 0 {
		s += fmt.Sprintf("; %d jobs on one side only", n)
	}
	return s
}

func writeBench(dir string, metrics []string, stdout io.Writer) error {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return usagef("compare: %s is not a results directory: %v", dir, err)
	}
	jobs, err := results.ReadTable(dir, "jobs", nil)
	if err != nil {
		return usagef("compare: %s: %v", dir, err)
	}
	if metrics == nil && m.Objective != nil {
		// The study's question: its metric and the ones it shows beside it.
		metrics = append([]string{m.Objective.Metric}, m.Objective.Also...)
	}
	return compare.WriteBench(stdout, jobs, results.Axes(m, jobs), metrics)
}
