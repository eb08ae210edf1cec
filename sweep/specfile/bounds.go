package specfile

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/constraint"
	"github.com/rocesweep/rocesweep/model/config"
)

// Limits of a plan (reliability.md "Reliability"). The planner checks them from the spec's axis
// lengths, sample size and replicates before it allocates anything, so a spec of any
// size is refused at once with the reason instead of exhausting memory.
const (
	// MaxJobs is the largest plan: points × replicates. A plan holds each job's resolved
	// config in memory, so its size bounds the planner's memory and time; split a larger
	// study into several specs (or sample it: sweep.sample).
	MaxJobs = 100_000
	// MaxConstraintLen and MaxConstraintDepth bound a constraint expression: its text
	// in bytes, and the nesting of parentheses, `!` and unary `-` (package constraint).
	MaxConstraintLen   = constraint.MaxLen
	MaxConstraintDepth = constraint.MaxDepth
	// MaxWorkers bounds -j: parallel jobs of one process. Each holds a whole fabric in
	// memory, so more than a large machine's cores only adds memory, not speed.
	MaxWorkers = 1024
)

// validName is the rule for a sweep's `name`: it names the results directory
// (results/<name>), Slurm job names and file headers, so it is one path element made of
// letters, digits, `-`, `_` and `.`, not starting with `.` or `-`, at most 100 bytes:
// ^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$, checked by hand rather than with that regexp, so
// that no process pays for compiling it at start.
func validName(name string) bool {
	if len(name) == 0 || len(name) > 100 || name[0] == '.' || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// CheckName refuses a name that could leave results/, reach a shell or a file header as
// anything but one word, or hide a file (a leading dot).
func CheckName(name string) error {
	if !validName(name) {
		return fmt.Errorf("name %q: want letters, digits, '-', '_' and '.' (not first), at most 100 characters, e.g. alpha-xoff_v2", name)
	}
	return nil
}

// PlanSize returns the number of grid points before constraints and the number of jobs
// (points × replicates) of s, from the axis lengths and sample size alone; it fails,
// naming the reason, when the plan exceeds MaxJobs (or overflows an int on the way).
func (s *Spec) PlanSize() (points, jobs int, err error) {
	points = 1
	var factors []string
	seenZip := map[int]bool{}
	sampled := false
	mul := func(n int, what string) error {
		factors = append(factors, strconv.Itoa(n)+" "+what)
		hi, lo := bits.Mul64(uint64(points), uint64(n))
		if hi != 0 || lo > MaxJobs {
			return fmt.Errorf("%s: the sweep expands to more than %s jobs (%s); split it into several specs, or draw points with sweep.sample",
				s.File, config.Commas(MaxJobs), strings.Join(factors, " x "))
		}
		points = int(lo)
		return nil
	}
	for _, a := range s.Axes {
		switch {
		case a.Zip >= 0:
			if seenZip[a.Zip] {
				continue
			}
			seenZip[a.Zip] = true
			err = mul(len(a.Values), "values of zip group "+a.Path)
		case s.Sample != nil && a.Range != nil:
			if sampled {
				continue
			}
			sampled = true
			err = mul(s.Sample.N, "sampled points")
		default:
			err = mul(len(a.Values), "values of "+a.Path)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	p := points
	if err := mul(s.Replicates, "replicates"); err != nil {
		return 0, 0, err
	}
	return p, points, nil
}
