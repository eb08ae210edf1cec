package constraint

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// testEnv resolves the names the tests below use; an unknown name is an error, as a
// sweep's env reports a misspelt attribute.
func testEnv(name string) (any, error) {
	v, ok := map[string]any{
		"switch.LossyAlpha":              0.5,
		"switch.StaticPoolXoffThreshold": int64(300_000),
		"switch.StaticPoolXonThreshold":  int64(200_000),
		"topology.hosts":                 int64(8),
		"topology.kind":                  "star",
		"nic.rate":                       int64(400_000_000_000),
		"pfc":                            true,
		"drops_lossless":                 int64(0),
	}[name]
	if !ok {
		return nil, fmt.Errorf("unknown name %s", name)
	}
	return v, nil
}

// Each expression of the language evaluates to the value its operators' precedence and
// units give: || looser than &&, && looser than !, comparisons looser than + and -,
// those looser than * and /, unary - tightest; literals with units in base units (B,
// bit/s, s); int64 attributes compared as numbers.
func TestEval(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		// The design's examples.
		{"switch.StaticPoolXonThreshold < switch.StaticPoolXoffThreshold", true},
		{"switch.LossyAlpha * 2 <= 4 && topology.hosts >= 8", true},
		{"switch.StaticPoolXoffThreshold >= 300KB || switch.LossyAlpha == 0", true},
		// Units: 300KB is 300,000 bytes, 300KiB 307,200.
		{"switch.StaticPoolXoffThreshold == 300KB", true},
		{"switch.StaticPoolXoffThreshold < 300KiB", true},
		{"nic.rate == 400Gbps", true},
		{"nic.rate > 399999Mbps", true},
		{"2us == 2000ns", true},
		{"1ms == 1000us", true},
		{"4KB / 2 == 2000", true},
		{"1e-3 == 1ms", true},
		{"1.5e3 == 1500", true},
		// Precedence: * before +, + before comparison, && before ||.
		{"1 + 2 * 3 == 7", true},
		{"(1 + 2) * 3 == 9", true},
		{"8 - 2 - 1 == 5", true}, // left-associative
		{"8 / 4 / 2 == 1", true}, // left-associative
		{"-2 * -3 == 6", true},
		{"--2 == 2", true},
		{"true || false && false", true}, // && binds tighter: true || (false && false)
		{"(true || false) && false", false},
		{"!false && false", false}, // ! binds tighter than &&
		{"!(1 > 2)", true},
		{"!!pfc", true},
		// Words for the logical operators.
		{"pfc and topology.hosts == 8", true},
		{"not pfc or topology.hosts == 8", true},
		{"not pfc", false},
		// Strings compare as strings, with either quote.
		{`topology.kind == "star"`, true},
		{`topology.kind != 'fat-tree'`, true},
		{`topology.kind < "tree"`, true},
		{`"b" >= "a"`, true},
		// == between different types is false, not an error.
		{`topology.hosts == "8"`, false},
		{"pfc != 1", true},
	} {
		c, err := Parse(tc.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.text, err)
			continue
		}
		got, err := c.Eval(testEnv)
		if err != nil || got != tc.want {
			t.Errorf("%q = %v, %v; want %v", tc.text, got, err, tc.want)
		}
	}
}

// && and || evaluate their right side only when the left does not decide: a constraint
// may guard a name that only some points have.
func TestShortCircuit(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"false && missing > 1", false},
		{"true || missing > 1", true},
		{"pfc || 1 / 0 > 1", true},
	} {
		c, err := Parse(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Eval(testEnv)
		if err != nil || got != tc.want {
			t.Errorf("%q = %v, %v; want %v without evaluating the right side", tc.text, got, err, tc.want)
		}
	}
	// Without the short circuit the right side is read, and its error returned.
	c, _ := Parse("true && missing > 1")
	if _, err := c.Eval(testEnv); err == nil || !strings.Contains(err.Error(), "unknown name missing") {
		t.Errorf("true && missing > 1: err %v; want the env's error for missing", err)
	}
}

// An expression that parses but cannot be evaluated says which operator met which value.
func TestEvalErrors(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"topology.hosts", `"topology.hosts" is 8, not true or false`},
		{"1 + 2", `"1 + 2" is 3, not true or false`},
		{`topology.kind > 3`, "star > 3: want numbers"},
		{`"a" + "b" == "ab"`, "a + b: want numbers"},
		{"pfc + 1 > 0", "true + 1: want numbers"},
		{"-pfc", "- applied to true"},
		{"!topology.hosts", "! applied to 8"},
		{"topology.hosts && pfc", "&& applied to 8"},
		{"pfc && topology.hosts", "&& applied to 8"},
		{"false || topology.hosts", "|| applied to 8"},
		{"topology.hosts / 0 > 1", "8 / 0: division by zero"},
		{"topology.hosts / (1 - 1) > 1", "8 / 0: division by zero"},
		{"typo.hosts > 1", "unknown name typo.hosts"},
	} {
		c, err := Parse(tc.text)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.text, err)
			continue
		}
		got, err := c.Eval(testEnv)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q = %v, %v; want an error containing %q", tc.text, got, err, tc.want)
		}
	}
}

