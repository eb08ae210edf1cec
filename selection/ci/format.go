package ci

import (
	"math"
	"strconv"
	"strings"
)

// String formats the interval as people read it: "36.1k ± 2.1k", "82.84 ± 0.37", "5 ± 0",
// "8.620 ± 0.00026". The half-width gets two significant digits and the mean the same
// number of decimals, but never more than four significant digits (spec.md "Replicates as statistics"):
// a mean known more finely than that shows four; both share the mean's k/M/G scale
// (from 10,000, 10 M, 10 G up). An unknown interval
// (one replicate) prints the mean alone with four significant digits; no value is "-".
func (iv Interval) String() string {
	if iv.N == 0 || math.IsNaN(iv.Mean) {
		return "-"
	}
	if !iv.Known() {
		return Num(iv.Mean)
	}
	if iv.Half == 0 { // every replicate agrees: the mean as Num prints it
		return Num(iv.Mean) + " ± 0"
	}
	scale, suffix := scaleOf(iv.Mean)
	m, h := iv.Mean/scale, iv.Half/scale
	dec := max(0, 1-int(math.Floor(math.Log10(h))))
	dec = min(dec, 6)
	mdec := dec
	if a := math.Abs(m); a > 0 {
		mdec = min(dec, max(0, 3-int(math.Floor(math.Log10(a)))))
	}
	return strconv.FormatFloat(m, 'f', mdec, 64) + suffix + " ± " + strconv.FormatFloat(h, 'f', dec, 64) + suffix
}

// Num formats one value in the same style: at most four significant digits (trailing
// zeros dropped), k/M/G from 10,000, integers below 10,000 as they are.
func Num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	if math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	scale, suffix := scaleOf(v)
	x := v / scale
	if x == math.Trunc(x) {
		return strconv.FormatFloat(x, 'f', 0, 64) + suffix
	}
	dec := 0
	if a := math.Abs(x); a > 0 {
		dec = max(0, 3-int(math.Floor(math.Log10(a))))
	}
	t := strconv.FormatFloat(x, 'f', min(dec, 6), 64)
	if strings.Contains(t, ".") { // 63.50 -> 63.5: no digit that says nothing
		t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
	}
	return t + suffix
}

func scaleOf(v float64) (float64, string) {
	a := math.Abs(v)
	switch {
	case a >= 1e10:
		return 1e9, "G"
	case a >= 1e7:
		return 1e6, "M"
	case a >= 1e4:
		return 1e3, "k"
	}
	return 1, ""
}
