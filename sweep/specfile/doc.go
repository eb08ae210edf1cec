// Package specfile parses a sweep spec (design.md "Sweep spec"): the base job, the axes
// of the grid with their zips, ranges and samples, constraints, replicates, and the
// study's objective and select: block (objective.go), a bisection (bisectspec.go) and
// its conditions (conditionsspec.go); --set and --grid overrides apply to it
// (overrides.go). It bounds what a spec may ask for (bounds.go). It knows no plan:
// sweep.Expand makes one from a Spec.
package specfile
