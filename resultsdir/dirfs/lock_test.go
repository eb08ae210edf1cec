//go:build unix

package dirfs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A held shard lock refuses a second Lock with a *LockedError naming the holder, and
// ShardWriter reports it; once released, neither sees a writer and the lock is taken
// again. flock is per open file, so one process stands in for two.
func TestLockOneHolder(t *testing.T) {
	dir := t.TempDir()
	name := LockName(dir, "2of3")
	if filepath.Base(name) != ".journal-2of3.jsonl.lock" {
		t.Fatalf("LockName(dir, 2of3) = %s, want .journal-2of3.jsonl.lock", name)
	}
	if holder, running := ShardWriter(dir, "2of3"); running {
		t.Fatalf("ShardWriter before any lock = %q, true; want no writer", holder)
	}
	unlock, err := OS{}.Lock(name)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("pid %d on ", os.Getpid())
	holder, running := ShardWriter(dir, "2of3")
	if !running || !strings.HasPrefix(holder, want) {
		t.Errorf("ShardWriter while locked = %q, %v; want a holder starting %q", holder, running, want)
	}
	if _, running := ShardWriter(dir, "1of3"); running {
		t.Error("ShardWriter of shard 1of3 reports a writer; only 2of3 is locked")
	}
	_, err = OS{}.Lock(name)
	var le *LockedError
	if !errors.As(err, &le) || le.Name != name || !strings.HasPrefix(le.Holder, want) {
		t.Errorf("second Lock: %v, want a *LockedError for %s held by %q...", err, name, want)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	if holder, running := ShardWriter(dir, "2of3"); running {
		t.Errorf("ShardWriter after unlock = %q, true; want no writer", holder)
	}
	again, err := OS{}.Lock(name)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	again()
}

// The directory lock waits rather than fails, and a test file system's Lock is used in
// place of flock.
func TestLockDir(t *testing.T) {
	dir := t.TempDir()
	unlock, err := LockDir(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(DirLockName(dir)); err != nil {
		t.Errorf("LockDir left no %s: %v", DirLockName(dir), err)
	}
	if err := unlock(); err != nil {
		t.Fatal(err)
	}
	fsys := &lockFS{}
	if _, err := LockDir(fsys, dir); err != nil || fsys.locked != DirLockName(dir) {
		t.Errorf("LockDir(lockFS) = %v, locked %q; want %s through the FS", err, fsys.locked, DirLockName(dir))
	}
}

type lockFS struct {
	OS
	locked string
}

func (f *lockFS) Lock(name string) (func() error, error) {
	f.locked = name
	return func() error { return nil }, nil
}
