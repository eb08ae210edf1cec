package sweep

// ChooseSelection applies a command's --select to s: when given (set), on says whether
// the sweep runs as a selection; otherwise it does when the spec has a select: block. A
// selection's spec runs its first stage (UseSelection, whose warning it returns); a
// fixed design drops the select: block and runs the spec's replicates.
func (s *Spec) ChooseSelection(set, on bool) (selecting bool, warning string) {
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
