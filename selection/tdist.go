package selection

import (
	"math"

	"github.com/rocesweep/rocesweep/selection/ci"
)

// tQuantile returns the p quantile of Student's t distribution with df degrees of
// freedom, for 0.5 <= p < 1: the multiplier of the standard error in a two-sided
// interval of confidence 2p − 1. At p = 0.975 it is ci.T975 (the table the rest of
// rocesweep prints intervals with); at any other confidence, which package ci does not
// cover, it inverts the distribution function by bisection on the upper tail, to about
// 1e-12 relative. df <= 0 gives NaN.
func tQuantile(p float64, df int) float64 {
	switch {
	case df <= 0 || !(p >= 0.5 && p < 1):
		return math.NaN()
	case p == 0.5:
		return 0
	case math.Abs(p-0.975) < 1e-12:
		return ci.T975(df)
	}
	return tInverse(p, df)
}

// tInverse is the p quantile by bisection on the upper tail (0.5 < p < 1, df >= 1).
func tInverse(p float64, df int) float64 {
	tail := 1 - p
	lo, hi := 0.0, 1.0
	for tTail(hi, df) > tail {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi || hi-lo <= 1e-13*hi {
			break
		}
		if tTail(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// tTail is P(T > t) for t >= 0: ½ I_{v/(v+t²)}(v/2, 1/2).
func tTail(t float64, df int) float64 {
	v := float64(df)
	return 0.5 * regIncBeta(v/2, 0.5, v/(v+t*t))
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by its continued
// fraction (modified Lentz), on the side of x where it converges fast.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-16
	fix := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/fix(1-(a+b)*x/(a+1))
	h := d
	for m := 1.0; m <= 1000; m++ {
		aa := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / fix(1+aa*d)
		c = fix(1 + aa/c)
		h *= d * c
		aa = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / fix(1+aa*d)
		c = fix(1 + aa/c)
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
