package sweep

import "strings"

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
