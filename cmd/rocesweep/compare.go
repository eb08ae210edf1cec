package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/compare"
)

// cmdCompare compares the jobs tables of two results directories (design.md "Commands
// users type"): a delta table (or --json), jobs on one side only, and exit status 1 when
// any chosen metric moved beyond tolerance. --by params pairs jobs by their swept values
// and replicate instead of job id, and fails only on a move beyond tolerance whose paired
// 95% interval excludes zero. --bench prints NEW_DIR's metrics as Go benchmark lines
// named by parameters for benchstat. Unreadable directories, unknown metrics and bad
// flags exit 2; 1 means a metric moved (a regression). Across model versions it pairs
// by params unless --by says otherwise, and says that the model changed.
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
	// Across model versions no job id pairs (ids include the model version): pair by
	// swept values and replicate unless --by says otherwise, say that the model changed,
	// and leave out of the default metrics the columns only one model writes.
	pairing := compare.Pairing(*by)
	bv, nv := compare.ModelVersions(dirs[0], dirs[1])
	modelChanged := bv != "" && nv != "" && bv != nv
	if modelChanged && !fs.Changed("by") {
		pairing = compare.PairByParams
	}
	switch w := compare.ModelVersionWarning(dirs[0], dirs[1]); {
	case modelChanged:
		fmt.Fprintf(stderr, "rocesweep: compare: %s\n", compare.ModelChange(dirs[0], dirs[1], pairing))
	case w != "": // one side does not record its model version
		fmt.Fprintf(stderr, "rocesweep: compare: warning: %s\n", w)
	}
	opts := compare.Options{Metrics: *metrics, RTol: *rtol, ATol: *atol, Objective: compare.StudyObjective(dirs[1], dirs[0]), FailOnWorse: *failOn == "worse"}
	if modelChanged && *metrics == nil {
		both, left, err := compare.DefaultMetricsOnBothSides(dirs[0], dirs[1])
		if err != nil {
			return usagef("compare: %v", err)
		}
		if len(left) > 0 {
			fmt.Fprintf(stderr, "rocesweep: compare: %d metrics only one model version writes are not compared: %s\n", len(left), strings.Join(left, ", "))
		}
		opts.Metrics = both
	}
	res, err := compare.DirsBy(dirs[0], dirs[1], pairing, opts)
	if err != nil {
		return usagef("compare: %v", err)
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
		changed := ""
		if modelChanged {
			changed = fmt.Sprintf(" (the model changed: %s -> %s)", bv, nv)
		}
		return exitError{code: 1, err: fmt.Errorf("compare: %s differs from %s%s: %s", dirs[1], dirs[0], changed, res.FailureLine())}
	}
	return nil
}

// writeBench prints dir's jobs as benchmark lines (compare.ReadBench); an unreadable
// directory is a usage error.
func writeBench(dir string, metrics []string, stdout io.Writer) error {
	b, err := compare.ReadBench(dir, metrics)
	if err != nil {
		return usagef("compare: %v", err)
	}
	return b.Write(stdout)
}
