package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/configs"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// addOverrideFlags adds --set and --grid (specfile.Overrides) to a command that plans a sweep.
func addOverrideFlags(fl *pflag.FlagSet, also string) *specfile.Overrides {
	ov := &specfile.Overrides{}
	fl.StringArrayVar(&ov.Sets, "set", nil, "override a spec key: path=value (repeatable"+also+")")
	fl.StringArrayVar(&ov.Grids, "grid", nil, "sweep an attribute: path=v1,v2,... adds the axis or replaces the spec's (repeatable"+also+")")
	return ov
}

// printNotices prints what the overrides did to the spec's axes (specfile.Spec.Notices).
func printNotices(w io.Writer, s *specfile.Spec) {
	for _, n := range s.Notices {
		fmt.Fprintf(w, "rocesweep: notice: %s\n", n)
	}
}

// loadPlan reads SPEC (or, when args is empty and quickstart is true, the embedded
// configs/quickstart.yaml), applies --set and --grid and expands the plan. Every problem
// is a usageError (exit 2).
func loadPlan(cmd string, args []string, ov *specfile.Overrides, quickstart bool) (*sweep.Plan, error) {
	spec, err := loadSpec(cmd, args, ov, quickstart)
	if err != nil {
		return nil, err
	}
	if spec.Select != nil {
		spec.UseSelection() // a selection's plan is its first stage (run --select)
	}
	return expandSpec(spec)
}

// loadSpec reads and parses SPEC (see loadPlan) without expanding it.
func loadSpec(cmd string, args []string, ov *specfile.Overrides, quickstart bool) (*specfile.Spec, error) {
	var file string
	var data []byte
	switch {
	case len(args) == 0 && quickstart:
		file, data = "quickstart.yaml (embedded)", configs.Quickstart()
	case len(args) == 1:
		file = args[0]
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, usagef("%s: %v", cmd, err)
		}
		data = b
	case len(args) == 0:
		return nil, usagef("%s: SPEC is required", cmd)
	default:
		return nil, usagef("%s: one SPEC, got %d arguments (%s)", cmd, len(args), strings.Join(args, " "))
	}
	if ov == nil {
		ov = &specfile.Overrides{}
	}
	spec, err := specfile.ParseOverrides(file, data, *ov)
	if err != nil {
		return nil, usageError{err}
	}
	return spec, nil
}

// expandSpec expands a parsed spec into its plan, every job validated.
func expandSpec(spec *specfile.Spec) (*sweep.Plan, error) {
	p, err := sweep.Expand(spec, launch.ValidateJob)
	if err != nil {
		return nil, usageError{err}
	}
	return p, nil
}

// cmdPlan lists the jobs of a sweep with their axis values; nothing runs.
func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("plan", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	ov := addOverrideFlags(fl, "")
	asJSON := fl.Bool("json", false, "print the plan as JSON")
	if err := fl.Parse(args); err != nil {
		return flagError("plan", fl, err)
	}
	p, err := loadPlan("plan", fl.Args(), ov, false)
	if err != nil {
		return err
	}
	printNotices(stderr, p.Spec)
	if *asJSON {
		return writePlanJSON(stdout, p)
	}
	printPlan(stdout, p)
	if _, largest := sweep.Estimates(p); largest != nil {
		fmt.Fprintf(stdout, "largest job: %s: %s\n", p.Label(largest.Job), largest.Estimate)
	}
	return nil
}

func planHeadline(p *sweep.Plan) string {
	if p.Spec.Select != nil {
		return selectHeadline(p, p.SelectionConfig())
	}
	s := fmt.Sprintf("%s: %s = %s x %s", p.Spec.Base.Name, report.Plural(len(p.Jobs), "job"), report.Plural(p.Points, "point"), report.Plural(p.Spec.Replicates, "replicate"))
	if p.Filtered > 0 {
		s += fmt.Sprintf(" (%d points removed by constraints)", p.Filtered)
	}
	if bad := p.Invalid(); len(bad) > 0 {
		s += fmt.Sprintf("; %d points INVALID (see 'rocesweep validate')", len(bad))
	}
	return s
}

func printPlan(w io.Writer, p *sweep.Plan) {
	fmt.Fprintln(w, planHeadline(p))
	writeJobTable(w, p)
}
