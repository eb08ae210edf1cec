package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
)

// cmdValidate checks every job of a sweep against every rule that stops a simulation
// and names each invalid grid point; nothing runs. With --skip-invalid the invalid
// points are reported but the exit status is 0 (run --skip-invalid records them as
// status invalid and runs the rest).
func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	ov := addOverrideFlags(fl, "")
	skip := fl.Bool("skip-invalid", false, "report invalid grid points but exit 0")
	if err := fl.Parse(args); err != nil {
		return flagError("validate", fl, err)
	}
	p, err := loadPlan("validate", fl.Args(), ov, false)
	if err != nil {
		return err
	}
	printWarnings(stderr, p)
	all, largest := sweep.Estimates(p)
	memLimit, memWhat := launch.MemBudget(nil)
	if err := sweep.OverMemory(p, all, memLimit, memWhat); err != nil {
		return usageError{err}
	}
	bad := p.Invalid()
	if len(bad) == 0 {
		fmt.Fprintf(stdout, "ok: %s; every job passes the rules\n", planHeadline(p))
		if largest != nil {
			fmt.Fprintf(stdout, "largest job: %s: %s\n", p.Label(largest.Job), largest.Estimate)
		}
		return nil
	}
	err = p.InvalidError(bad)
	if *skip {
		fmt.Fprintf(stdout, "%v\nwith --skip-invalid, run records them as status invalid and runs the other %d jobs\n", err, p.ValidJobs())
		return nil
	}
	return usageError{err}
}

// printWarnings prints the spec's notices and warnings, then each distinct warning of
// the plan's valid points once, with the number of points it concerns (pointWarnings).
func printWarnings(w io.Writer, p *sweep.Plan) {
	printNotices(w, p.Spec)
	for _, m := range p.Spec.Warnings {
		fmt.Fprintf(w, "rocesweep: warning: %s\n", clipLines(m))
	}
	for _, g := range pointWarnings(p) {
		eg := ""
		if g.Variants > 1 {
			eg = fmt.Sprintf(", %d variants, e.g.", g.Variants)
		}
		fmt.Fprintf(w, "rocesweep: warning (%d of %d points%s): %s\n", g.Points, p.Points, eg, g.Example)
	}
	all, _ := sweep.Estimates(p)
	if msg := longJobs(p, all); msg != "" {
		fmt.Fprintf(w, "rocesweep: warning: %s\n", msg)
	}
}
