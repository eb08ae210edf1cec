package config

import (
	"math"
	"strconv"
)

// CommasF formats a float quantity of whole units (bytes) like Commas, rounded; beyond
// what an int64 holds (a guidance computed from a rate above 10¹⁸ bit/s) it falls back to
// an exponent instead of overflowing to "-9,223,372,036,854,775,808".
func CommasF(x float64) string {
	if math.IsNaN(x) || math.Abs(x) >= 9e18 {
		return strconv.FormatFloat(x, 'g', 4, 64)
	}
	return Commas(int64(math.Round(x)))
}
