package sink

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/results/dirfs"
)

// partRE matches this package's file names: part-SHARD-NNNNNN.EXT and the temp
// .part-SHARD-NNNNNN.EXT.tmp.
var partRE = regexp.MustCompile(`^(\.)?part-([0-9]+of[0-9]+)-([0-9]+)\.(parquet|arrow)(\.tmp)?$`)

// Files lists the committed data files of table in dir (all shards), sorted: the files
// of that table folder that a complete, not withdrawn commit of one of dir's journals
// names, of the commits whose every file is there with its recorded size
// (ReadCommitted). A file no commit names is not listed, whatever its name. A missing dir
// is an error; a table without rows has no files.
func Files(dir, table string) ([]string, error) {
	parts, err := Parts(dir, table)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Path
	}
	return out, nil
}

// Parts is Files with what the journal records of each file, for CheckPart.
func Parts(dir, table string) ([]Part, error) {
	committed, err := ReadCommitted(dir)
	if err != nil {
		return nil, err
	}
	var out []Part
	for f, p := range committed.Parts {
		if t, _, _ := strings.Cut(f, "/"); t == table {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Part) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}

// MaxCommit is the largest commit number of a shard: a part name or a journal line with
// a number outside 1..MaxCommit is not the sink's (a stray
// "part-1of1-9223372036854775806.parquet" once made the next commit number overflow).
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

// ReadJournal returns the jobs of the complete commits of a journal file.
func ReadJournal(fsys dirfs.FS, path string) (map[string]string, error) {
	if fsys == nil {
		fsys = dirfs.OS{}
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseJournal(data, parseOpts{shard: journalShard(path)}).done(), nil
}

// ReadRows reads every committed Parquet file of table in dir into rows of type T
// (columns matched by parquet tag). Tests and tools use it to check what a sweep wrote;
// an error names the file that does not open.
func ReadRows[T any](dir, table string) ([]T, error) {
	parts, err := Parts(dir, table)
	if err != nil {
		return nil, err
	}
	var all []T
	for _, p := range parts {
		name := p.Path
		if err := CheckPart(p); err != nil {
			return nil, err
		}
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		err = GuardPart(name, func() error {
			pf, err := parquet.OpenFile(f, st.Size())
			if err == nil {
				all, err = readStructs(pf, all)
			}
			return Damaged(name, err)
		})
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return all, nil
}
