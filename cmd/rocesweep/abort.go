package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// abortAfter returns the channel for launch.Options.Abort that closes when running jobs are to
// be abandoned (design.md "Runner guarantees"): the first stop signal on sigs stops the
// sweep taking jobs (the caller's context), and the running ones then have grace to
// finish (they run again with --resume), so that `timeout`, Slurm's scancel and a
// service manager stop a sweep promptly; a second signal, or grace 0, abandons them at
// once. Each abandonment is said on w.
//
// The same signal again within sameStop of the first is the same stop, not a second
// one: GNU timeout sends its signal to the command and then to its whole process group,
// so the runner gets it twice at once.
func abortAfter(sigs <-chan os.Signal, grace time.Duration, w io.Writer) <-chan struct{} {
	return abortAfterAt(sigs, grace, w, time.Now)
}

// sameStop is how soon the same signal again counts as the first stop (abortAfter).
const sameStop = time.Second

// abortAfterAt is abortAfter with the clock now (tests use a fake one).
func abortAfterAt(sigs <-chan os.Signal, grace time.Duration, w io.Writer, now func() time.Time) <-chan struct{} {
	abort := make(chan struct{})
	go func() {
		var first os.Signal
		var at time.Time
		var timer <-chan time.Time
		for {
			select {
			case sig := <-sigs:
				t := now()
				switch {
				case first == nil && grace > 0:
					first, at = sig, t
					timer = time.After(grace)
					continue
				case first == nil:
					fmt.Fprintln(w, "\nrocesweep: stop signal with --grace 0: abandoning running jobs, flushing finished ones")
				case sig == first && t.Sub(at) < sameStop:
					fmt.Fprintf(w, "\nrocesweep: %v again within %v of the first: the same stop (as GNU timeout signals a command and then its group); the running jobs keep their --grace %v (interrupt again to abandon them)\n", sig, sameStop, grace)
					continue
				default:
					fmt.Fprintln(w, "\nrocesweep: second interrupt: abandoning running jobs, flushing finished ones")
				}
			case <-timer:
				fmt.Fprintf(w, "\nrocesweep: --grace %v is over: abandoning running jobs, flushing finished ones\n", grace)
			}
			close(abort)
			return
		}
	}()
	return abort
}
