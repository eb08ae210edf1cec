package constraint

import (
	"math"
	"strings"
	"testing"
)

// ParseRequirement reads the three kinds of subject_to entry, with bounds as fractions
// or percents and a mean's tolerance as a number or a percent of its bound.
func TestParseRequirement(t *testing.T) {
	for _, c := range []struct {
		text  string
		kind  Kind
		sense Sense
		bound float64
		tol   float64
		inner string
	}{
		{"drops_lossless == 0", EveryRun, EQ, 0, 0, "drops_lossless == 0"},
		{"drops_lossless == 0 && fct_p99_usec_lossless <= 270", EveryRun, Holds, 0, 0, "drops_lossless == 0 && fct_p99_usec_lossless <= 270"},
		{"P(stuck_pause_ports > 0) <= 1%", Probability, LE, 0.01, 0, "stuck_pause_ports > 0"},
		{"P(msgs_completed_lossless < 120) < 0.005", Probability, LT, 0.005, 0, "msgs_completed_lossless < 120"},
		{"  P (stuck_pause_ports == 0) >= 99.5%", Probability, GE, 0.995, 0, "stuck_pause_ports == 0"},
		{"mean(drops_lossy) <= 1000 ± 100", Mean, LE, 1000, 100, "drops_lossy"},
		{"mean(drops_lossy) <= 1000 +- 5%", Mean, LE, 1000, 50, "drops_lossy"},
		{"mean(goodput_gbps_lossy * 2) > 1000 +/- 10", Mean, GT, 1000, 10, "goodput_gbps_lossy * 2"},
		{"mean(max_pool_bytes) <= 2MB ± 100KB", Mean, LE, 2e6, 1e5, "max_pool_bytes"},
	} {
		r, err := ParseRequirement(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		sense := r.Sense
		if r.Kind == EveryRun {
			sense = r.Expr.Sense()
		}
		if r.Kind != c.kind || sense != c.sense || r.Bound != c.bound || math.Abs(r.Tolerance-c.tol) > 1e-9 || r.Expr.Text != c.inner || r.Text != c.text {
			t.Errorf("%q: %+v (inner %q)", c.text, r, r.Expr.Text)
		}
	}
}

// Malformed entries are refused with a reason that says what is wanted.
func TestParseRequirementErrors(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"P(stuck_pause_ports > 0 <= 1%", "no closing )"},
		{"P(stuck_pause_ports > 0) == 1%", "want <=, <, >= or >"},
		{"P(stuck_pause_ports) <= 1%", "P(...) takes a condition"},
		{"P(stuck_pause_ports > 0) <= 150%", "not a probability"},
		{"P(stuck_pause_ports > 0) <= 1% ± 1%", "takes no tolerance"},
		{"mean(drops_lossy) <= 1000", "needs its tolerance"},
		{"mean(drops_lossy > 3) <= 1 ± 1", "mean(...) takes a number"},
		{"mean(drops_lossy) <= 0 ± 5%", "must be above 0"},
		{"mean(drops_lossy) <= 10 ± -1", "must be above 0"},
		{"mean(drops_lossy) <= lots ± 1", "not a number"},
		{"mean(drops_lossy +) <= 1 ± 1", "inside mean(...)"},
		{"drops_lossless ==", "ends early"},
		{"mean(x) <= 1e999 ± 1", "not a number"},
	} {
		_, err := ParseRequirement(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}

// Observe gives a run's value: a plain condition 1 or 0 (0 when a name it reads is null),
// a probability's condition 1, 0 or NaN (null), a mean's number (NaN when null).
func TestObserve(t *testing.T) {
	env := func(name string) (any, error) {
		return map[string]any{"drops": 3.0, "stuck": 0.0, "missing": math.NaN(), "label": "x"}[name], nil
	}
	for _, c := range []struct {
		text string
		want float64
	}{
		{"drops == 0", 0}, {"drops <= 3", 1}, {"missing == 0", 0}, {"label == \"x\"", 1},
		{"P(stuck > 0) <= 1%", 0}, {"P(drops > 0) <= 1%", 1}, {"P(missing > 0) <= 1%", math.NaN()},
		{"mean(drops * 2) <= 10 ± 1", 6}, {"mean(missing) <= 10 ± 1", math.NaN()},
	} {
		r, err := ParseRequirement(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Observe(env); got != c.want && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%q: %v, want %v", c.text, got, c.want)
		}
	}
}

// ParseRequirement never panics, and what it accepts has a kind, a bound of its kind
// and an expression.
func FuzzParseRequirement(f *testing.F) {
	for _, s := range []string{"drops_lossless == 0", "P(x > 0) <= 1%", "mean(x) <= 10 ± 1", "mean((x)) >= 1 +- 5%", "P(\"(\" == x) < 0.5", "P(", "mean(x) <= 1 ±"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseRequirement(text)
		if err != nil {
			return
		}
		if r.Expr == nil || r.Kind > Mean {
			t.Fatalf("%q: %+v", text, r)
		}
		switch r.Kind {
		case Probability:
			if !(r.Bound >= 0 && r.Bound <= 1) || r.Sense < LE || r.Sense > GT {
				t.Fatalf("%q: %+v", text, r)
			}
		case Mean:
			if !(r.Tolerance > 0) || math.IsInf(r.Tolerance, 0) || math.IsNaN(r.Bound) || math.IsInf(r.Bound, 0) || r.Sense < LE || r.Sense > GT {
				t.Fatalf("%q: %+v", text, r)
			}
		}
	})
}
