package journal

import (
	"regexp"
	"strconv"
)

// partRE matches the names the sink gives part files: part-SHARD-NNNNNN.EXT and the
// temp .part-SHARD-NNNNNN.EXT.tmp.
var partRE = regexp.MustCompile(`^(\.)?part-([0-9]+of[0-9]+)-([0-9]+)\.(parquet|arrow)(\.tmp)?$`)

// MaxCommit is the largest commit number of a shard: a part name or a journal line with
// a number outside 1..MaxCommit is not the sink's (a stray
// "part-1of1-9223372036854775806.parquet" would make the next commit number overflow).
// At a commit every second, a shard would take 31 years to reach it.
const MaxCommit = 999_999_999

// commitNumber reads the NNNNNN of a part name or a journal line: 1..MaxCommit.
func commitNumber(digits string) (int, bool) {
	if len(digits) > 10 {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	return n, err == nil && n >= 1 && n <= MaxCommit
}

// ParsePartName reads a file name of a table folder as the sink makes them:
// "part-2of3-000004.parquet" is commit 4 of shard "2of3"; temp is true for the hidden
// temp name ".part-2of3-000004.parquet.tmp". ok is false for any other name.
func ParsePartName(name string) (shard string, commit int, temp, ok bool) {
	m := partRE.FindStringSubmatch(name)
	if m == nil || (m[1] == "") != (m[5] == "") {
		return "", 0, false, false
	}
	n, ok := commitNumber(m[3])
	if !ok {
		return "", 0, false, false
	}
	return m[2], n, m[1] == ".", true
}

// MatchPartName is ParsePartName for the sink's recovery, which removes the debris of
// its own shard: ok is true for any name of the form [.]part-SHARD-NNNNNN.EXT[.tmp] with
// a commit number in 1..MaxCommit (a leading dot without the .tmp, or the reverse,
// included: debris of the sink's names); committed is true for the committed form
// alone, without the dot and the .tmp.
func MatchPartName(name string) (shard string, commit int, committed, ok bool) {
	m := partRE.FindStringSubmatch(name)
	if m == nil {
		return "", 0, false, false
	}
	n, ok := commitNumber(m[3])
	if !ok {
		return "", 0, false, false
	}
	return m[2], n, m[1] == "" && m[5] == "", true
}
