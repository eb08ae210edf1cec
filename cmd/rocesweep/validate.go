package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/config"
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

// pointWarnings are explain's warnings for one configuration (explainConfig: the config's
// own, switch and NIC sizing, desynchronisation), so that validate, run and slurm warn of
// what explain does; the config's own when it cannot be explained.
func pointWarnings(cfg *config.Config) []string {
	c := *cfg
	ex, err := explainConfig(&c)
	if err != nil {
		return cfg.Warnings()
	}
	return ex.Warnings
}

// printWarnings prints each distinct warning (pointWarnings) of the plan's valid points
// once, with the number of points it concerns.
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
		for _, msg := range pointWarnings(&j.Config) {
			count[msg]++
		}
	}
	msgs := make([]string, 0, len(count))
	for m := range count {
		msgs = append(msgs, m)
	}
	sort.Strings(msgs)
	const most = 12 // a grid makes one message per value in it; the rest are alike
	for i, m := range msgs {
		if i == most {
			fmt.Fprintf(w, "rocesweep: ... and %d more distinct warnings; rocesweep explain SPEC --job N shows one point's\n", len(msgs)-most)
			break
		}
		fmt.Fprintf(w, "rocesweep: warning (%d of %d points): %s\n", count[m], p.Points, m)
	}
}
