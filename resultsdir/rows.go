package resultsdir

import (
	"errors"
	"fmt"
	"os"

	"github.com/parquet-go/parquet-go"
)

// TableRows is one table of a results directory as its committed files hold it:
// what a reader of exactly those files (`status` lists them; reliability.md "Reliability")
// gets, and what a glob over the table folder gets on a complete, verified directory.
type TableRows struct {
	Table string `json:"table"`
	Files int    `json:"files"`
	Rows  int64  `json:"rows"`
}

// CountRows counts the rows of every table of dir in the files that its commits name
// (Parts), jobs first, then the record tables in results-directory order; a table
// without files is left out. A Parquet file's count is read from its footer, an Arrow
// IPC file's from its record batches. An error names the file that does not open.
func CountRows(dir string) ([]TableRows, error) {
	var out []TableRows
	for _, table := range append([]string{JobsTable}, Tables...) {
		parts, err := CommittedParts(dir, table)
		if errors.Is(err, ErrNoParts) {
			continue
		}
		if err != nil {
			return nil, err
		}
		tr := TableRows{Table: table, Files: len(parts)}
		for _, p := range parts {
			// As every reader: the part's checksum first, then a decoder whose panic on
			// damaged bytes is a *DamagedPartError naming it.
			if err := CheckPart(p); err != nil {
				return nil, err
			}
			var n int64
			err := GuardPart(p.Path, func() (err error) {
				n, err = partRows(p.Path)
				return err
			})
			if err != nil {
				return nil, err
			}
			tr.Rows += n
		}
		out = append(out, tr)
	}
	return out, nil
}

// partRows is the number of rows of one part file.
func partRows(path string) (int64, error) {
	if IsArrow(path) {
		p, err := OpenArrow(path)
		if err != nil {
			return 0, err
		}
		defer p.Close()
		var n int64
		for i := 0; i < p.r.NumRecords(); i++ {
			rec, err := p.r.RecordAt(i)
			if err != nil {
				return 0, fmt.Errorf("%s: record batch %d: %w", path, i, err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		return n, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, Damaged(path, err)
	}
	return pf.NumRows(), nil
}
