package sweep

import "github.com/rocesweep/rocesweep/sweep/specfile"
import "testing"

// FuzzParseConstraint: any text either parses or gives an error; a parsed expression
// evaluates (to a value or an error) without panicking, over any variable values.
func FuzzParseConstraint(f *testing.F) {
	for _, s := range []string{
		"switch.StaticPoolXonThreshold < switch.StaticPoolXoffThreshold",
		"switch.LossyAlpha * 2 >= 1 && !(topology.hosts == 8)",
		"nic.DataRate <= 400Gbps || duration > 500us",
		`workload.kind == "incast"`, "-(1 + 2) * 3 / 0", "((", "a <", "1KB + 2MiB",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := specfile.ParseConstraint(text)
		if err != nil {
			return
		}
		for _, v := range []any{1.5, 0.0, "x", true} {
			_, _ = c.Eval(func(string) (any, error) { return v, nil })
		}
		_ = c.Refs()
	})
}

// FuzzParseSpec: any YAML either parses into a spec or gives an error, never a panic;
// a parsed spec expands (or refuses) without panicking.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{
		"name: q\nsweep:\n  grid:\n    switch.LossyAlpha: [0.25, 1]\n",
		"duration: 100us\nsweep:\n  zip:\n    switch.StaticPoolXoffThreshold: [200KB, 400KB]\n    switch.StaticPoolXonThreshold: [100KB, 200KB]\n",
		"sweep:\n  grid:\n    switch.PlaneBDP: {from: 100KB, to: 1MB, steps: 3, scale: log}\n  constraint: switch.PlaneBDP > 200KB\n",
		"sweep: {sample: {n: 3, method: lhs, seed: 2}, grid: {switch.LossyAlpha: {from: 0.1, to: 10, scale: log}}}\n",
		"replicates: 0\n", "sweep: [1, 2]\n", ": :\n", "switch: {LossyAlpa: 1}\n",
		"sweep:\n  grid:\n\tswitch.LossyAlpha: [1]\n", "sweep:\n    grid: {}\n  zip: {}\n", "grid:\n  switch.LossyAlpha: [1]\n",
		"sweep:\n  grid:\n    switch.LossyAlpha: [1, 2]\n      seed: 3\n", "sweep:\n  seed: 3\n",
		"replicates: 2\nreplicates: 3\n", "objective: {metric: drops_total, metric: x}\n", "seed: *a\n", "name: a\x00\n",
		"sweep: {grid: {seed: [1, 2]}}\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s, err := specfile.Parse("fuzz.yaml", []byte(text), nil)
		if err != nil {
			return
		}
		if s.Replicates < 1 {
			t.Fatalf("replicates %d accepted", s.Replicates)
		}
		total := s.Replicates
		for _, a := range s.Axes {
			if n := len(a.Values); n > 0 {
				total *= n
			}
		}
		if total > 10000 || s.Sample != nil && s.Sample.N > 10000 {
			return // expansion size is not what this target checks
		}
		_, _ = Expand(s, nil)
	})
}
