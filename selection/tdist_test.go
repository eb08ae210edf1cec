package selection

import (
	"math"
	"testing"

	"github.com/rocesweep/rocesweep/selection/ci"
)

// The bisection reproduces package ci's 0.975 table (and its expansion above 30 degrees
// of freedom), and the closed forms of 1 and 2 degrees of freedom at other levels:
// df 1 is Cauchy, t = tan(π(p − ½)); df 2 has t = (2p − 1) / √(2p(1 − p)).
func TestTInverse(t *testing.T) {
	for df := 1; df <= 120; df++ {
		if got, want := tInverse(0.975, df), ci.T975(df); math.Abs(got-want) > 1.5e-6 {
			t.Errorf("tInverse(0.975, %d) = %.7f, ci.T975 = %.7f", df, got, want)
		}
	}
	for _, p := range []float64{0.6, 0.75, 0.9, 0.95, 0.99, 0.995, 0.9995, 0.99999} {
		cauchy := math.Tan(math.Pi * (p - 0.5))
		two := (2*p - 1) / math.Sqrt(2*p*(1-p))
		if got := tInverse(p, 1); math.Abs(got-cauchy) > 1e-9*cauchy {
			t.Errorf("tInverse(%g, 1) = %.12g, want %.12g", p, got, cauchy)
		}
		if got := tInverse(p, 2); math.Abs(got-two) > 1e-9*two {
			t.Errorf("tInverse(%g, 2) = %.12g, want %.12g", p, got, two)
		}
	}
	// Printed tables (R: qt(p, df)).
	for _, c := range []struct {
		p    float64
		df   int
		want float64
	}{
		{0.95, 5, 2.015048}, {0.95, 10, 1.812461}, {0.995, 4, 4.604095},
		{0.995, 10, 3.169273}, {0.995, 30, 2.749996}, {0.9, 20, 1.325341},
	} {
		if got := tQuantile(c.p, c.df); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("tQuantile(%g, %d) = %.7f, want %.6f", c.p, c.df, got, c.want)
		}
	}
	if tQuantile(0.975, 4) != ci.T975(4) {
		t.Error("tQuantile(0.975) is not ci.T975")
	}
	if tQuantile(0.5, 3) != 0 || !math.IsNaN(tQuantile(0.9, 0)) || !math.IsNaN(tQuantile(1, 3)) {
		t.Error("tQuantile edge cases")
	}
}
