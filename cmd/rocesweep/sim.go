package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// cmdSim runs one job (a spec without axes, or the built-in defaults: a star of 16 hosts,
// an incast of 15 senders × 1 MiB, 1 ms) into a results directory through the same
// runner and sink as `run`, then prints a short human summary.
func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	defer memory.OneJob()() // one job: a short process, collected rarely (internal/memory)
	fl := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	out := fl.StringP("output", "o", "", "results directory (default results/<name>)")
	sets := fl.StringArray("set", nil, "override a spec key: path=value (repeatable)")
	format := addFormatFlag(fl)
	cpuProfile := fl.String("cpuprofile", "", "write a pprof CPU profile of the run to this file")
	memProfile := fl.String("memprofile", "", "write a pprof allocation profile (all allocations of the run) to this file")
	asJSON := fl.Bool("json", false, "print the summary metrics, the results directory and the process's peak RSS as JSON")
	if err := fl.Parse(args); err != nil {
		return flagError("sim", fl, err)
	}
	if fl.NArg() > 1 {
		return usagef("sim: one SPEC at most, got %d arguments", fl.NArg())
	}
	file, data := specfile.DefaultsFile, []byte{}
	if fl.NArg() == 1 {
		file = fl.Arg(0)
		b, err := os.ReadFile(file)
		if err != nil {
			return usagef("sim: %v", err)
		}
		data = b
	}
	if err := checkFormat("sim", *format); err != nil {
		return err
	}
	plan, err := launch.SimPlan(file, data, *sets)
	if err != nil {
		return usageError{err}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", plan.Jobs[0].Config.Name)
	}
	for _, w := range explain.Messages(explain.Warnings(&plan.Jobs[0].Config)) {
		fmt.Fprintf(stderr, "rocesweep: warning: %s\n", w)
	}
	rep, err := launch.Sim(ctx, plan, launch.Simulate, launch.SimOptions{Dir: dir, Format: resultsdir.Format(*format), CommandLine: append([]string{"rocesweep", "sim"}, args...),
		Profile: func() (func() error, error) { return startProfiles(*cpuProfile, *memProfile) }})
	if err != nil {
		var se *launch.SetupError
		switch {
		case errors.As(err, &se):
			return usageError{err}
		case rep != nil && rep.Stopped == "interrupted":
			// sim has no --resume (the runner's message suggests it): one job, run again.
			return exitError{130, fmt.Errorf("sim: interrupted; nothing was written to %s (earlier results there are unchanged): run the command again", dir)}
		}
		return err
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("sim: %s", rep.Errors[0])
	}
	if *asJSON {
		for _, s := range rep.Summaries {
			est, _ := fabric.EstimateJob(&plan.Jobs[0].Config)
			return writeSimJSON(stdout, s, dir, peakRSS(), est.MemBytes)
		}
	}
	for _, s := range rep.Summaries {
		writeSimSummary(stdout, &plan.Jobs[0].Config, s)
	}
	fmt.Fprintf(stdout, "results: %s\n", dir)
	return nil
}
