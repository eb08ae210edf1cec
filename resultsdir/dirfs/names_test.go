package dirfs

import (
	"strconv"
	"testing"
)

// ParseJournalName reads back every name JournalName makes, and nothing else.
func TestParseJournalName(t *testing.T) {
	for _, shard := range []struct{ k, n int }{{1, 1}, {1, 3}, {3, 3}, {12, 40}} {
		tag := "1of1"
		if shard.n > 1 {
			tag = strconv.Itoa(shard.k) + "of" + strconv.Itoa(shard.n)
		}
		k, n, ok := ParseJournalName(JournalName(tag))
		if !ok || k != shard.k || n != shard.n {
			t.Errorf("ParseJournalName(%q) = %d, %d, %v; want %d, %d", JournalName(tag), k, n, ok, shard.k, shard.n)
		}
	}
	for _, name := range []string{"journal-0of3.jsonl", "journal-4of3.jsonl", "journal-1of3.jsonl.tmp",
		"manifest.json", "journal-aof3.jsonl", "xjournal.jsonl", "journal-1of.jsonl"} {
		if k, n, ok := ParseJournalName(name); ok {
			t.Errorf("ParseJournalName(%q) = %d, %d, true; want not a journal", name, k, n)
		}
	}
}
