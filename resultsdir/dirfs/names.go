package dirfs

import (
	"regexp"
	"strconv"
)

// JournalName is the journal file of a shard: "journal.jsonl" for "1of1", else
// "journal-KofN.jsonl".
func JournalName(shard string) string {
	if shard == "" || shard == "1of1" {
		return "journal.jsonl"
	}
	return "journal-" + shard + ".jsonl"
}

// journalRE matches the file names JournalName makes.
var journalRE = regexp.MustCompile(`^journal(?:-([0-9]+)of([0-9]+))?\.jsonl$`)

// ParseJournalName is the inverse of JournalName for a file name without directory:
// "journal-2of3.jsonl" is shard 2 of 3, "journal.jsonl" shard 1 of 1. ok is false for
// any other name, and for a shard outside 1 <= k <= n.
func ParseJournalName(name string) (k, n int, ok bool) {
	m := journalRE.FindStringSubmatch(name)
	if m == nil {
		return 0, 0, false
	}
	if m[1] == "" {
		return 1, 1, true
	}
	k, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || k < 1 || k > n {
		return 0, 0, false
	}
	return k, n, true
}
