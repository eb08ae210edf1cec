package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/sink"
)

// runFlags are the flags of how a sweep's jobs run and land that `run` takes and
// `slurm` passes on to every task, so that an array runs exactly like `run` would.
type runFlags struct {
	fl      *pflag.FlagSet
	format  *string
	maxWall *time.Duration
	commit  *time.Duration
}

func addRunFlags(fl *pflag.FlagSet) *runFlags {
	return &runFlags{
		fl:      fl,
		format:  addFormatFlag(fl),
		maxWall: fl.Duration("max-wall-per-job", 0, "abandon a job running longer than this (status timeout); 0 = no limit"),
		commit:  fl.Duration("commit-interval", 10*time.Second, "longest time a finished job waits before its rows are durable"),
	}
}

func addFormatFlag(fl *pflag.FlagSet) *string {
	return fl.String("format", string(sink.Parquet), "parquet or arrow")
}

// checkFormat refuses a --format that is neither parquet nor arrow.
func checkFormat(cmd, format string) error {
	if format != string(sink.Parquet) && format != string(sink.Arrow) {
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
	return nil
}

func (f *runFlags) Format() sink.Format { return sink.Format(*f.format) }

// args returns the flags the user set, as `run` arguments (defaults are left to the
// binary that runs the task).
func (f *runFlags) args() []string {
	var out []string
	for _, name := range []string{"format", "max-wall-per-job", "commit-interval"} {
		if fl := f.fl.Lookup(name); fl.Changed {
			out = append(out, "--"+name, fl.Value.String())
		}
	}
	return out
}
