//go:build !linux

package launch

import (
	"os"
	"os/exec"
)

// rssReader: a worker's resident memory is unknown outside Linux (0); only its own Go
// memory limit bounds it.
type rssReader struct{}

func (r *rssReader) read(pid int) int64 { return 0 }
func (r *rssReader) close()             {}

func exitPeakRSS(ps *os.ProcessState) int64 { return 0 }

// setWorkerAttr: a worker whose runner died ends when its stdin closes (ServeWorker).
func setWorkerAttr(cmd *exec.Cmd) {}

// The resource limits machineCause names; -1: not known here.
const (
	rlimitNoFile = -1
	rlimitNProc  = -1
)

// limitText: the limits are not known here.
func limitText(resource int) string { return "" }
