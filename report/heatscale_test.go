package report

import (
	"math"
	"testing"
)

// The caption compares like with like: a spread of 8.157 between cells against the width
// 8.866 of a typical cell's interval (±4.433), not against its half-width, which a
// spread of 8.157 is not below. (It once said "below the typical 95% interval of one
// cell (±4.433)".)
func TestHeatScaleNote(t *testing.T) {
	g := &grid{Val: [][]float64{{100, 108.157}}, Half: [][]float64{{4.433, 4.433}}}
	_, _, note := heatScale(g)
	want := "The spread between cells (8.157) is less than the width of a typical cell's 95% interval (8.866, ±4.433): these colours show replicate noise, not an effect."
	if note != want {
		t.Errorf("note\n got %q\nwant %q", note, want)
	}
	g.Val[0][1], g.Half[0][0], g.Half[0][1] = 120, 1, math.NaN()
	if _, _, note := heatScale(g); note == want {
		t.Errorf("a spread of 20 against ±1 is an effect: %q", note)
	}
}
