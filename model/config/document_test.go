package config

import (
	"strings"
	"testing"
)

// Issue 14 item 11: a second YAML document in a spec was ignored without a word.
func TestLoadRefusesSecondDocument(t *testing.T) {
	_, err := Load("sim.yaml", []byte("duration: 1ms\n---\nduration: 2ms\n"))
	if err == nil || !strings.Contains(err.Error(), "sim.yaml:3: a second YAML document") {
		t.Fatalf("err = %v", err)
	}
	if _, err := Load("sim.yaml", []byte("---\nduration: 1ms\n")); err != nil {
		t.Fatal(err)
	}
}

// CommasF prints a float beyond an int64 with an exponent, not overflowed.
func TestCommasFDoesNotOverflow(t *testing.T) {
	for x, want := range map[float64]string{1e19: "1e+19", -2.5e20: "-2.5e+20", 1234567.4: "1,234,567", 0: "0"} {
		if got := CommasF(x); got != want {
			t.Errorf("CommasF(%g) = %q, want %q", x, got, want)
		}
	}
}
