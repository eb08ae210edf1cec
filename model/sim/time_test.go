package sim

import (
	"math"
	"testing"
)

// TestHeadroomNeeded: sizing condition 1 of switch.md §4.6, 2 × rate × Delay / 8 + 2 × Mtu,
// exact in integers and rounded up.
func TestHeadroomNeeded(t *testing.T) {
	for _, tc := range []struct {
		rate  float64
		delay Time
		mtu   int64
		want  int64
	}{
		{400e9, 500 * Nanosecond, 4000, 58_000}, // switch.md §12.5: 50,000 + 8,000 ≤ 256,000
		{800e9, 10 * Microsecond, 0, 2_000_000}, // float seconds give 2,000,001
		{800e9, 10 * Microsecond, 4184, 2_008_368},
		{400e9, 100 * Nanosecond, 4184, 18_368},
		{1, 1, 0, 1}, // 2.5e-13 B rounds up to one byte
		{100e9, 0, 4184, 8_368},
		{1e27, Second, 0, math.MaxInt64}, // beyond int64: saturates, never negative
		{7.88e9, 3 * Nanosecond, 0, 6},   // 5.91 B
	} {
		if got := HeadroomNeeded(tc.rate, tc.delay, tc.mtu); got != tc.want {
			t.Errorf("HeadroomNeeded(%g bit/s, %v, %d) = %d, want %d", tc.rate, tc.delay, tc.mtu, got, tc.want)
		}
	}
}
