package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer for one writer goroutine and one reader.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A stop signal and the same one again at once (GNU timeout signals the runner, then its
// process group) is one stop: the running jobs keep their grace (issue 38: --grace was
// ignored in 6 of 12 runs under timeout, "second interrupt"). A second signal later, or
// another signal, abandons them.
func TestAbortAfterSameStop(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		sigs    []os.Signal
		at      []time.Duration // when each arrives, after the first
		abandon int             // the signal (index) that abandons the jobs
		said    string
	}{
		{"timeout's two SIGTERMs, then a later one", []os.Signal{syscall.SIGTERM, syscall.SIGTERM, syscall.SIGTERM}, []time.Duration{0, time.Millisecond, 3 * time.Second}, 2, "the same stop"},
		{"SIGTERM then SIGINT at once", []os.Signal{syscall.SIGTERM, syscall.SIGINT}, []time.Duration{0, time.Millisecond}, 1, "second interrupt"},
		{"two Ctrl-C a second apart", []os.Signal{os.Interrupt, os.Interrupt}, []time.Duration{0, sameStop}, 1, "second interrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make(chan os.Signal) // unbuffered: a send returns once the last is handled
			var mu sync.Mutex
			n := 0
			now := func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				n++
				return t0.Add(tc.at[n-1])
			}
			var out lockedBuffer
			abort := abortAfterAt(sigs, time.Hour, &out, now)
			for i, sig := range tc.sigs {
				select {
				case sigs <- sig:
				case <-abort:
					t.Fatalf("jobs abandoned before signal %d (%v); want at signal %d:\n%s", i, sig, tc.abandon, out.String())
				}
				if i == tc.abandon {
					select {
					case <-abort:
					case <-time.After(10 * time.Second):
						t.Fatalf("signal %d did not abandon the jobs:\n%s", i, out.String())
					}
				}
			}
			if !strings.Contains(out.String(), tc.said) {
				t.Errorf("said %q, want %q", out.String(), tc.said)
			}
		})
	}
}
