package constraint

import (
	"strings"
	"testing"
)

// Margin turns a top-level comparison of numbers into x − y with its sense, and any
// other expression into 1 (holds) or 0 (does not).
func TestMargin(t *testing.T) {
	env := func(name string) (any, error) {
		return map[string]any{"drops_lossless": int64(3), "fct": 140.0, "ok": true}[name], nil
	}
	for _, tc := range []struct {
		text   string
		margin float64
		sense  Sense
	}{
		{"drops_lossless == 0", 3, EQ},
		{"fct <= 150", -10, LE},
		{"fct < 150", -10, LT},
		{"2 * fct >= 300", -20, GE},
		{"fct > 100", 40, GT},
		{"drops_lossless != 3", 0, NE},
		{"drops_lossless == 0 || fct < 150", 1, Holds},
		{"!ok", 0, Holds},
	} {
		c, err := Parse(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		m, s, err := c.Margin(env)
		if err != nil || m != tc.margin || s != tc.sense {
			t.Errorf("%s: margin %v %v, %v; want %v %v", tc.text, m, s, err, tc.margin, tc.sense)
		}
	}
}

// A division by zero is an error, not an infinity that makes a comparison hold.
func TestDivisionByZero(t *testing.T) {
	c, err := Parse("1 / 0 > 1")
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Eval(nil); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("1 / 0 > 1 = %v, %v; want a division by zero error", ok, err)
	}
}
