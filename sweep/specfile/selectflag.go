package specfile

import (
	"fmt"
	"strings"

	"github.com/rocesweep/rocesweep/question"
)

// ChooseSelection applies a command's --select to s: when given (set), on says whether
// the sweep runs as a selection; otherwise it does when the spec has a select: block. A
// selection's spec runs its first stage (UseSelection, whose warning it returns); a
// fixed design drops the select: block and runs the spec's replicates.
//
// A bisection (an objective of smallest: or largest:) runs as one whatever --select
// says: it has no fixed design.
func (s *Spec) ChooseSelection(set, on bool) (selecting bool, warning string) {
	if s.Objective != nil && s.Objective.Bisect != nil {
		warning = s.UseSelection()
		if set && !on {
			warning = strings.TrimPrefix(warning+"; ", "; ") + "--select=false: a bisection has no fixed design; it runs as a bisection"
		}
		return true, warning
	}
	selecting = s.Select != nil
	if set {
		selecting = on
	}
	if !selecting {
		s.Select = nil
		return false, ""
	}
	return true, s.UseSelection()
}

// UseSelection makes s a selection's spec: its plan runs the first stage, select.initial
// replicates of every point (default question.DefaultInitial), in place of
// `replicates` (a bisection's spec: its first probes, useBisection). It returns a
// warning when that drops a `replicates` the spec set.
func (s *Spec) UseSelection() string {
	if s.Objective != nil && s.Objective.Bisect != nil {
		return s.useBisection()
	}
	if s.Select == nil {
		s.Select = &question.Config{}
	}
	n := s.Select.Initial
	if n == 0 {
		n = question.DefaultInitial
	}
	warn := ""
	if s.Replicates > 1 && s.Replicates != n {
		warn = fmt.Sprintf("replicates: %d is not used by a selection: its first stage runs select.initial = %d replicates of every point, then more where the best point is still open", s.Replicates, n)
	}
	s.Select.Initial, s.Replicates = n, n
	return warn
}
