package specfile

import "github.com/rocesweep/rocesweep/constraint"

// Constraint is a `sweep.constraint` expression over attribute paths (package
// constraint has the language); Pos is where the spec states it.
type Constraint = constraint.Expr

// ParseConstraint parses a constraint expression (constraint.Parse).
func ParseConstraint(text string) (*Constraint, error) { return constraint.Parse(text) }
