package launch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// machineCause tells the machine from the job (machine.go): every errno of a resource
// or of the file system, a link, a share of the free disk, are the machine's, each
// naming what to look at; an explicit disk budget and an error of no errno are the job's.
func TestMachineCause(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string // substring of the cause; "" for the job's
	}{
		{&os.PathError{Op: "open", Path: "x", Err: syscall.ENOSPC}, "df -h"},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.EDQUOT}, "quota"},
		{&os.PathError{Op: "pipe2", Err: syscall.EMFILE}, "ulimit -n"},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.ENFILE}, "file-max"},
		{&exec.Error{Name: "rocesweep", Err: syscall.EAGAIN}, "ulimit -u"},
		{fmt.Errorf("fork/exec: %w", syscall.ENOMEM), "memory"},
		{fmt.Errorf("spill folder: %w", &os.PathError{Op: "mkdir", Path: "x", Err: syscall.EACCES}), "writable"},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.EPERM}, "writable"},
		{&os.PathError{Op: "write", Path: "x", Err: syscall.EIO}, "I/O error"},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.EROFS}, "read-only"},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.ESTALE}, "stale"},
		{&dirfs.LinkError{Path: "x"}, "link"},
		{&DiskBudgetError{Max: 1 << 20, Share: true}, "nearly full"},
		{&DiskBudgetError{Max: 1 << 20}, ""},
		{errors.New("panic: fake"), ""},
		{&os.PathError{Op: "open", Path: "x", Err: syscall.EINVAL}, ""},
	} {
		got := machineCause(tc.err)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%v: cause %q, want one with %q", tc.err, got, tc.want)
		}
	}
}

// workerDied: a runtime that cannot start a thread is the machine's (named by the
// runtime's own line); a signal from outside is the machine's and worth a fresh worker;
// a crash or an exit of the worker is the job's.
func TestWorkerDied(t *testing.T) {
	killed := exec.Command("sh", "-c", "kill -KILL $$").Run()
	exited := exec.Command("sh", "-c", "exit 7").Run()
	for _, tc := range []struct {
		name     string
		wait     error
		stderr   string
		why      string // substring
		machine  bool
		external bool
	}{
		{"thread limit", exited, "runtime: failed to create new OS thread (have 8 already; errno=11)\nruntime: may need to increase max user processes (ulimit -u)\nfatal error: newosproc\n", "failed to create new OS thread", true, false},
		{"sigkill", killed, "", "killed", true, true},
		{"sigquit", exited, "SIGQUIT: quit\nPC=0x4 m=0 sigcode=0\n", "SIGQUIT", true, true},
		{"exit", exited, "something\n", "exit status 7", false, false},
		{"crash", exited, "fatal error: concurrent map writes\n", "concurrent map writes", false, false},
	} {
		why, cause, external := workerDied(tc.wait, tc.stderr, 0, 0)
		if !strings.Contains(why, tc.why) || (cause != "") != tc.machine || external != tc.external {
			t.Errorf("%s: %q, cause %q, external %v; want %q, machine %v, external %v", tc.name, why, cause, external, tc.why, tc.machine, tc.external)
		}
	}
}
