package sweep

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// A name reaches results/<name>, Slurm scripts and job names: the name rule lets through
// only names safe in all three, in the spec and in --set name=.
func TestNameRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"alpha-xoff", true}, {"alpha_xoff.v2", true}, {"A1", true}, {"_x", true},
		{"inj\ntouch /tmp/x\n#", false}, {"../../escaped", false}, {"..", false}, {".", false},
		{"", false}, {"a/b", false}, {".hidden", false}, {"-rf", false}, {"a b", false},
		{"x'y", false}, {"$(id)", false}, {strings.Repeat("a", 101), false}, {strings.Repeat("a", 100), true},
	} {
		spec := fmt.Sprintf("name: %q\nduration: 10us\n", tc.name)
		_, err := specfile.Parse("spec.yaml", []byte(spec), nil)
		if (err == nil) != tc.ok {
			t.Errorf("name %q: err %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "want letters, digits") {
			t.Errorf("name %q: error %q does not state the rule", tc.name, err)
		}
		// --set name=... is held to the same rule.
		_, err = specfile.Parse("spec.yaml", []byte("duration: 10us\n"), []string{"name=" + tc.name})
		if (err == nil) != tc.ok {
			t.Errorf("--set name=%q: err %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// The plan's size is known, and refused, before anything is allocated.
func TestPlanBoundsRefusedCheaply(t *testing.T) {
	// 7 axes of 10 values: 10⁷ points.
	var b strings.Builder
	b.WriteString("sweep:\n  grid:\n")
	for _, a := range []string{"switch.LossyAlpha", "switch.StaticPoolXoffThreshold", "switch.StaticPoolXonThreshold",
		"nic.DataRate", "duration", "seed", "topology.hosts"} {
		vals := make([]string, 10)
		for i := range vals {
			switch a {
			case "switch.LossyAlpha":
				vals[i] = fmt.Sprint(i + 1)
			case "switch.StaticPoolXoffThreshold", "switch.StaticPoolXonThreshold":
				vals[i] = fmt.Sprintf("%dKB", 100*(i+1))
			case "nic.DataRate":
				vals[i] = fmt.Sprintf("%dGbps", 100*(i+1))
			case "duration":
				vals[i] = fmt.Sprintf("%dus", 10*(i+1))
			case "seed":
				vals[i] = fmt.Sprint(i + 1)
			case "topology.hosts":
				vals[i] = fmt.Sprint(4 + i)
			}
		}
		fmt.Fprintf(&b, "    %s: [%s]\n", a, strings.Join(vals, ", "))
	}
	grid7 := b.String()

	cases := []struct {
		name, spec, want string
	}{
		{"1e7 grid", grid7, "more than 100,000 jobs (10 values of switch.LossyAlpha x"},
		{"replicates 1e9", "replicates: 1000000000\n", "replicates: want a whole number from 1 to 100,000"},
		{"replicates x grid", "replicates: 100000\nsweep: {grid: {switch.LossyAlpha: [1, 2]}}\n", "x 100000 replicates"},
		{"steps 2e9", "sweep: {grid: {switch.LossyAlpha: {from: 1, to: 2, steps: 2000000000}}}\n", "steps: want a whole number from 1 to 100,000"},
		{"sample 1e12", "sweep: {sample: {n: 1000000000000}, grid: {switch.LossyAlpha: {from: 1, to: 2}}}\n", "sweep.sample.n: want a whole number from 1 to 100,000"},
		{"sample x grid", "sweep: {sample: {n: 100000}, grid: {switch.LossyAlpha: {from: 1, to: 2}, seed: [1, 2]}}\n", "100000 sampled points x 2 values of seed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := specfile.Parse("spec.yaml", []byte(tc.spec), nil)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			// The acceptance bound is 100 MB; refusing takes a few hundred KB.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10<<20 {
				t.Errorf("refusing allocated %d bytes", alloc)
			}
		})
	}
	// Exactly at the limit is accepted (and not expanded here).
	if _, err := specfile.Parse("spec.yaml", []byte("replicates: 50000\nsweep: {grid: {switch.LossyAlpha: [1, 2]}}\n"), nil); err != nil {
		t.Errorf("100,000 jobs refused: %v", err)
	}
}

// Deep nesting (up to 2 M parentheses or `!`s) is refused with an error before it can
// overflow the parser's stack.
func TestConstraintNestingBounded(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	for _, tc := range []struct {
		name, text, want string
	}{
		{"2M parens", strings.Repeat("(", 2_000_000) + "1", "at most 10,000"},
		{"2M nots", strings.Repeat("!", 2_000_000) + "true", "at most 10,000"},
		{"deep parens", strings.Repeat("(", 101) + "true" + strings.Repeat(")", 101), "nested more than 100 levels"},
		{"deep nots", strings.Repeat("!", 101) + "true", "nested more than 100 levels"},
		{"deep minus", strings.Repeat("-", 101) + "1 < 2", "nested more than 100 levels"},
		{"mixed", strings.Repeat("!(", 51) + "true" + strings.Repeat(")", 51), "nested more than 100 levels"},
	} {
		_, err := specfile.ParseConstraint(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %.200v, want %q", tc.name, err, tc.want)
		}
	}
	// 100 levels are fine, and evaluate.
	c, err := specfile.ParseConstraint(strings.Repeat("(", 50) + strings.Repeat("!", 50) + "true" + strings.Repeat(")", 50))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Eval(nil); err != nil || !ok {
		t.Errorf("100 levels: %v %v", ok, err)
	}
	// A long flat chain (the longest text allowed) evaluates without deep recursion trouble.
	chain := strings.Repeat("1 + ", (specfile.MaxConstraintLen-10)/4) + "1 > 0"
	if c, err := specfile.ParseConstraint(chain); err != nil {
		t.Fatal(err)
	} else if ok, err := c.Eval(nil); err != nil || !ok {
		t.Errorf("chain: %v %v", ok, err)
	}
}

// Equal values after unit parsing are one value, and no two jobs share an id.
func TestEqualValuesMerged(t *testing.T) {
	s, err := specfile.Parse("spec.yaml", []byte(`name: dup
sweep:
  grid:
    switch.LossyAlpha: [1, 1.0, 1e0]
    switch.StaticPoolXoffThreshold: [700KB, 0.7MB, 700000B]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Jobs) != 1 || p.Points != 1 {
		t.Fatalf("%d jobs, %d points; want 1 and 1", len(p.Jobs), p.Points)
	}
	want := []string{
		"spec.yaml:4:28: switch.LossyAlpha: 1.0 equals 1; merged into one value",
		"spec.yaml:4:33: switch.LossyAlpha: 1e0 equals 1; merged into one value",
		"spec.yaml:5:45: switch.StaticPoolXoffThreshold: 0.7MB equals 700KB; merged into one value",
		"spec.yaml:5:52: switch.StaticPoolXoffThreshold: 700000B equals 700KB; merged into one value",
	}
	if got := strings.Join(s.Warnings, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}

	// Zip tuples that repeat, and a range whose steps round to equal values: merged points.
	p = mustPlan(t, `replicates: 2
sweep:
  zip:
    switch.StaticPoolXoffThreshold: [700KB, 0.7MB, 800KB]
    switch.StaticPoolXonThreshold: [100KB, 100000B, 100KB]
  grid:
    switch.LossyAlpha: [0.5, 2]
`)
	if len(p.Jobs) != 2*2*2 || p.Points != 4 {
		t.Errorf("zip: %d jobs, %d points; want 8 and 4", len(p.Jobs), p.Points)
	}
	if len(p.Spec.Warnings) != 2 || !strings.Contains(p.Spec.Warnings[0], "equals point 0; merged") {
		t.Errorf("zip warnings: %q", p.Spec.Warnings)
	}
	ids := map[string]int{}
	for _, j := range p.Jobs {
		if prev, dup := ids[j.ID]; dup {
			t.Errorf("jobs %d and %d share id %s", prev, j.Index, j.ID)
		}
		ids[j.ID] = j.Index
		if j.Index != len(ids)-1 {
			t.Errorf("job index %d at position %d", j.Index, len(ids)-1)
		}
	}
	// Job.Point stays dense after a merge: Invalid() and printWarnings group by it.
	for _, j := range p.Jobs {
		if j.Point != j.Index/2 {
			t.Errorf("job %d point %d", j.Index, j.Point)
		}
	}
}

// A second YAML document is refused, not ignored.
func TestSecondDocumentRefused(t *testing.T) {
	_, err := specfile.Parse("spec.yaml", []byte("name: a\n---\nname: b\nduration: 1ms\n"), nil)
	if err == nil || !strings.Contains(err.Error(), "spec.yaml:3: a second YAML document") {
		t.Fatalf("err = %v", err)
	}
	// A leading document marker and a trailing one alone are one document. (A file of
	// none is refused: TestEmptySpecRefused.)
	for _, ok := range []string{"---\nname: a\n", "name: a\n...\n"} {
		if _, err := specfile.Parse("spec.yaml", []byte(ok), nil); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
