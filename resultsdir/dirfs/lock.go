package dirfs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A shard of a results directory has one writer at a time (design.md "Runner
// guarantees": a second writer would remove the first one's temp files as debris and
// interleave journal lines). sink.Open takes the shard's lock file,
// ".journal-SHARD.lock" next to the journal, before it reads or removes anything. The
// lock is an advisory flock(2): the kernel releases it when the process ends, even by
// SIGKILL, so a crashed run never leaves a stale lock behind. Slurm's singleton
// dependency and Kubernetes' podReplacementPolicy keep two writers of a shard apart on a
// cluster; this lock also covers two hand-started runs (on NFS, Linux maps flock to NFS
// byte-range locks).

// LockName is the lock file of a shard ("1of3") in dir.
func LockName(dir, shard string) string {
	return filepath.Join(dir, "."+JournalName(shard)+".lock")
}

// LockedError is returned by Lock when another process holds the lock.
type LockedError struct {
	Name   string
	Holder string // "pid 1234 on host, since 2026-11-30T01:02:03Z", as the holder wrote it
}

func (e *LockedError) Error() string {
	if e.Holder == "" {
		return fmt.Sprintf("%s is locked by another process", e.Name)
	}
	return fmt.Sprintf("%s is locked by another process (%s)", e.Name, e.Holder)
}

// Lock is FS.Lock for the operating system (flock on Unix; elsewhere no lock is taken).
func (OS) Lock(name string) (func() error, error) {
	f, err := OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644) // it is written: never through a link
	if err != nil {
		return nil, err
	}
	held, err := tryLock(f)
	// `rocesweep status` probes the lock for a moment (ShardWriter); a writer that
	// starts just then tries again rather than mistaking the probe for a writer.
	for try := 0; held && err == nil && try < 20; try++ {
		time.Sleep(10 * time.Millisecond)
		held, err = tryLock(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	if held {
		b := make([]byte, 200)
		n, _ := f.ReadAt(b, 0)
		f.Close()
		return nil, &LockedError{Name: name, Holder: strings.TrimSpace(string(b[:n]))}
	}
	host, _ := os.Hostname()
	// Who holds it, for the message a second writer gets (best effort).
	if f.Truncate(0) == nil {
		fmt.Fprintf(f, "pid %d on %s, since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	}
	return f.Close, nil
}

// ShardWriter reports whether a process holds the lock of shard (e.g. "2of3") in dir
// right now, and who it is by its own words ("pid 4711 on node7, since ..."). It only
// probes: the lock is taken shared for a moment and released, never written.
func ShardWriter(dir, shard string) (holder string, running bool) {
	f, err := OpenFile(LockName(dir, shard), os.O_RDONLY, 0)
	if err != nil {
		return "", false // never locked (no run of this shard has started), or a link: no lock of this directory
	}
	defer f.Close()
	held, err := tryLockShared(f)
	if err != nil || !held {
		return "", false // the probe's own shared lock goes with f.Close
	}
	b := make([]byte, 200)
	n, _ := f.ReadAt(b, 0)
	return strings.TrimSpace(string(b[:n])), true
}

// DirLockName is the lock file of a results directory as a whole.
func DirLockName(dir string) string { return filepath.Join(dir, ".manifest.lock") }

// LockDir takes the lock of the results directory dir, waiting for it, and returns its
// release. It is held only while a starting run decides whether the directory is its
// own: reads the manifest, compares plan, model version and shard count, and writes
// the manifest when absent. Two runs started together therefore see
// each other's manifest whatever the timing: the second of two different plans is
// refused. Like the shard lock it is an flock(2) that dies with its process.
func LockDir(fsys FS, dir string) (unlock func() error, err error) {
	if _, ok := fsys.(OS); !ok && fsys != nil {
		return fsys.Lock(DirLockName(dir))
	}
	f, err := OpenFile(DirLockName(dir), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockWait(f); err != nil {
		f.Close()
		return nil, err
	}
	return f.Close, nil
}
