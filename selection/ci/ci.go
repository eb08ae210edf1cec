// Package ci turns replicates into statistics: the mean of a grid point's replicates with
// a 95% confidence interval from Student's t distribution, and the same for paired
// differences between two points that share random numbers (design.md "The engine":
// replicate r of every grid point draws the same streams, so point B minus point A,
// replicate by replicate, measures the parameter and not the dice).
//
// It is the one place that knows a t quantile; report, compare and the closing table of
// `run` call it. Inputs are plain float64 slices; NaN (a null metric) is skipped.
package ci

import (
	"math"
)

// t975 holds the 0.975 quantile of Student's t distribution for 1..30 degrees of freedom
// (two-sided 95%), to 6 decimals as printed in statistical tables.
var t975 = [...]float64{
	12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
	2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
	2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
}

// z975 is the 0.975 quantile of the standard normal distribution.
const z975 = 1.959963984540054

// T975 returns the 0.975 quantile of Student's t with df degrees of freedom: the
// multiplier of the standard error in a two-sided 95% interval. df <= 0 gives NaN. Above
// 30 degrees of freedom it uses the Cornish-Fisher expansion of t around the normal
// quantile (four terms; error below 1e-6 for df > 30).
func T975(df int) float64 {
	switch {
	case df <= 0:
		return math.NaN()
	case df <= len(t975):
		return t975[df-1]
	}
	z, v := z975, float64(df)
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + g1/v + g2/(v*v) + g3/(v*v*v) + g4/(v*v*v*v)
}

// Interval is a mean with its two-sided 95% confidence interval, Mean ± Half. N counts
// the values used; with N < 2 Half is NaN (one replicate says nothing about the spread),
// with N = 0 Mean is NaN too.
type Interval struct {
	N          int
	Mean, Half float64
	SD         float64 // sample standard deviation (n-1); NaN when N < 2
}

// Lo and Hi are the ends of the interval (NaN when it is unknown).
func (iv Interval) Lo() float64 { return iv.Mean - iv.Half }
func (iv Interval) Hi() float64 { return iv.Mean + iv.Half }

// Known reports whether the interval exists (N >= 2).
func (iv Interval) Known() bool { return iv.N >= 2 && !math.IsNaN(iv.Half) }

// ExcludesZero reports whether the interval is known and does not contain 0: a paired
// difference that is there beyond the noise of the replicates.
func (iv Interval) ExcludesZero() bool { return iv.Known() && (iv.Lo() > 0 || iv.Hi() < 0) }

// Mean returns the mean of xs and its 95% interval, mean ± t(0.975, n-1)·s/√n, over the
// values that are not NaN.
func Mean(xs []float64) Interval {
	var n int
	var sum float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			n++
			sum += x
		}
	}
	iv := Interval{N: n, Mean: math.NaN(), Half: math.NaN(), SD: math.NaN()}
	if n == 0 {
		return iv
	}
	iv.Mean = sum / float64(n)
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			d := x - iv.Mean
			ss += d * d
		}
	}
	iv.SD = math.Sqrt(ss / float64(n-1))
	iv.Half = T975(n-1) * iv.SD / math.Sqrt(float64(n))
	return iv
}

// Paired returns the mean of the differences b[i] - a[i] with its 95% interval: the
// interval of a paired t test. Pairs with a NaN on either side are skipped; a and b are
// matched by index (replicate r of both points) and must have the same length.
func Paired(a, b []float64) Interval {
	if len(a) != len(b) {
		panic("ci.Paired: slices of different lengths")
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i] // NaN when either is NaN
	}
	return Mean(d)
}
