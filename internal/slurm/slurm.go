// Package slurm holds what rocesweep checks and computes for the directives of a Slurm
// job array's script (rocesweep slurm).
package slurm

import (
	"fmt"
	"strconv"
	"strings"
)

// TimeForms are the forms of sbatch's --time (sbatch(1)).
const TimeForms = `"minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours", "days-hours:minutes", "days-hours:minutes:seconds"`

// CheckTime refuses a --time that is not one of TimeForms (or UNLIMITED, INFINITE), so
// that a mistyped limit ("30min") is found before any task is submitted, not by sbatch.
// A field after the first is below 60, hours after days below 24.
func CheckTime(s string) error {
	if u := strings.ToUpper(s); u == "UNLIMITED" || u == "INFINITE" {
		return nil
	}
	days, rest, hasDays := strings.Cut(s, "-")
	fields := strings.Split(rest, ":")
	if !hasDays {
		days, fields = "", strings.Split(s, ":")
	}
	ok := len(fields) <= 3 && (!hasDays || wholeNumber(days, 0))
	for i, f := range fields {
		limit := 0 // the first field of a form without days has no bound
		if i > 0 {
			limit = 60
		} else if hasDays {
			limit = 24
		}
		ok = ok && wholeNumber(f, limit)
	}
	if !ok {
		return fmt.Errorf("--time %q: want one of Slurm's forms %s (e.g. 90, 4:00:00, 1-12)", s, TimeForms)
	}
	return nil
}

// wholeNumber reports whether s is digits only, below limit when limit > 0.
func wholeNumber(s string, limit int) bool {
	n, err := strconv.Atoi(s)
	return err == nil && s[0] != '+' && s[0] != '-' && (limit == 0 || n < limit)
}

// RunnerMem is what a task's rocesweep run process takes besides its jobs' workers (the
// runner, its rows in flight, the sink), added to --mem.
const RunnerMem = 256 << 20

// Mem is a task's --mem in MiB: parallel jobs at once (its CPUs), each estimated at up
// to jobMem bytes (the plan's largest), plus RunnerMem, rounded up.
func Mem(jobMem int64, parallel int) int64 {
	b := jobMem*int64(max(parallel, 1)) + RunnerMem
	return (b + 1<<20 - 1) >> 20
}
