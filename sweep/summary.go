package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/results"
)

// Notes are what a run has to say before its closing table: what resuming repaired
// (design.md "Runner guarantees": retried, withdrawn and damaged commits, leftover files
// and torn journal bytes), then the error of each job that failed or timed out.
func (r *Report) Notes() []string {
	var out []string
	rc := r.Recovery
	if rc.Retried > 0 {
		s := fmt.Sprintf("resume: --retry: %d failed or timed-out jobs run again", rc.Retried)
		if rc.Withdrawn > rc.Retried+rc.Redecided {
			s += fmt.Sprintf(", with %d others committed beside them", rc.Withdrawn-rc.Retried-rc.Redecided)
		}
		out = append(out, s)
	}
	if rc.Redecided > 0 {
		out = append(out, fmt.Sprintf("resume: %d jobs recorded invalid are valid now (their point passes this run's rules and budgets): they run", rc.Redecided))
	}
	for _, d := range rc.Damaged {
		out = append(out, fmt.Sprintf("resume: %s: %s; its commit's %d jobs run again", d.File, d.Problem, len(d.Jobs)))
	}
	if n := len(rc.DamagedLines); n > 0 {
		out = append(out, fmt.Sprintf("resume: %d damaged journal lines skipped (lines %v); the jobs of their commits run again", n, rc.DamagedLines))
	}
	if rc.RemovedFiles > 0 || rc.TruncatedBytes > 0 {
		out = append(out, fmt.Sprintf("resume: removed %d leftover files and %d bytes of torn journal", rc.RemovedFiles, rc.TruncatedBytes))
	}
	return append(out, r.Errors...)
}

// Summary is the closing line of a run: "36 jobs: 34 ok, 2 failed in 1.2s (3.1 M
// events/s); results in DIR".
func (r *Report) Summary() string {
	var parts []string
	if r.OK > 0 || r.Skipped < r.Selected {
		parts = append(parts, fmt.Sprintf("%d ok", r.OK))
	}
	for _, x := range []struct {
		n    int
		what string
	}{{r.Failed, "failed"}, {r.Timeout, "timeout"}, {r.Invalid, "invalid"}, {r.Skipped, "already done"}, {r.NotRun, "not run"}, {r.Abandoned, "abandoned"}, {r.Lost, "finished but not recorded"}, {r.Machine, "stopped by the machine, not recorded"}} {
		if x.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", x.n, x.what))
		}
	}
	rate := "" // nothing simulated (every job already done): no rate to state
	if r.Events > 0 && r.Wall > 0 {
		rate = fmt.Sprintf(" (%.3g M events/s)", float64(r.Events)/r.Wall.Seconds()/1e6)
	}
	return fmt.Sprintf("%d jobs: %s in %v%s; results in %s", r.Selected, strings.Join(parts, ", "),
		r.Wall.Round(time.Millisecond), rate, r.Dir)
}

// HoldsPlan reports whether dir has results of plan p (its manifest's plan, model
// version and format).
func HoldsPlan(p *Plan, dir string, f results.Format) bool {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return false
	}
	return CheckDir(p, dir, f) == nil
}
