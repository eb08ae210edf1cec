package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/launch"
)

// runFlags are the flags of how a sweep's jobs run and land that `run` takes and
// `slurm` passes on to every task, so that an array runs exactly like `run` would.
type runFlags struct {
	fl      *pflag.FlagSet
	format  *string
	maxWall *time.Duration
	commit  *time.Duration
	maxMem  *string
	maxDisk *string
	grace   *time.Duration
	isolate *bool
}

// defaultIsolate is --isolate's default (tests of fake jobs run in-process turn it off).
var defaultIsolate = true

func addRunFlags(fl *pflag.FlagSet) *runFlags {
	return &runFlags{
		fl:      fl,
		format:  addFormatFlag(fl),
		maxWall: fl.Duration("max-wall-per-job", 0, "abandon a job running longer than this (status timeout); 0 = no limit"),
		commit:  fl.Duration("commit-interval", 10*time.Second, "longest time a finished job waits before its rows are durable"),
		maxMem:  fl.String("max-mem-per-job", "", "kill a job's worker above this resident memory (status failed, out of memory), e.g. 4GB; 0 = no limit (default: the machine's memory less a tenth, over -j)"),
		maxDisk: fl.String("max-disk-per-job", "", "fail a job whose rows held on disk while it runs grow above this, e.g. 2GB; 0 = no limit (default: the free space of DIR's file system less a fifth, over -j)"),
		grace:   fl.Duration("grace", 30*time.Second, "after a stop signal (Ctrl-C, SIGTERM), how long running jobs may finish before they are abandoned (they run again with --resume); 0 abandons them at once"),
		isolate: fl.Bool("isolate", defaultIsolate, "run each job in a worker process, so that a job exhausting memory, crashing or overrunning its wall time fails alone; false runs jobs inside this process (no memory limit)"),
	}
}

func addFormatFlag(fl *pflag.FlagSet) *string {
	return fl.String("format", string(resultsdir.Parquet), "parquet or arrow")
}

// checkFormat refuses a --format that is neither parquet nor arrow.
func checkFormat(cmd, format string) error {
	if format != string(resultsdir.Parquet) && format != string(resultsdir.Arrow) {
		return usagef("%s: --format %q: want parquet or arrow", cmd, format)
	}
	return nil
}

func (f *runFlags) check(cmd string) error {
	if err := checkFormat(cmd, *f.format); err != nil {
		return err
	}
	if *f.maxWall < 0 {
		return usagef("%s: --max-wall-per-job %v: want 0 (no limit) or more", cmd, *f.maxWall)
	}
	if *f.commit <= 0 {
		return usagef("%s: --commit-interval %v: want more than 0", cmd, *f.commit)
	}
	// The parse every task's `run` makes (Isolation), so that slurm refuses a value that
	// would make every task exit 2. -j does not change whether it parses.
	if _, err := launch.ParseMaxMem(*f.maxMem, 1); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	if _, err := launch.ParseMaxDisk(*f.maxDisk, ".", 1); err != nil {
		return usagef("%s: %v", cmd, err)
	}
	if *f.grace < 0 {
		return usagef("%s: --grace %v: want 0 (abandon running jobs at once) or more", cmd, *f.grace)
	}
	// run's own --progress-every, checked with its other flags: the runner would take a
	// period of 0 or less for its 5 s default without a word.
	if every, err := f.fl.GetDuration("progress-every"); err == nil && every <= 0 {
		return usagef("%s: --progress-every %v: want a period above 0 (e.g. 30s)", cmd, every)
	}
	return nil
}

func (f *runFlags) Format() resultsdir.Format { return resultsdir.Format(*f.format) }

// args returns the flags the user set, as `run` arguments (defaults are left to the
// binary that runs the task).
func (f *runFlags) args() []string {
	var out []string
	for _, name := range []string{"format", "max-wall-per-job", "commit-interval", "max-mem-per-job", "max-disk-per-job", "grace", "isolate"} {
		if fl := f.fl.Lookup(name); fl.Changed && fl.Value.Type() == "bool" {
			out = append(out, "--"+name+"="+fl.Value.String()) // "--isolate false" would be an argument
		} else if fl.Changed {
			out = append(out, "--"+name, fl.Value.String())
		}
	}
	return out
}

// MaxDisk is the disk budget per job these flags ask for, for results in dir and workers
// jobs in parallel (launch.ParseMaxDisk); share is true when the flag was not given and
// the budget is a share of the free space (launch.Options.MaxDiskShare).
func (f *runFlags) MaxDisk(dir string, workers int) (b int64, share bool, err error) {
	b, err = launch.ParseMaxDisk(*f.maxDisk, dir, workers)
	if err != nil {
		return 0, false, usageError{err}
	}
	return b, *f.maxDisk == "" && b > 0, nil
}

// Isolation is the launch.Isolation these flags ask for with workers jobs in parallel: nil
// with --isolate=false.
func (f *runFlags) Isolation(workers int) (*launch.Isolation, error) {
	maxMem, err := launch.ParseMaxMem(*f.maxMem, workers)
	if err != nil {
		return nil, usageError{err}
	}
	if !*f.isolate {
		if *f.maxMem != "" && maxMem > 0 {
			return nil, usagef("--max-mem-per-job needs worker processes: drop --isolate=false")
		}
		return nil, nil
	}
	return isolation(maxMem)
}
