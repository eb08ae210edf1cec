package config

import (
	"math"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
		err  string // substring; "" = ok
	}{
		{"700KB", 700_000, ""},
		{"1KiB", 1024, ""},
		{"256MB", 256_000_000, ""},
		{"1MiB", 1 << 20, ""},
		{"4GB", 4_000_000_000, ""},
		{"1GiB", 1 << 30, ""},
		{"4184", 0, "a size needs a unit (B, KB, KiB, MB, MiB, GB, GiB): 4184B or 4184KB?"},
		{"-1", 0, "a size needs a unit"},
		{"64B", 64, ""},
		{"2.5MB", 2_500_000, ""},
		{"0.5KiB", 512, ""},
		{"4.294967295GB", 4_294_967_295, ""},
		{" 700 KB ", 700_000, ""},
		{"1e3KB", 1_000_000, ""},
		{"0", 0, ""},
		{"700XB", 0, `unknown unit "XB"`},
		{"700kb", 0, `unknown unit "kb"`},
		{"-1KB", 0, "negative size"},
		{"1.0005KB", 0, "not a whole number of bytes"},
		{"KB", 0, "needs a number"},
		{"", 0, "needs a number"},
		{"0x10", 0, "unknown unit"},
		{"1e999999999B", 0, "exponent out of range"},
		{"99999999999GB", 0, "too large"},
	} {
		got, err := ParseBytes(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseBytes(%q) error = %v; want %q", tc.in, err, tc.err)
		}
	}
}

func TestParseTime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		bare bool
		want sim.Time
		err  string
	}{
		{"500ns", false, 500 * sim.Nanosecond, ""},
		{"1ms", false, sim.Millisecond, ""},
		{"100us", false, 100 * sim.Microsecond, ""},
		{"2s", false, 2 * sim.Second, ""},
		{"1ps", false, 1, ""},
		{"2.5us", false, 2_500_000, ""},
		{"0", false, 0, ""},
		{"0.001", true, sim.Millisecond, ""},
		{"0.001", false, 0, "needs a unit"},
		{"0.5ps", false, 0, "finer than 1 ps"},
		{"1.0000001ns", false, 0, "finer than 1 ps"},
		{"-1us", false, 0, "negative time"},
		{"5min", false, 0, `unknown unit "min"`},
		{"200000000s", false, 0, "too large"},
	} {
		got, err := ParseTime(tc.in, tc.bare)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseTime(%q) error = %v; want %q", tc.in, err, tc.err)
		}
	}
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Rate
		err  string
	}{
		{"400Gbps", 400e9, ""},
		{"31.52Gbps", 31.52e9, ""},
		{"100Mbps", 100e6, ""},
		{"0", 0, ""},
		{"400", 0, "needs a unit"},
		{"400GBps", 0, `unknown unit "GBps"`},
		{"-1Gbps", 0, "negative rate"},
	} {
		got, err := ParseRate(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseRate(%q) error = %v; want %q", tc.in, err, tc.err)
		}
	}
}

func TestParseScalars(t *testing.T) {
	if v, err := ParseUint("16"); err != nil || v != 16 {
		t.Errorf("ParseUint(16) = %d, %v", v, err)
	}
	for _, bad := range []string{"-1", "1.5", "x", ""} {
		if _, err := ParseUint(bad); err == nil {
			t.Errorf("ParseUint(%q) accepted", bad)
		}
	}
	if v, err := ParseInt("-1"); err != nil || v != -1 {
		t.Errorf("ParseInt(-1) = %d, %v", v, err)
	}
	if _, err := ParseInt("1.5"); err == nil {
		t.Error("ParseInt(1.5) accepted")
	}
	if v, err := ParseDouble("0.25"); err != nil || v != 0.25 {
		t.Errorf("ParseDouble = %v, %v", v, err)
	}
	for _, bad := range []string{"inf", "NaN", "1e999", "0.5x"} {
		if _, err := ParseDouble(bad); err == nil {
			t.Errorf("ParseDouble(%q) accepted", bad)
		}
	}
	for in, want := range map[string]bool{"true": true, "false": false, "True": true} {
		if v, err := ParseBool(in); err != nil || v != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, v, err)
		}
	}
	for _, bad := range []string{"yes", "1", "on"} {
		if _, err := ParseBool(bad); err == nil {
			t.Errorf("ParseBool(%q) accepted", bad)
		}
	}
}

