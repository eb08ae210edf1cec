package config

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model/sim"
)

// MaxSwitchBytes is the largest `bytes` value a switch attribute may hold (switch.md §1,
// DC-21): 4,294,967,295 B.
const MaxSwitchBytes Bytes = math.MaxUint32

// byteUnits are the byte units of nic.md §0 and switch.md §1, plus GB/GiB.
var byteUnits = []struct {
	name string
	mult int64
}{
	{"B", 1}, {"KB", 1_000}, {"KiB", 1 << 10}, {"MB", 1_000_000}, {"MiB", 1 << 20},
	{"GB", 1_000_000_000}, {"GiB", 1 << 30},
}

// timeUnits are the time units of switch.md §1 and nic.md §14, in picoseconds.
var timeUnits = []struct {
	name string
	mult int64
}{
	{"ps", 1}, {"ns", 1_000}, {"us", 1_000_000}, {"ms", 1_000_000_000}, {"s", 1_000_000_000_000},
}

// rateUnits are the data-rate units of nic.md §0 and switch.md §1.
var rateUnits = []struct {
	name string
	mult float64
}{
	{"Gbps", 1e9}, {"Mbps", 1e6},
}

// splitNumber splits "700KB" into the number "700" and the unit "KB". The number is a
// plain decimal: optional sign, digits, optional fraction, optional exponent (no hex, no
// underscores, no fractions like 3/4). Blanks between number and unit are allowed.
func splitNumber(s string) (num, unit string, err error) {
	s = strings.TrimSpace(s)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return "", "", errors.New("no number")
	}
	// Exponent only when followed by digits, so "1e" stays a unit error.
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return s[:i], strings.TrimSpace(s[i:]), nil
}

// exactNumber parses a plain decimal exactly. Exponents beyond ±30 are refused so a
// hostile "1e999999999" cannot make big.Rat allocate without bound.
func exactNumber(num string) (*big.Rat, error) {
	if e := strings.IndexAny(num, "eE"); e >= 0 {
		x, err := strconv.Atoi(num[e+1:])
		if err != nil || x > 30 || x < -30 {
			return nil, fmt.Errorf("exponent out of range")
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, fmt.Errorf("not a number")
	}
	return r, nil
}

// unitNames lists unit names for messages: "B, KB, KiB, MB, MiB, GB, GiB".
func unitNames[T any](units []struct {
	name string
	mult T
}) string {
	var b strings.Builder
	for i, u := range units {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(u.name)
	}
	return b.String()
}

// ParseBytes parses a `bytes`/`queuesize` value (nic.md §0, §14; switch.md §1): a
// non-negative number with a unit B, KB = 1,000, KiB = 1,024, MB = 10^6, MiB = 2^20,
// GB = 10^9, GiB = 2^30. A bare number is refused as ambiguous unless it is 0 (700
// could be meant as KB; every count attribute is a uint, not a size). The result must be a whole
// number of bytes ("2.5KB" = 2,500 B; "1.0005KB" is refused). Negative values are refused
// (nic.md §15 rule 5).
func ParseBytes(s string) (Bytes, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("a size needs a number and a unit (%s)", unitNames(byteUnits))
	}
	mult := int64(-1)
	if unit == "" {
		if r, err := exactNumber(num); err != nil || r.Sign() != 0 {
			return 0, fmt.Errorf("a size needs a unit (%s): %sB or %sKB?", unitNames(byteUnits), num, num)
		}
		mult = 1
	}
	for _, u := range byteUnits {
		if u.name == unit {
			mult = u.mult
		}
	}
	if mult < 0 {
		return 0, fmt.Errorf("unknown unit %q for a size (use %s)", unit, unitNames(byteUnits))
	}
	r, err := exactNumber(num)
	if err != nil {
		return 0, fmt.Errorf("size: %w", err)
	}
	if r.Sign() < 0 {
		return 0, errors.New("negative size (nic.md §15 rule 5)")
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, errors.New("not a whole number of bytes")
	}
	if !r.Num().IsInt64() {
		return 0, errors.New("size too large")
	}
	return Bytes(r.Num().Int64()), nil
}

