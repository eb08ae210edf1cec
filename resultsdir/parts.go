package resultsdir

import (
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// committedParts lists the committed part files of table in dir (all shards), sorted by
// name, with what the journal records of each: the files of that table folder that a
// complete, not withdrawn commit of one of dir's journals names, of the commits whose
// every file is there with its recorded size (ReadCommitted). A file no commit names is
// not listed, whatever its name. A missing dir is an error; a table without rows has no
// files (and no error: CommittedParts makes that ErrNoParts).
func committedParts(dir, table string) ([]Part, error) {
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

// Part is a committed part file as a reader reads it: where it is and what its commit's
// closing line records of it.
type Part struct {
	Path   string          // DIR/TABLE/part-SHARD-NNNNNN.EXT
	Sum    journal.FileSum // size and CRC-32C; CRC32C is "" in journals written before checksums
	Commit int
	sized  bool // Sum.Size is recorded (journals written before checksums record none)
}

// Committed is what the journals of a results directory commit, as a reader reads it.
type Committed struct {
	// Parts are the files of the complete, not withdrawn commits whose every file is
	// there, a regular file (not a link) of its recorded size; by name relative to the
	// directory, with /.
	Parts map[string]Part
	// Damaged are the files of the other complete commits: missing, a link, or of another
	// size than their journal records. Such a commit is left out whole (its files of
	// every table), so that no table a reader reads holds rows of a job its jobs table
	// does not list; its jobs count as missing and run --resume runs them again.
	Damaged []journal.FileProblem
}

// ReadCommitted reads the journals of dir (every journal*.jsonl: all shards) and checks
// that the files of their complete, not withdrawn commits are there with their recorded
// sizes (not their checksums: CheckPart does that as each part is read). These commits'
// files are what a reader reads: a file no commit names (a kill between rename and
// journal append, a file copied into a table folder) is not part of the results. It
// only reads, and reads a journal through a link (a reader writes nothing).
func ReadCommitted(dir string) (*Committed, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := &Committed{Parts: map[string]Part{}}
	for _, e := range entries {
		if _, _, ok := dirfs.ParseJournalName(e.Name()); !ok || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for _, c := range journal.Parse(data, journal.ParseOptions{Shard: journal.ShardOf(path)}).Commits {
			if probs := journal.CheckCommit(nil, dir, c, false); len(probs) > 0 {
				out.Damaged = append(out.Damaged, probs...)
				continue
			}
			for i, f := range c.Files {
				p := Part{Path: filepath.Join(dir, filepath.FromSlash(f)), Commit: c.N}
				if c.Sums != nil {
					p.Sum, p.sized = c.Sums[i], true
				}
				out.Parts[f] = p
			}
		}
	}
	slices.SortFunc(out.Damaged, func(a, b journal.FileProblem) int { return strings.Compare(a.File, b.File) })
	return out, nil
}

// CheckPart checks that the file p.Path is the one its commit wrote: a regular file of
// the recorded size and CRC-32C (read whole). A reader checks each part so before it
// decodes it, so that damaged bytes never reach a Parquet or Arrow decoder (some of whose
// allocations a damaged length can make unbounded). A part of a journal written before
// checksums is checked for its size, if recorded, only. The error is a
// *DamagedPartError naming the file.
func CheckPart(p Part) error {
	if !p.sized {
		return nil
	}
	f, err := os.Open(p.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, f)
	if err != nil {
		return err
	}
	switch sum := fmt.Sprintf("%08x", h.Sum32()); {
	case n != p.Sum.Size:
		return &DamagedPartError{Path: p.Path, Err: fmt.Errorf("size %d B, the journal says %d B", n, p.Sum.Size)}
	case p.Sum.CRC32C != "" && sum != p.Sum.CRC32C:
		return &DamagedPartError{Path: p.Path, Err: fmt.Errorf("checksum %s, the journal says %s", sum, p.Sum.CRC32C)}
	}
	return nil
}

// ReadRows reads every committed Parquet file of table in dir into rows of type T
// (columns matched by parquet tag). Tests and tools use it to check what a sweep wrote;
// an error names the file that does not open.
func ReadRows[T any](dir, table string) ([]T, error) {
	parts, err := committedParts(dir, table)
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

// Files lists the committed part files of table in dir (all shards), sorted: Parts, but
// a table without rows has none and no error. A missing dir is an error.
func Files(dir, table string) ([]string, error) {
	parts, err := committedParts(dir, table)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Path
	}
	return out, nil
}
