package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/sweep"
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
	all, largest := planEstimates(p)
	if err := sweep.OverMemory(p, all, machineMemory(), "this machine's memory"); err != nil {
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

// printWarnings prints the spec's warnings, then each distinct warning (explain.Warnings)
// of the plan's valid points once, with the number of points it concerns.
func printWarnings(w io.Writer, p *sweep.Plan) {
	printNotices(w, p.Spec)
	for _, m := range p.Spec.Warnings {
		fmt.Fprintf(w, "rocesweep: warning: %s\n", m)
	}
	// A grid makes one message per value it sweeps ("Xoff 100,000", "Xoff 300,000"):
	// messages alike but for their numbers are one warning, shown by its first example.
	type group struct {
		example  string
		points   int
		messages map[string]bool
	}
	groups := map[string]*group{}
	last := -1
	for _, j := range p.Jobs {
		if j.Invalid != nil || j.Point == last {
			continue
		}
		last = j.Point
		seen := map[string]bool{}
		for _, msg := range explain.Messages(explain.Warnings(&j.Config)) {
			k := warningShape(msg)
			g := groups[k]
			if g == nil {
				g = &group{example: msg, messages: map[string]bool{}}
				groups[k] = g
			}
			if !seen[k] {
				seen[k] = true
				g.points++
			}
			g.messages[msg] = true
			g.example = min(g.example, msg)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return groups[keys[a]].example < groups[keys[b]].example })
	for _, k := range keys {
		g := groups[k]
		eg := ""
		if len(g.messages) > 1 {
			eg = fmt.Sprintf(", %d variants, e.g.", len(g.messages))
		}
		fmt.Fprintf(w, "rocesweep: warning (%d of %d points%s): %s\n", g.points, p.Points, eg, g.example)
	}
}

// warningShape is a warning with its quantities blanked (numbers of 3 or more digits,
// with a comma or a decimal point; not pool and TC numbers or § sections): the key that
// groups the messages one warning gives at different points of a grid.
func warningShape(msg string) string {
	return numberRE.ReplaceAllStringFunc(msg, func(n string) string {
		if strings.HasPrefix(n, "§") || len(strings.TrimRight(n, ".,")) < 3 {
			return n
		}
		return "#"
	})
}

var numberRE = regexp.MustCompile(`§?[0-9][0-9.,]*`)