func TestParseVec8(t *testing.T) {
	want := Vec8{0.9, 0.1}
	for _, in := range []string{"[0.9, 0.1, 0, 0, 0, 0, 0, 0]", "0.9, 0.1, 0, 0, 0, 0, 0, 0", "[0.9,0.1,0,0,0,0,0,0]"} {
		e, err := SplitList(in)
		if err != nil {
			t.Fatalf("SplitList(%q): %v", in, err)
		}
		v, err := ParseVec8(e, false)
		if err != nil || v != want {
			t.Errorf("ParseVec8(%q) = %v, %v", in, v, err)
		}
	}
	for _, tc := range []struct {
		in    string
		whole bool
		err   string
	}{
		{"[0.9, 0.1, 0, 0, 0, 0, 0]", false, "7 entries"},
		{"[0.9, 0.1, 0, 0, 0, 0, 0, 0, 0]", false, "9 entries"},
		{"[]", false, "0 entries"},
		{"[0.9, 0.1, 0, 0, 0, 0, 0", false, "unbalanced"},
		{"[1, 1, 0, 0, 0, 0, 0, 0.5]", true, "entry 7 \"0.5\" is not a whole number"},
		{"[1, x, 0, 0, 0, 0, 0, 0]", false, "entry 1 \"x\" is not a number"},
		{"[1, 1 2, 0, 0, 0, 0, 0, 0]", false, "character ' '"},
		{"[1, , 0, 0, 0, 0, 0, 0]", false, "entry 1 is empty"},
	} {
		e, err := SplitList(tc.in)
		if err == nil {
			_, err = ParseVec8(e, tc.whole)
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{FormatBytes(256_000_000), "256MB"},
		{FormatBytes(256_000), "256KB"},
		{FormatBytes(1 << 20), "1MiB"},
		{FormatBytes(4096), "4096B"},
		{FormatBytes(4184), "4184B"},
		{FormatRate(400e9), "400Gbps"},
		{FormatRate(31.52e9), "31.52Gbps"},
		{FormatRate(100e6), "100Mbps"},
		{FormatTime(500 * sim.Nanosecond), "500ns"},
		{FormatTime(100 * sim.Microsecond), "100us"},
		{FormatTime(64 * sim.Millisecond), "64ms"},
		{FormatTime(0), "0s"},
		{FormatVec8(Vec8{0.9, 0.1}), "[0.9, 0.1, 0, 0, 0, 0, 0, 0]"},
		{FormatVec8(Vec8{65535, 65535}), "[65535, 65535, 0, 0, 0, 0, 0, 0]"},
		{Commas(256_000_000), "256,000,000"},
		{Commas(-1234), "-1,234"},
		{Commas(999), "999"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// The fuzz targets check that the parsers never panic, that whatever they accept is in
// range, and that formatting an accepted value parses back to the same value.

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"700KB", "1MiB", "4184", "2.5MB", "-1KB", "700XB", "1e3KB", "0.5KiB", "4.294967295GB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := ParseBytes(s)
		if err != nil {
			return
		}
		if b < 0 {
			t.Fatalf("ParseBytes(%q) = %d < 0", s, b)
		}
		back, err := ParseBytes(FormatBytes(b))
		if err != nil || back != b {
			t.Fatalf("round trip %q → %d → %q → %d, %v", s, b, FormatBytes(b), back, err)
		}
	})
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"500ns", "1ms", "0.001", "0.5ps", "-1us", "2.5us", "0", "1e-3s"} {
		f.Add(s, false)
	}
	f.Add("0.001", true)
	f.Fuzz(func(t *testing.T, s string, bare bool) {
		v, err := ParseTime(s, bare)
		if err != nil {
			return
		}
		if v < 0 {
			t.Fatalf("ParseTime(%q) = %d < 0", s, v)
		}
		back, err := ParseTime(FormatTime(v), false)
		if err != nil || back != v {
			t.Fatalf("round trip %q → %d → %q → %d, %v", s, v, FormatTime(v), back, err)
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"400Gbps", "31.52Gbps", "100Mbps", "0", "400", "-1Gbps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if r < 0 || math.IsNaN(float64(r)) || math.IsInf(float64(r), 0) {
			t.Fatalf("ParseRate(%q) = %v", s, r)
		}
		back, err := ParseRate(FormatRate(r))
		if err != nil || math.Abs(float64(back-r)) > 1e-12*float64(r) {
			t.Fatalf("round trip %q → %v → %q → %v, %v", s, r, FormatRate(r), back, err)
		}
	})
}

func FuzzParseList(f *testing.F) {
	for _, s := range []string{"[0.9, 0.1, 0, 0, 0, 0, 0, 0]", "0.9, 0.1, 0, 0, 0, 0, 0, 0", "[1,1,0,0,0,0,0,0]", "[0.9, 0.1, 0, 0, 0, 0, 0]", "[", "[a,b,c,d,e,f,g,h]"} {
		f.Add(s, false)
	}
	f.Add("[65535, 65535, 0, 0, 0, 0, 0, 0]", true)
	f.Fuzz(func(t *testing.T, s string, whole bool) {
		e, err := SplitList(s)
		if err != nil {
			return
		}
		v, err := ParseVec8(e, whole)
		if err != nil {
			return
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) || (whole && x != math.Trunc(x)) {
				t.Fatalf("%q: entry %d = %v accepted", s, i, x)
			}
		}
		e2, _ := SplitList(FormatVec8(v))
		back, err := ParseVec8(e2, whole)
		if err != nil || back != v {
			t.Fatalf("round trip %q → %v → %q → %v, %v", s, v, FormatVec8(v), back, err)
		}
	})
}
