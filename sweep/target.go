package sweep

import "github.com/rocesweep/rocesweep/sweep/specfile"

// SweepPlan is the plan, unvalidated, of a spec file that sweeps (axes or a sample), for
// a single-job command (explain) to pick one job from (Plan.Pick); nil for a spec of one
// job, whose configuration SingleConfig gives.
func SweepPlan(file string, data []byte, sets []string) (*Plan, error) {
	s, err := specfile.Parse(file, data, sets)
	if err != nil || (len(s.Axes) == 0 && s.Sample == nil) {
		return nil, err
	}
	return Expand(s, nil)
}
