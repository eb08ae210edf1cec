//go:build invariants

package invariants

// Enabled is true only in builds with the invariants tag.
const Enabled = true
