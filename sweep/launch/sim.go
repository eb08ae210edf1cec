package launch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// SimPlan is the plan of `sim`: the one job of a spec without axes (file and data, or
// DefaultsFile and no data for the built-in defaults) with sets applied, one replicate,
// checked by ValidateJob. A spec that sweeps, or a job that breaks a rule, is an error.
func SimPlan(file string, data []byte, sets []string) (*sweep.Plan, error) {
	spec, err := specfile.Parse(file, data, sets)
	if err != nil {
		return nil, err
	}
	if len(spec.Axes) > 0 || spec.Sample != nil {
		return nil, fmt.Errorf("sim: %s sweeps %d axes; sim runs one job — use 'rocesweep run %s' for a sweep", file, len(spec.Axes), file)
	}
	spec.Replicates = 1
	spec.DropBisection() // one job answers no question: a --set gives the bisected value
	p, err := sweep.Expand(spec, ValidateJob)
	if err != nil {
		return nil, err
	}
	// As run does: a job estimated above this machine's memory is refused, not started
	// (a report interval of 1 ps is terabytes of rows).
	sweep.MarkOverBudget(p, MachineMemory(), "this machine's memory", 0)
	if bad := p.Invalid(); len(bad) > 0 {
		return nil, fmt.Errorf("%s: %v", file, bad[0].Invalid)
	}
	return p, nil
}

// SimOptions are how Sim runs its job.
type SimOptions struct {
	Dir         string // the results directory; an earlier sim's results there are replaced
	Format      resultsdir.Format
	CommandLine []string
	// Profile, when set, starts what measures the run (sim's pprof profiles); the stop
	// it returns runs when the job has ended, and its error fails the run.
	Profile func() (stop func() error, err error)
}

// Sim runs the one job of p (SimPlan) with one worker into a hidden sibling of o.Dir
// (resultsdir.SimTarget) and puts it in o.Dir's place once complete (resultsdir.ReplaceDir), so
// a failed or interrupted sim leaves o.Dir as it was and its own files are removed. A
// directory sim may not write is a *SetupError; the Report is Run's, also on error.
func Sim(ctx context.Context, p *sweep.Plan, job JobFunc, o SimOptions) (*Report, error) {
	runDir, err := resultsdir.SimTarget(o.Dir, os.Getpid())
	if err != nil {
		return nil, &SetupError{fmt.Errorf("sim: %w", err)}
	}
	stop := func() error { return nil }
	if o.Profile != nil {
		if stop, err = o.Profile(); err != nil {
			return nil, err
		}
	}
	// The job's spill may take its share of the free disk, as in run without
	// --max-disk-per-job: a job that outgrows it stops, the disk is not filled.
	maxDisk, _ := ParseMaxDisk("", filepath.Dir(o.Dir), 1)
	rep, err := Run(ctx, p, job, Options{Dir: runDir, Workers: 1, Format: o.Format, CommandLine: o.CommandLine,
		MaxDiskPerJob: maxDisk, MaxDiskShare: maxDisk > 0})
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	if err == nil {
		err = resultsdir.ReplaceDir(runDir, o.Dir)
	}
	if err != nil {
		os.RemoveAll(runDir) // nothing of this run is kept; earlier results stay as they were
	}
	return rep, err
}
