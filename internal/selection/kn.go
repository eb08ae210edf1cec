package selection

// Decide replays the procedure (package doc) over p from its first stage and returns
// where it stands. It is a pure function of p: no I/O, no randomness, no clock.
func Decide(p Problem) Decision {
	panic("selection.Decide: not implemented yet")
}