// ParseTime parses a `timeval` (switch.md §1, nic.md §0): a non-negative number with a
// unit ps, ns, us, ms or s, which must come to a whole number of picoseconds (nic.md §15
// rule 5). A bare number is refused as ambiguous unless it is 0, or bareSeconds is set
// (the spec's "double s" globals, nic.md §14, where 0.001 means 1 ms).
func ParseTime(s string, bareSeconds bool) (sim.Time, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("a time needs a number and a unit (%s)", unitNames(timeUnits))
	}
	r, err := exactNumber(num)
	if err != nil {
		return 0, fmt.Errorf("time: %w", err)
	}
	mult := int64(-1)
	for _, u := range timeUnits {
		if u.name == unit {
			mult = u.mult
		}
	}
	if unit == "" {
		switch {
		case bareSeconds:
			mult = int64(sim.Second)
		case r.Sign() == 0:
			mult = 1
		default:
			return 0, fmt.Errorf("a time needs a unit (%s)", unitNames(timeUnits))
		}
	}
	if mult < 0 {
		return 0, fmt.Errorf("unknown unit %q for a time (use %s)", unit, unitNames(timeUnits))
	}
	if r.Sign() < 0 {
		return 0, errors.New("negative time (nic.md §15 rule 5)")
	}
	r.Mul(r, new(big.Rat).SetInt64(mult))
	if !r.IsInt() {
		return 0, errors.New("finer than 1 ps: time must be a whole number of picoseconds (nic.md §0, §15 rule 5)")
	}
	if !r.Num().IsInt64() || r.Num().Int64() == int64(sim.Never) {
		return 0, errors.New("time too large")
	}
	return sim.Time(r.Num().Int64()), nil
}

// ParseRate parses a `datarate` (nic.md §0, switch.md §1): a non-negative number with a
// unit Gbps (10^9 bit/s) or Mbps (10^6 bit/s). A bare number is refused as ambiguous
// unless it is 0.
func ParseRate(s string) (Rate, error) {
	num, unit, err := splitNumber(s)
	if err != nil {
		return 0, fmt.Errorf("a rate needs a number and a unit (%s)", unitNames(rateUnits))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, errors.New("rate out of range")
	}
	mult := -1.0
	for _, u := range rateUnits {
		if u.name == unit {
			mult = u.mult
		}
	}
	if unit == "" {
		if f != 0 {
			return 0, fmt.Errorf("a rate needs a unit (%s)", unitNames(rateUnits))
		}
		mult = 1
	}
	if mult < 0 {
		return 0, fmt.Errorf("unknown unit %q for a rate (use %s)", unit, unitNames(rateUnits))
	}
	if f < 0 {
		return 0, errors.New("negative rate (nic.md §15 rule 5)")
	}
	// Multiply through the decimal text so 31.52Gbps is exactly 31,520,000,000 bit/s.
	r, err := exactNumber(num)
	if err != nil {
		return 0, fmt.Errorf("rate: %w", err)
	}
	r.Mul(r, new(big.Rat).SetFloat64(mult))
	v, _ := r.Float64()
	if math.IsInf(v, 0) {
		return 0, errors.New("rate out of range")
	}
	return Rate(v), nil
}

// ParseUint parses a `uint`: digits only; negative or fractional values are refused
// (nic.md §15).
func ParseUint(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		return 0, errors.New("negative value for a uint (nic.md §15)")
	}
	if strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	if s == "" || strings.Trim(s, "0123456789") != "" {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return 0, errors.New("not a whole number (uint, nic.md §15)")
		}
		return 0, errors.New("not a whole number (uint)")
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("uint out of range")
	}
	return v, nil
}

// ParseInt parses an `int` (topology and workload keys): an optional sign and digits.
func ParseInt(s string) (int, error) {
	s = strings.TrimSpace(s)
	t := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if t == "" || strings.Trim(t, "0123456789") != "" {
		return 0, errors.New("not a whole number")
	}
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, errors.New("integer out of range")
	}
	return int(v), nil
}

// ParseDouble parses a `double`: a finite decimal number.
func ParseDouble(s string) (float64, error) {
	s = strings.TrimSpace(s)
	num, unit, err := splitNumber(s)
	if err != nil || unit != "" {
		return 0, errors.New("not a number")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, errors.New("number out of range")
	}
	return f, nil
}

