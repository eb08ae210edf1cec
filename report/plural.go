package report

import (
	"fmt"
	"strings"
)

// Plural writes n and word, with an s (es after ch, sh, s, x) unless n is 1:
// "1 replicate", "3 shards", "2 switches".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	for _, end := range []string{"ch", "sh", "s", "x"} {
		if strings.HasSuffix(word, end) {
			return fmt.Sprintf("%d %ses", n, word)
		}
	}
	return fmt.Sprintf("%d %ss", n, word)
}
