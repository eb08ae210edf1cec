package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/sweep"
)

// cmdValidate checks every job of a sweep against every rule that stops a simulation
// and names each invalid grid point; nothing runs. With --skip-invalid the invalid
// points are reported but the exit status is 0 (run --skip-invalid records them as
// status invalid and runs the rest).
func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	sets := fl.StringArray("set", nil, "override a spec key: path=value (repeatable)")
	skip := fl.Bool("skip-invalid", false, "report invalid grid points but exit 0")
	if err := fl.Parse(args); err != nil {
		return flagError("validate", fl, err)
	}
	p, err := loadPlan("validate", fl.Args(), *sets, false)
	if err != nil {
		return err
	}
	printWarnings(stderr, p)
	all, largest := planEstimates(p)
	if err := overMemory(p, all, machineMemory(), "this machine's memory"); err != nil {
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
	err = sweep.InvalidError(p, bad)
	if *skip {
		fmt.Fprintf(stdout, "%v\nwith --skip-invalid, run records them as status invalid and runs the other %d jobs\n", err, countValid(p))
		return nil
	}
	return usageError{err}
}

func countValid(p *sweep.Plan) int {
	n := 0
	for _, j := range p.Jobs {
		if j.Invalid == nil {
			n++
		}
	}
	return n
}

// printWarnings prints each distinct config warning of the plan's valid jobs once, with
// the number of points it concerns.
func printWarnings(w io.Writer, p *sweep.Plan) {
	for _, m := range p.Spec.Warnings {
		fmt.Fprintf(w, "rocesweep: warning: %s\n", m)
	}
	count := map[string]int{}
	last := -1
	for _, j := range p.Jobs {
		if j.Invalid != nil || j.Point == last {
			continue
		}
		last = j.Point
		for _, msg := range j.Config.Warnings() {
			count[msg]++
		}
	}
	msgs := make([]string, 0, len(count))
	for m := range count {
		msgs = append(msgs, m)
	}
	sort.Strings(msgs)
	for _, m := range msgs {
		fmt.Fprintf(w, "rocesweep: warning (%d of %d points): %s\n", count[m], p.Points, m)
	}
}
