package sweep

// SweepPlan is the plan, unvalidated, of a spec file that sweeps (axes or a sample), for
// a single-job command (explain) to pick one job from (Plan.Pick); nil for a spec of one
// job, whose configuration SingleConfig gives.
func SweepPlan(file string, data []byte, sets []string) (*Plan, error) {
	spec, err := ParseSpec(file, data, sets)
	if err != nil || (len(spec.Axes) == 0 && spec.Sample == nil) {
		return nil, err
	}
	return Expand(spec, nil)
}
