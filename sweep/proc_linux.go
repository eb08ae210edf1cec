package sweep

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// processRSS is the resident memory of process pid in bytes (/proc/PID/statm), 0 if
// unknown.
func processRSS(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(data)
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return pages * int64(os.Getpagesize())
}

// exitPeakRSS is an ended process's peak resident memory (wait4's ru_maxrss, in KiB).
func exitPeakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}

// setWorkerAttr makes the kernel kill a worker when the runner dies, even by SIGKILL.
func setWorkerAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
