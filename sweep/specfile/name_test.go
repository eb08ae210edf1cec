package specfile

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestValidNameMatchesRule: validName accepts exactly what the documented rule
// ^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$ accepts, on edge cases and random strings.
func TestValidNameMatchesRule(t *testing.T) {
	rule := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$`)
	names := []string{"", "a", "_", ".", "-", "a.", "a-b_c.d", ".hidden", "-x", "a b", "a/b", "é", "aé",
		"alpha-xoff_v2", strings.Repeat("a", 100), strings.Repeat("a", 101), "a\n", "a\x00", "Z9"}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "aZ09_.-/ é\n"
	for i := 0; i < 5000; i++ {
		var b strings.Builder
		for n := r.IntN(8); n > 0; n-- {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		names = append(names, b.String())
	}
	for _, n := range names {
		if got, want := validName(n), rule.MatchString(n); got != want {
			t.Errorf("validName(%q) = %v, the rule says %v", n, got, want)
		}
	}
}
