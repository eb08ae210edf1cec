package ci

import (
	"math"
	"testing"
)

// Known 0.975 quantiles of Student's t (R: qt(0.975, df), to 6 decimals).
func TestT975Known(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{
		{1, 12.706205}, {2, 4.302653}, {3, 3.182446}, {4, 2.776445}, {5, 2.570582},
		{9, 2.262157}, {10, 2.228139}, {19, 2.093024}, {29, 2.045230}, {30, 2.042272},
		{31, 2.039513}, {40, 2.021075}, {60, 2.000298}, {100, 1.983972}, {120, 1.979930},
		{1000, 1.962339}, {1 << 30, 1.959964},
	} {
		if got := T975(c.df); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("T975(%d) = %.7f, want %.6f", c.df, got, c.want)
		}
	}
	if !math.IsNaN(T975(0)) || !math.IsNaN(T975(-1)) {
		t.Error("T975 of df <= 0 is not NaN")
	}
}

// tCDF integrates the t density from 0 to x (Simpson, 2,000 steps) and adds 1/2.
// Simpson's error falls as the fourth power of the step: at 2,000 steps every
// probability TestT975IsTheQuantile computes is within 2e-14 of 200,000 steps', far
// inside the 2e-7 it allows.
func tCDF(x float64, df int) float64 {
	v := float64(df)
	lg1, _ := math.Lgamma((v + 1) / 2)
	lg2, _ := math.Lgamma(v / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(v*math.Pi)
	f := func(u float64) float64 { return c * math.Pow(1+u*u/v, -(v+1)/2) }
	const n = 2_000
	h := x / n
	s := f(0) + f(x)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(float64(i)*h)
	}
	return 0.5 + s*h/3
}

// Every quantile, from the table or the expansion, puts 97.5% of the distribution below it.
func TestT975IsTheQuantile(t *testing.T) {
	for df := 1; df <= 80; df++ {
		if p := tCDF(T975(df), df); math.Abs(p-0.975) > 2e-7 {
			t.Errorf("df %d: P(T <= %.6f) = %.8f, want 0.975", df, T975(df), p)
		}
	}
}

func TestMean(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name       string
		xs         []float64
		n          int
		mean, half float64 // half NaN: unknown
	}{
		{"empty", nil, 0, nan, nan},
		{"one", []float64{5}, 1, 5, nan},
		// mean 2, s = 1, half = 12.706205 * 1/sqrt(2)... for {1, 3}: s = sqrt(2), half = 12.706205
		{"two", []float64{1, 3}, 2, 2, 12.706205},
		// {1, 2, 3}: s = 1, half = 4.302653/sqrt(3)
		{"three", []float64{1, 2, 3}, 3, 2, 4.302653 / math.Sqrt(3)},
		{"NaN skipped", []float64{1, nan, 2, 3}, 3, 2, 4.302653 / math.Sqrt(3)},
		{"constant", []float64{7, 7, 7, 7}, 4, 7, 0},
	} {
		iv := Mean(c.xs)
		same := func(a, b float64) bool { return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12 }
		if iv.N != c.n || !same(iv.Mean, c.mean) || !same(iv.Half, c.half) {
			t.Errorf("%s: Mean(%v) = %+v, want n %d mean %g half %g", c.name, c.xs, iv, c.n, c.mean, c.half)
		}
	}
}

// A paired interval removes what both points share: two points whose replicates move
// together by a large common noise differ by a constant, and the paired interval is
// exactly that constant with no width, while the unpaired intervals overlap.
func TestPaired(t *testing.T) {
	a := []float64{100, 250, 40, 180}
	b := []float64{103, 253, 43, 183}
	d := Paired(a, b)
	if d.N != 4 || d.Mean != 3 || d.Half != 0 || !d.ExcludesZero() {
		t.Errorf("Paired = %+v, want 3 ± 0 excluding zero", d)
	}
	ia, ib := Mean(a), Mean(b)
	if !(ia.Hi() > ib.Lo()) {
		t.Errorf("unpaired intervals %+v %+v do not overlap; the test wants them to", ia, ib)
	}
	// Differences {1, -1, 2, -2}: mean 0, the interval contains zero.
	z := Paired([]float64{0, 0, 0, 0}, []float64{1, -1, 2, -2})
	if z.ExcludesZero() || z.Mean != 0 {
		t.Errorf("Paired around zero = %+v", z)
	}
	if one := Paired([]float64{1}, []float64{2}); one.ExcludesZero() || one.Known() {
		t.Errorf("one pair gives a known interval: %+v", one)
	}
	n := Paired([]float64{1, math.NaN(), 3}, []float64{2, 5, 4})
	if n.N != 2 || n.Mean != 1 {
		t.Errorf("NaN pair not skipped: %+v", n)
	}
}

func TestFormat(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		iv   Interval
		want string
	}{
		{Interval{N: 3, Mean: 36118.3, Half: 2103}, "36.1k ± 2.1k"},
		{Interval{N: 3, Mean: 82.8412, Half: 0.3712}, "82.84 ± 0.37"},
		{Interval{N: 3, Mean: 5, Half: 0}, "5 ± 0"},
		{Interval{N: 3, Mean: 2.5, Half: 0}, "2.5 ± 0"}, {Interval{N: 3, Mean: 12345, Half: 0}, "12.35k ± 0"},
		{Interval{N: 2, Mean: 15728640, Half: 3000}, "15.73M ± 0.0030M"},
		// At most four significant digits in the mean, whatever the half-width: once
		// "8.62015 ± 0.00026".
		{Interval{N: 5, Mean: 8.62015, Half: 0.00026}, "8.620 ± 0.00026"},
		{Interval{N: 1, Mean: 40316, Half: nan}, "40.32k"},
		{Interval{N: 1, Mean: 702.7, Half: nan}, "702.7"},
		{Interval{N: 0, Mean: nan, Half: nan}, "-"},
		{Interval{N: 4, Mean: -12, Half: 30}, "-12 ± 30"},
	} {
		if got := c.iv.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.iv, got, c.want)
		}
	}
	for v, want := range map[float64]string{0: "0", 12154: "12.15k", 0.0625: "0.0625", 63.5: "63.5", 12100: "12.1k", 374.51: "374.5", 2e9: "2000M", 4e10: "40G"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%g) = %q, want %q", v, got, want)
		}
	}
}
