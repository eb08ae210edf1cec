package sweep

import (
	"fmt"
	"io"
	"os"
	"time"
)

// AbortAfter returns the channel for Options.Abort that closes when running jobs are to
// be abandoned (design.md "Runner guarantees"): the first stop signal on sigs stops the
// sweep taking jobs (the caller's context), and the running ones then have grace to
// finish (they run again with --resume), so that `timeout`, Slurm's scancel and a
// service manager stop a sweep promptly; a second signal, or grace 0, abandons them at
// once. Each abandonment is said on w.
func AbortAfter(sigs <-chan os.Signal, grace time.Duration, w io.Writer) <-chan struct{} {
	abort := make(chan struct{})
	go func() {
		n := 0
		var timer <-chan time.Time
		for {
			select {
			case <-sigs:
				n++
				if n == 1 && grace > 0 {
					timer = time.After(grace)
					continue
				}
				if n == 1 {
					fmt.Fprintln(w, "\nrocesweep: stop signal with --grace 0: abandoning running jobs, flushing finished ones")
				} else {
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
