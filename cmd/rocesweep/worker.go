package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"

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

// parseMaxMem reads --max-mem-per-job: a size with units ("6GB", "512MiB"), "0" for no
// limit, or "" for the default: the machine's memory (or the cgroup's limit, if lower),
// less a margin of a tenth (at least 512 MiB) for this process and the system, over -j.
func parseMaxMem(s string, workers int) (int64, error) {
	if s == "" {
		total := machineMemory()
		if total <= 0 {
			return 0, nil
		}
		margin := max(total/10, 512<<20)
		return max((total-margin)/int64(workers), 64<<20), nil
	}
	if s == "0" {
		return 0, nil
	}
	b, err := config.ParseBytes(s)
	if err != nil {
		return 0, fmt.Errorf("--max-mem-per-job %q: %v", s, err)
	}
	if b < 16<<20 {
		return 0, fmt.Errorf("--max-mem-per-job %s: want 0 (no limit) or at least 16 MiB: a worker process alone takes ~10 MB", s)
	}
	return int64(b), nil
}

// machineMemory is the memory this process may use: MemTotal of /proc/meminfo, or the
// cgroup v2 limit when lower; 0 when unknown (not Linux).
func machineMemory() int64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	var total int64
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				total = kb << 10
			}
		}
	}
	if data, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if lim, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64); err == nil && lim > 0 && (total == 0 || lim < total) {
			total = lim
		}
	}
	return total
}
