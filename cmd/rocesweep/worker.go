package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep"
)

// runFabric runs one fabric job under the process's memory policy (internal/memory),
// which the model leaves to its caller: a fabric estimated at memory.HugeHeap or more
// gets huge pages, with room for its frames in flight (twice its devices), before it is
// built; once built, a large one gets a tighter collector; once drained, a large heap is
// collected before the rows are built. None of it changes a row: only where memory
// comes from and when it is collected.
func runFabric(ctx context.Context, cfg config.Config, opts fabric.Options) (*stats.Result, error) {
	if est, err := fabric.EstimateJob(&cfg); err == nil { // an invalid job: Run says why
		if devs := est.DeviceBytes(); devs >= memory.HugeHeap {
			memory.HugePages(int(2 * devs))
		}
	}
	opts.Built, opts.Drained = memory.TightenIfLarge, memory.CollectIfLarge
	return fabric.Run(ctx, cfg, opts)
}

// workerCommand is the hidden command `run` starts for its jobs (sweep.Isolation): it
// reads jobs from stdin one after another, runs each with jobFunc, writes the batches of
// rows a job emits while it runs to its spill file and its result, with the rows it
// still held at its end, to stdout. Not for users; it is not listed in help.
const workerCommand = "__worker"

func cmdWorker(stdout, stderr io.Writer) int {
	// The runner decides when a job stops (a second interrupt, --max-wall-per-job): a
	// Ctrl-C that reaches the whole process group must not end the job.
	signal.Ignore(stopSignals...)
	stdin := os.Stdin
	if stdout == io.Writer(os.Stdout) { // the process's own pipes, not a test's buffer
		stdin, stdout = workerPipes()
	}
	out := bufio.NewWriter(stdout)
	err := sweep.ServeWorker(stdin, out, jobFunc)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocesweep worker: %v\n", err)
		return 1
	}
	return 0
}

// isolation is the sweep.Isolation of `run`: this executable's worker command, and the
// memory limit per job (0 = none).
func isolation(maxMem int64) (*sweep.Isolation, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable to start worker processes: %w (use --isolate=false)", err)
	}
	return &sweep.Isolation{Command: []string{exe, workerCommand}, MaxMem: maxMem, MaxJobs: workerJobs}, nil
}

// workerJobs is the jobs a worker serves before a fresh one replaces it (0: the
// sweep's default, sweep.DefaultWorkerJobs); tests lower it.
var workerJobs int
