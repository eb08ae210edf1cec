//go:build !invariants

// Package invariants switches expensive model self-checks on in test builds (invariants
// behind a build tag, design.md "The engine"): `go test -tags invariants ./model/...`.
// Enabled is a constant, so in normal builds the checks compile away. Enabled gates
// checks only; it must never select a different code path.
package invariants

// Enabled is true only in builds with the invariants tag.
const Enabled = false