// An env's error reaches the caller unchanged, so that errors.Is sees it.
func TestEnvErrorKeepsItsChain(t *testing.T) {
	sentinel := errors.New("sentinel")
	c, err := Parse("x > 1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Eval(func(string) (any, error) { return nil, sentinel }); !errors.Is(err, sentinel) {
		t.Errorf("err %v; want the env's error", err)
	}
}

// Parse errors name the column (1-based) of the problem and quote the expression.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text, want string
	}{
		{"", `column 1 of "": expression ends early`},
		{"a >", `column 4 of "a >": expression ends early`},
		{"(a > 1", `column 7 of "(a > 1": want )`},
		{"a > 1)", `unexpected ")" at column 6 of "a > 1)"`},
		{"a > 1 b", `unexpected "b" at column 7 of "a > 1 b"`},
		{`a == "open`, `column 6 of "a == \"open": unterminated string`},
		{"a > 3XB", `column 5 of "a > 3XB": "3XB" is not a number with a known unit`},
		{"a > * 2", `column 5 of "a > * 2": unexpected "*"`},
		{"a > 1 > 2", `unexpected ">" at column 7`}, // comparisons do not chain
	} {
		_, err := Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v; want an error containing %q", tc.text, err, tc.want)
		}
	}
}

// The limits keep the recursive parser and evaluator off the end of the stack: an
// expression longer than MaxLen, or nested deeper than MaxDepth, is refused; one at the
// limits parses and evaluates.
func TestLimits(t *testing.T) {
	long := "a > " + strings.Repeat(" ", MaxLen-5) + "1"
	if len(long) != MaxLen {
		t.Fatalf("test: len %d", len(long))
	}
	if _, err := Parse(long); err != nil {
		t.Errorf("an expression of MaxLen bytes: %v", err)
	}
	if _, err := Parse(long + " "); err == nil || !strings.Contains(err.Error(), "10,001 bytes long; at most 10,000") {
		t.Errorf("an expression of MaxLen+1 bytes: %v", err)
	}
	for _, tc := range []struct {
		open, close string
	}{
		{"(", ")"},
		{"!", ""},
		{"-", ""},
	} {
		at := func(depth int) string {
			inner := "true"
			if tc.open == "-" {
				inner = "1"
			}
			return strings.Repeat(tc.open, depth) + inner + strings.Repeat(tc.close, depth)
		}
		if _, err := Parse(at(MaxDepth)); err != nil {
			t.Errorf("%s nested %d deep: %v", tc.open, MaxDepth, err)
		}
		if _, err := Parse(at(MaxDepth + 1)); err == nil || !strings.Contains(err.Error(), "nested more than 100 levels deep") {
			t.Errorf("%s nested %d deep: %v; want refused", tc.open, MaxDepth+1, err)
		}
	}
	// Depth is nesting, not count: many siblings at depth 1 are fine.
	wide := strings.TrimSuffix(strings.Repeat("(true) && ", 2*MaxDepth), " && ")
	if c, err := Parse(wide); err != nil {
		t.Errorf("%d parenthesised siblings: %v", 2*MaxDepth, err)
	} else if ok, err := c.Eval(testEnv); !ok || err != nil {
		t.Errorf("%d parenthesised siblings = %v, %v", 2*MaxDepth, ok, err)
	}
}

// Refs lists the names an expression reads, in order, repeats included, and no literal
// or keyword.
func TestRefs(t *testing.T) {
	c, err := Parse(`!(a.b < 3KB) && c * -a.b > 1us || d == "e" or true`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Refs(), []string{"a.b", "c", "a.b", "d"}; !slices.Equal(got, want) {
		t.Errorf("Refs = %q; want %q", got, want)
	}
}

// ParseNumber converts each unit family to its base unit.
func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"700KB", 700_000},
		{"1KiB", 1024},
		{"2MiB", 2 << 20},
		{"400Gbps", 400e9},
		{"500ns", 500e-9},
		{"1.5", 1.5},
		{"2e3", 2000},
	} {
		got, err := ParseNumber(tc.in)
		if err != nil || math.Abs(got-tc.want) > 1e-12*math.Abs(tc.want) {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	if _, err := ParseNumber("3 furlongs"); err == nil {
		t.Error(`ParseNumber("3 furlongs"): no error`)
	}
}

// Sense names the comparison at the top, and Holds for anything else.
func TestSense(t *testing.T) {
	for _, tc := range []struct {
		text string
		want Sense
	}{
		{"a <= 1", LE}, {"a < 1", LT}, {"a >= 1", GE}, {"a > 1", GT}, {"a == 1", EQ}, {"a != 1", NE},
		{"a > 1 && b > 1", Holds}, {"!(a > 1)", Holds}, {"(a > 1)", GT},
	} {
		c, err := Parse(tc.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Sense(); got != tc.want {
			t.Errorf("%q: Sense %v; want %v", tc.text, got, tc.want)
		}
	}
	if got := fmt.Sprint(LE, Holds, NE); got != "<= holds !=" {
		t.Errorf("Sense strings %q", got)
	}
}
