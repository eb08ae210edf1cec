// Package slurm holds the script of a Slurm job array (rocesweep slurm) and what
// rocesweep checks, computes and quotes for it: the script text, the task count, sbatch's
// time forms, the task's memory, the array's job name, shell quoting, submission.
package slurm

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
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

// unsafeJobNameRE matches what is kept out of a Slurm job name, compiled at first use.
var unsafeJobNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9._-]+`) })

// JobName names the array after the sweep and its results directory, so that the
// singleton dependency holds back a second array of the same directory (two tasks of
// one shard must never write at once) but not arrays of other directories.
func JobName(name, dir string) string {
	sum := sha256.Sum256([]byte(dir))
	safe := unsafeJobNameRE().ReplaceAllString(name, "_")
	return "rocesweep-" + safe + "-" + hex.EncodeToString(sum[:4])
}

// CommentText makes s safe in a one-line shell comment: a value holding a newline or
// another control character (a spec file named "a\ntouch x") is written Go-quoted,
// so nothing of it can start a line of the script.
func CommentText(s string) string {
	if strings.ContainsFunc(s, unicode.IsControl) {
		return strconv.Quote(s)
	}
	return s
}

// ShellQuote quotes s for a POSIX shell when it needs it: inside single quotes, each
// single quote in s closed, escaped with a backslash and reopened.
func ShellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-=+:,@", r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
