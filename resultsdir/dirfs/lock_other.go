//go:build !unix

package dirfs

import "os"

// tryLock takes no lock where flock(2) does not exist: one writer per shard is then the
// user's to ensure.
func tryLock(f *os.File) (held bool, err error) { return false, nil }

func tryLockShared(f *os.File) (held bool, err error) { return false, nil }

func lockWait(f *os.File) error { return nil }
