package report

import (
	"math"
	"strings"
	"testing"
)

// The heat map's colour domain never stretches a tiny or noisy spread over the whole
// palette, and the caption says why.
func TestHeatScale(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name   string
		val    []float64 // one row of cells
		half   []float64
		lo, hi float64
		note   string // substring; "" means no note
	}{
		// 0.7% spread: the scale covers 10% of the largest value around the middle.
		{"tiny spread", []float64{1000, 1007}, []float64{0.1, 0.1}, 1003.5 - 50.35, 1003.5 + 50.35, "the colour scale covers 100.7"},
		// Spread 1, typical interval ±5: the colours show noise; the scale spans 10.1 (10% of 101).
		{"within noise", []float64{100, 101}, []float64{5, 5}, 100.5 - 5.05, 100.5 + 5.05, "replicate noise"},
		// Counts from 0: the whole range, no note.
		{"counts", []float64{0, 10000, 5000}, []float64{nan, nan, nan}, 0, 10000, ""},
		// Widening below 0 for non-negative values moves the scale to start at 0.
		{"near zero", []float64{1, 2}, []float64{4, 4}, 0, 8, "replicate noise"},
		{"constant", []float64{3, 3}, []float64{0, 0}, 3 - 0.15, 3 + 0.15, "Every cell is 3."},
	} {
		g := &grid{Val: [][]float64{c.val}, Half: [][]float64{c.half}}
		lo, hi, note := heatScale(g)
		if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
			t.Errorf("%s: scale %g..%g, want %g..%g", c.name, lo, hi, c.lo, c.hi)
		}
		if (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("%s: note %q, want %q", c.name, note, c.note)
		}
	}
}
