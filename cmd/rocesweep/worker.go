package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/rocesweep/rocesweep/sweep/launch"
)

// workerCommand is the hidden command `run` starts for its jobs (launch.Isolation): it
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
	err := launch.ServeWorker(stdin, out, jobFunc)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "rocesweep worker: %v\n", err)
		return 1
	}
	return 0
}

// isolation is the launch.Isolation of `run`: this executable's worker command, and the
// memory limit per job (0 = none).
func isolation(maxMem int64) (*launch.Isolation, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this executable to start worker processes: %w (use --isolate=false)", err)
	}
	return &launch.Isolation{Command: []string{exe, workerCommand}, MaxMem: maxMem, MaxJobs: workerJobs}, nil
}

// splitProcs says that run splits the processors between itself and its workers
// (launch.Procs); in-process tests, which run many sweeps in one process at once, keep
// theirs.
var splitProcs = true

// workerJobs is the jobs a worker serves before a fresh one replaces it (0: the
// sweep's default, launch.DefaultWorkerJobs); tests lower it.
var workerJobs int
