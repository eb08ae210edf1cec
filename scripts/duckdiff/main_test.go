//go:build duckdb

package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// duckdiff reads the committed files with the documented query (docs/reliability.md
// "Reliability", the block after <!-- duckdb: committed-files -->, which the README copies
// and cmd/rocesweep's TestDuckDBReadsOnlyCommittedFiles runs against strays): the two
// must stay the same.
func TestDuckDBDiffQueryIsTheDocs(t *testing.T) {
	readme, err := os.ReadFile("../../docs/reliability.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- duckdb: committed-files -->\\s*```sql\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("docs/reliability.md has no committed-files query")
	}
	var lines []string
	for _, l := range strings.Split(string(m[1]), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "--") {
			lines = append(lines, l)
		}
	}
	readmeSet, _, _ := strings.Cut(strings.Join(lines, " "), ";")
	ours := strings.Join(strings.Fields(committedQuery), " ")
	if strings.Join(strings.Fields(readmeSet), " ")+";" != ours {
		t.Errorf("duckdiff's committed-files query is not docs/reliability.md's:\ndocs     %s;\nduckdiff %s", readmeSet, ours)
	}
}
