package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
)

// CDF is a message-size distribution: points (Size[i], Pct[i]) of a cumulative
// distribution, percent on a 0..100 scale, sampled by linear interpolation between
// points (sizecdf/README.md gives the text format and the sampling rule).
type CDF struct {
	Name string    // file name it came from, for messages
	Size []float64 // bytes, non-decreasing
	Pct  []float64 // cumulative percent, non-decreasing, last = 100
}

// ParseCDF reads a CDF in the text format of sizecdf/README.md. name labels
// errors: "websearch.txt:7: ...".
func ParseCDF(name string, r io.Reader) (*CDF, error) {
	c := &CDF{Name: name}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.Fields(text)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, fmt.Errorf("%s:%d: want \"<size bytes> <cumulative percent>\", got %d fields", name, line, len(f))
		}
		size, err := strconv.ParseFloat(f[0], 64)
		if err != nil || math.IsNaN(size) || math.IsInf(size, 0) || size < 0 {
			return nil, fmt.Errorf("%s:%d: size %q: want a non-negative number of bytes", name, line, f[0])
		}
		pct, err := strconv.ParseFloat(f[1], 64)
		if err != nil || math.IsNaN(pct) || pct < 0 || pct > 100 {
			return nil, fmt.Errorf("%s:%d: percent %q: want a number in 0..100", name, line, f[1])
		}
		if n := len(c.Size); n > 0 {
			if size < c.Size[n-1] {
				return nil, fmt.Errorf("%s:%d: size %g after %g: sizes must not decrease", name, line, size, c.Size[n-1])
			}
			if pct < c.Pct[n-1] {
				return nil, fmt.Errorf("%s:%d: percent %g after %g: percents must not decrease", name, line, pct, c.Pct[n-1])
			}
		}
		c.Size = append(c.Size, size)
		c.Pct = append(c.Pct, pct)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(c.Size) == 0 {
		return nil, fmt.Errorf("%s: no points", name)
	}
	if last := c.Pct[len(c.Pct)-1]; last != 100 {
		return nil, fmt.Errorf("%s:%d: last percent is %g: the CDF must end at 100", name, line, last)
	}
	if c.Size[len(c.Size)-1] < 1 {
		return nil, fmt.Errorf("%s: every size is below 1 byte", name)
	}
	return c, nil
}

// LoadCDF finds the distribution called name: NAME.txt in dir when name has no '/' and no
// ".txt" suffix (dir is usually SizeCDFs, the shipped ones), otherwise the file
// at path name. dir may be nil (paths only).
func LoadCDF(dir fs.FS, name string) (*CDF, error) {
	if name == "" {
		return nil, fmt.Errorf("workload.distribution: empty name")
	}
	if !strings.ContainsRune(name, '/') && !strings.HasSuffix(name, ".txt") {
		if dir == nil {
			return nil, fmt.Errorf("workload.distribution: %q: no built-in distributions available; give a file path", name)
		}
		f, err := dir.Open(name + ".txt")
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("workload.distribution: unknown distribution %q (known: %s)", name, strings.Join(Known(dir), ", "))
			}
			return nil, fmt.Errorf("workload.distribution: %w", err)
		}
		defer f.Close()
		return ParseCDF(name+".txt", f)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("workload.distribution: %w", err)
	}
	defer f.Close()
	return ParseCDF(name, f)
}

// Known lists the distribution names in dir (NAME for every NAME.txt), sorted.
func Known(dir fs.FS) []string {
	m, _ := fs.Glob(dir, "*.txt")
	for i := range m {
		m[i] = strings.TrimSuffix(m[i], ".txt")
	}
	return m
}

// Mean returns the mean size of the interpolated distribution in bytes:
// Σ (Pct[i] − Pct[i−1]) / 100 × (Size[i−1] + Size[i]) / 2, plus a first-point mass
// Pct[0]/100 × Size[0].
func (c *CDF) Mean() float64 {
	m := c.Pct[0] / 100 * c.Size[0]
	for i := 1; i < len(c.Size); i++ {
		m += (c.Pct[i] - c.Pct[i-1]) / 100 * (c.Size[i-1] + c.Size[i]) / 2
	}
	return m
}

// Sample draws one size: u uniform in [0, 100), the first point i with Pct[i] > u, linear
// interpolation between points i-1 and i, rounded to the nearest byte, at least 1 byte.
func (c *CDF) Sample(r *rand.Rand) int64 {
	u := r.Float64() * 100
	i := 0
	for c.Pct[i] <= u { // terminates: the last percent is 100 > u
		i++
	}
	s := c.Size[i]
	if i > 0 {
		p0, p1 := c.Pct[i-1], c.Pct[i]
		s = c.Size[i-1] + (c.Size[i]-c.Size[i-1])*(u-p0)/(p1-p0)
	}
	return max(1, int64(math.Round(s)))
}
