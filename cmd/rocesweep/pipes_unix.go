//go:build unix

package main

import (
	"os"
	"syscall"
)

// workerPipes returns the worker's stdin and stdout as files Go's poller waits on. The
// runner's pipes reach the worker in blocking mode (os/exec hands the child blocking
// descriptors), and a goroutine blocked in a read(2) holds its thread in a system call:
// Go's monitor thread then takes the processor back and polls every 20 µs for the next
// millisecond, once or more per job, which in a worker of many small jobs costs a good
// share of their own CPU (docs/performance.md "Constants chosen by measurement"). A
// descriptor in non-blocking mode parks the waiting goroutine instead. If the mode
// cannot be set, the plain files are used.
func workerPipes() (stdin, stdout *os.File) {
	stdin, stdout = os.Stdin, os.Stdout
	if syscall.SetNonblock(0, true) == nil {
		stdin = os.NewFile(0, "/dev/stdin")
	}
	if syscall.SetNonblock(1, true) == nil {
		stdout = os.NewFile(1, "/dev/stdout")
	}
	return stdin, stdout
}
