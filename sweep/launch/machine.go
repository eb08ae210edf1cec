package launch

import (
	"errors"
	"strings"
	"syscall"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// One rule says what is the machine and what is the job (reliability.md
// "Reliability: how jobs run"). A job fails, and is recorded failed or timeout, only for what the job itself
// does: its simulation's error or panic, its memory above --max-mem-per-job, its wall
// time above --max-wall-per-job, its rows above an explicit --max-disk-per-job. Every
// other way a job can end without its result is the machine: a resource it lacks (disk
// space, quota, inodes, open files, processes or threads), a fault of the file system its
// rows go through (permissions, an I/O error, a read-only or stale file system, a link
// where rocesweep writes), a worker process that cannot be started or talked to, or
// that is killed by a signal the job did not cause. Such a job is never recorded: it is
// tried once more in a fresh worker where that can help (a worker killed from outside),
// else the sweep stops with every finished job committed and the message names the
// cause and the limit, and --resume runs it.

// machineCause says which of the machine's limits or faults err is, with the command or
// setting to look at, or "" when err is none of them (the job's own failure).
func machineCause(err error) string {
	var be *DiskBudgetError
	if errors.As(err, &be) {
		if be.Share {
			return "the results directory's file system is nearly full: each job may spill its share of the free space when the run started (df -h; free space, lower -j or give --max-disk-per-job)"
		}
		return "" // an explicit --max-disk-per-job: the job's rows outgrew what it was given
	}
	var le *dirfs.LinkError
	if errors.As(err, &le) {
		return "a symbolic link where rocesweep writes (remove it)"
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return ""
	}
	switch errno {
	case syscall.ENOSPC:
		return "no space or no inodes left on the file system (df -h, df -i)"
	case syscall.EDQUOT:
		return "the disk quota is used up (quota -s)"
	case syscall.EMFILE:
		return "this process's open files are at their limit (ulimit -n" + limitText(rlimitNoFile) + ")"
	case syscall.ENFILE:
		return "the system's open files are at their limit (/proc/sys/fs/file-max)"
	case syscall.EAGAIN:
		return "no process or thread can be started (ulimit -u" + limitText(rlimitNProc) + ", or the system's limit of processes)"
	case syscall.ENOMEM:
		return "the system has no memory to start a process"
	case syscall.EACCES, syscall.EPERM:
		return "permission denied: the results directory and its folders must be writable by this user (ls -ld)"
	case syscall.EIO:
		return "an I/O error of the disk or file system (dmesg)"
	case syscall.EROFS:
		return "the file system is read-only (mount)"
	case syscall.ESTALE:
		return "a stale file handle: the network file system was remounted, or the directory removed on its server"
	}
	return ""
}

// resourceError reports whether err is the machine, not the job (machineCause).
func resourceError(err error) bool { return machineCause(err) != "" }

// workerCrashCause is the machine's cause of a worker process that crashed (its stderr
// the Go runtime's last words), with the runtime's line that says so, or "" when the
// crash is the job's: a runtime that could not start a thread hit the limit of
// processes, not a bug.
func workerCrashCause(stderr string) (cause, line string) {
	for _, l := range strings.Split(stderr, "\n") {
		for _, s := range []string{"failed to create new OS thread", "pthread_create failed", "fatal error: newosproc"} {
			if strings.Contains(l, s) {
				return "the worker process could not start a thread (ulimit -u" + limitText(rlimitNProc) + ", or the system's limit of processes)", strings.TrimSpace(l)
			}
		}
	}
	return "", ""
}
