package launch

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// rssReader reads the resident memory of one process, in bytes, from /proc/PID/statm; 0
// if unknown. It keeps the file open and re-reads it from offset 0 (procfs regenerates
// it on every read): the runner polls each worker every rssPoll, and opening the file
// at every poll would cost the runner a share of a core per running worker.
// A worker has one, for its one process.
type rssReader struct {
	f   *os.File
	buf [128]byte
}

func (r *rssReader) read(pid int) int64 {
	if r.f == nil {
		f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/statm")
		if err != nil {
			return 0
		}
		r.f = f
	}
	n, _ := r.f.ReadAt(r.buf[:], 0) // io.EOF with the whole file: statm is short
	f := bytes.Fields(r.buf[:n])
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return pages * int64(os.Getpagesize())
}

func (r *rssReader) close() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
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

// The resource limits machineCause names (syscall lacks RLIMIT_NPROC).
const (
	rlimitNoFile = syscall.RLIMIT_NOFILE
	rlimitNProc  = 6 // RLIMIT_NPROC
)

// limitText is " is N" for the resource limit of this process, or "" when unknown.
func limitText(resource int) string {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(resource, &lim); err != nil {
		return ""
	}
	if lim.Cur == ^uint64(0) {
		return ": unlimited"
	}
	return " is " + strconv.FormatUint(lim.Cur, 10)
}
