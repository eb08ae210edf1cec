//go:build !linux

package sweep

import (
	"os"
	"os/exec"
)

// processRSS is unknown outside Linux: only the worker's own Go memory limit bounds it.
func processRSS(pid int) int64 { return 0 }

func exitPeakRSS(ps *os.ProcessState) int64 { return 0 }

// setWorkerAttr: a worker whose runner died ends when its stdin closes (ServeWorker).
func setWorkerAttr(cmd *exec.Cmd) {}
