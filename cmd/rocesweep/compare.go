package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/results"
)

// cmdCompare compares the jobs tables of two results directories (design.md "Commands
// users type"): a delta table (or --json), jobs on one side only, and exit status 1 when
// any chosen metric moved beyond tolerance. --bench prints NEW_DIR's metrics as Go
// benchmark lines for benchstat instead.
func cmdCompare(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	metrics := fs.StringSlice("metric", nil, "metric to compare (repeatable; default: every summary metric except wall_sec, events_per_sec)")
	rtol := fs.Float64("rtol", 1e-9, "relative tolerance: beyond when |new-base| > atol + rtol*|base|")
	atol := fs.Float64("atol", 0, "absolute tolerance")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	bench := fs.Bool("bench", false, "print Go benchmark lines (BenchmarkSweep/<job>/<metric> 1 <value> <unit>) for benchstat; with one DIR, just that directory")
	if err := fs.Parse(args); err != nil {
		return flagError("compare", fs, err)
	}
	if *rtol < 0 || *atol < 0 {
		return usagef("compare: --rtol %g --atol %g: tolerances must be >= 0", *rtol, *atol)
	}
	dirs := fs.Args()
	if *bench && len(dirs) == 1 {
		return writeBench(dirs[0], *metrics, stdout)
	}
	if len(dirs) != 2 {
		return usagef("compare: want BASE_DIR NEW_DIR, got %d arguments", len(dirs))
	}
	r, err := compare.Dirs(dirs[0], dirs[1], compare.Options{Metrics: *metrics, RTol: *rtol, ATol: *atol})
	if err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	switch {
	case *bench:
		if err := writeBench(dirs[1], *metrics, stdout); err != nil {
			return err
		}
	case *asJSON:
		if err := r.WriteJSON(stdout); err != nil {
			return err
		}
	default:
		if err := r.WriteText(stdout); err != nil {
			return err
		}
	}
	if r.Failed() {
		return exitError{code: 1, err: fmt.Errorf("compare: %s differs from %s: %s", dirs[1], dirs[0], failureLine(r))}
	}
	return nil
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
		s += fmt.Sprintf("%s job %s %s %s -> %s", map[bool]string{true: ":", false: ","}[i == 0], d.JobID, d.Metric,
			results.FormatNum(d.Base), results.FormatNum(d.New))
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
	jobs, err := results.ReadTable(dir, "jobs", nil)
	if err != nil {
		return fmt.Errorf("compare: %s: %w", dir, err)
	}
	return compare.WriteBench(stdout, jobs, metrics)
}