// ParseBool parses a `bool`: true or false (nic.md §15); the YAML spellings True/TRUE/
// False/FALSE are accepted too.
func ParseBool(s string) (bool, error) {
	switch strings.TrimSpace(s) {
	case "true", "True", "TRUE":
		return true, nil
	case "false", "False", "FALSE":
		return false, nil
	}
	return false, errors.New("a bool is true or false (nic.md §15)")
}

// SplitList splits an 8-entry list given as the bracket string "[0.9, 0.1, 0, 0, 0, 0, 0,
// 0]" or the same without brackets (switch.md §1) into its trimmed entries.
func SplitList(s string) ([]string, error) {
	t := strings.TrimSpace(s)
	open, close := strings.HasPrefix(t, "["), strings.HasSuffix(t, "]")
	if open != close || (open && len(t) < 2) {
		return nil, errors.New("unbalanced brackets in a list")
	}
	if open {
		t = t[1 : len(t)-1]
	}
	if strings.TrimSpace(t) == "" {
		return nil, nil
	}
	parts := strings.Split(t, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, nil
}

// ParseVec8 parses the entries of an 8-entry list (switch.md §1, nic.md §14-15): exactly
// eight entries, each made only of letters, digits, '.', '_', '+', '-' and a finite
// number; whole requires whole numbers (TrafficClassPoolMapping, EnablePFC,
// WRRQueueWeights, QuantaValue).
func ParseVec8(entries []string, whole bool) (Vec8, error) {
	var v Vec8
	if len(entries) != 8 {
		return v, fmt.Errorf("%d entries, a list needs exactly 8", len(entries))
	}
	for i, e := range entries {
		if e == "" {
			return v, fmt.Errorf("entry %d is empty", i)
		}
		for _, c := range e {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-') {
				return v, fmt.Errorf("entry %d %q has a character %q outside letters, digits, '.', '_', '+', '-'", i, e, c)
			}
		}
		f, err := ParseDouble(e)
		if err != nil {
			return v, fmt.Errorf("entry %d %q is not a number", i, e)
		}
		if whole && f != math.Trunc(f) {
			return v, fmt.Errorf("entry %d %q is not a whole number", i, e)
		}
		v[i] = f
	}
	return v, nil
}

// FormatBytes prints b in the largest unit that divides it exactly, decimal units first,
// then MiB/GiB: 256000000 → "256MB", 1048576 → "1MiB", 4096 → "4096B" (as the spec
// writes MSS).
func FormatBytes(b Bytes) string {
	if b == 0 {
		return "0B"
	}
	for _, name := range []string{"GB", "MB", "KB", "GiB", "MiB"} {
		for _, u := range byteUnits {
			if u.name == name && int64(b)%u.mult == 0 {
				return strconv.FormatInt(int64(b)/u.mult, 10) + u.name
			}
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

// FormatTime prints t in the largest unit that divides it exactly: "500ns", "1ms", "0s".
func FormatTime(t sim.Time) string {
	if t == 0 {
		return "0s"
	}
	for i := len(timeUnits) - 1; i >= 0; i-- {
		if int64(t)%timeUnits[i].mult == 0 {
			return strconv.FormatInt(int64(t)/timeUnits[i].mult, 10) + timeUnits[i].name
		}
	}
	return strconv.FormatInt(int64(t), 10) + "ps"
}

// FormatRate prints r in Gbps ("400Gbps", "31.52Gbps"), or Mbps below 1 Gbps; 0 → "0".
func FormatRate(r Rate) string {
	switch {
	case r == 0:
		return "0"
	case r >= 1e9:
		return strconv.FormatFloat(float64(r)/1e9, 'f', -1, 64) + "Gbps"
	}
	return strconv.FormatFloat(float64(r)/1e6, 'f', -1, 64) + "Mbps"
}

// FormatDouble prints f without exponent: 0.9, 65535.
func FormatDouble(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// FormatVec8 prints the bracket form of switch.md §1: "[0.9, 0.1, 0, 0, 0, 0, 0, 0]".
func FormatVec8(v Vec8) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(FormatDouble(x))
	}
	b.WriteByte(']')
	return b.String()
}

// Commas prints n with thousands separators as the spec does: 256,000,000.
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
