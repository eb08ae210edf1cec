package launch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// A directory of another plan is refused with what differs named, and another -o
// suggested first: --force mixes two studies in one directory.
func TestOtherPlanNamesTheDifference(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := t.TempDir()
	if _, err := launch.Run(context.Background(), plan(t, spec), testJob, launch.Options{Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		p    *sweep.Plan
		want []string
	}{
		{"a base setting", plan(t, sweeptest.GridSpec("t", 1, 2, "300us")), []string{"duration 200us, this spec's 300us"}},
		{"a --set", plan(t, spec, "seed=2"), []string{"--set [], this run's [seed=2]", "seed 1, this spec's 2"}},
		// more replicates extend the plan: --extend is the action
		{"replicates", plan(t, sweeptest.GridSpec("t", 1, 3, "200us")), []string{"replicates 2, this plan's 3", "or --extend to run the jobs of this plan it lacks"}},
		{"an axis's values", plan(t, strings.Replace(spec, "[0.25, 0.5, 1, 2]", "[0.25, 0.5, 1, 4]", 1)),
			[]string{"switch_LossyAlpha values [0.25 0.5 1 2], this plan's [0.25 0.5 1 4]"}},
		{"swept columns", plan(t, strings.Replace(spec, "    switch.StaticPoolXoffThreshold: [400KB, 700KB, 1MB]\n", "", 1)),
			[]string{"swept columns [switch_LossyAlpha switch_StaticPoolXoffThreshold], this plan's [switch_LossyAlpha]"}},
	} {
		_, err := launch.Run(context.Background(), tc.p, testJob, launch.Options{Dir: dir, Workers: 2, Resume: true})
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !strings.Contains(err.Error(), "--extend") {
			tc.want = append(tc.want, "use another -o for this plan (--force adds its jobs to the other plan's results")
		}
		for _, w := range append(tc.want, "that differs from this one") {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v\nwant it to say %q", tc.name, err, w)
			}
		}
	}
}
