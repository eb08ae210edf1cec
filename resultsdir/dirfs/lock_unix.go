//go:build unix

package dirfs

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without waiting; held reports that another
// open file (this process's or another's) has it.
func tryLock(f *os.File) (held bool, err error) { return flock(f, syscall.LOCK_EX) }

// tryLockShared is tryLock for a shared lock (a probe: it conflicts only with a writer).
func tryLockShared(f *os.File) (held bool, err error) { return flock(f, syscall.LOCK_SH) }

func flock(f *os.File, how int) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// lockWait takes an exclusive flock on f, waiting for it.
func lockWait(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
