// Package export writes the tables of a results directory as CSV files next to the
// Parquet or Arrow IPC parts (DIR/csv/<table>.csv), for readers that have no Parquet
// engine: pandas on a machine with Debian's packages only reads them with pd.read_csv,
// and DuckDB reads no Arrow IPC file without an extension. Values are written
// exactly (integers in full, floats in the shortest form that reads back to the same
// value), a null cell is an empty field, and each file appears only when complete.
package export

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// Subdir is the folder of DIR that holds the CSV files.
const Subdir = resultsdir.CSVDir

// ErrNoParts is returned (wrapped) for a table folder with no committed parts:
// there is nothing to export and no schema to write a header from.
var ErrNoParts = resultsdir.ErrNoParts

// CSV writes every committed part of DIR/<table>/ (resultsdir.Parts: the files the
// journals' commits name, all shards, in name order; strays and files of a running sweep
// not yet committed are skipped) as one CSV file, DIR/csv/<table>.csv, with a header row of
// the column names. It returns the file's path and its number of data rows. Parts whose
// columns differ are refused, naming both files.
func CSV(dir, table string) (path string, rows int, err error) {
	return CSVTo(dir, filepath.Join(dir, Subdir), table)
}

// CSVTo is CSV writing outDir/<table>.csv instead (export -o: a reader's own directory).
func CSVTo(dir, outDir, table string) (path string, rows int, err error) {
	parts, err := resultsdir.CommittedParts(dir, table)
	if err != nil {
		return "", 0, err
	}
	// Nothing is written through a link (docs/results.md §9): not into a csv folder that
	// is one, nor over a CSV file that is one.
	path = filepath.Join(outDir, table+".csv")
	for _, p := range []string{dir, outDir, path} {
		if err := dirfs.CheckNotLink(p); err != nil {
			return "", 0, err
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", 0, err
	}
	if err := dirfs.CheckNotLink(outDir); err != nil {
		return "", 0, err
	}
	tmp, err := os.CreateTemp(outDir, "."+table+".csv.tmp-*")
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o644); err != nil {
		return "", 0, err
	}
	w := csv.NewWriter(tmp)
	var header []string
	first := ""
	for _, p := range parts {
		n, err := writeAnyPart(w, p, &header, &first)
		if err != nil {
			return "", 0, err
		}
		rows += n
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return "", 0, err
	}
	if err := tmp.Close(); err != nil {
		return "", 0, err
	}
	if err := dirfs.CheckNotLink(path); err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", 0, err
	}
	return path, rows, nil
}

// writeAnyPart appends the rows of a committed part file, Parquet or Arrow IPC by its
// extension, to w, after checking its size and checksum (resultsdir.CheckPart). A file whose
// bytes do not match or do not decode is a *resultsdir.DamagedPartError naming it, never a
// panic.
func writeAnyPart(w *csv.Writer, part resultsdir.Part, header *[]string, first *string) (rows int, err error) {
	if err := resultsdir.CheckPart(part); err != nil {
		return 0, err
	}
	path := part.Path
	write := writePart
	if resultsdir.IsArrow(path) {
		write = writeArrowPart
	}
	err = resultsdir.GuardPart(path, func() (err error) {
		rows, err = write(w, path, header, first)
		return err
	})
	return rows, err
}

// writePart appends the rows of one Parquet file to w (an Arrow IPC file:
// writeArrowPart); the first file's columns are the header, and every later file must
// have the same.
func writePart(w *csv.Writer, path string, header *[]string, first *string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return 0, resultsdir.Damaged(path, err)
	}
	var names []string
	for _, l := range pf.Schema().Columns() {
		names = append(names, strings.Join(l, "."))
	}
	if *header == nil {
		*header, *first = names, path
		if err := w.Write(names); err != nil {
			return 0, err
		}
	} else if strings.Join(names, ",") != strings.Join(*header, ",") {
		return 0, fmt.Errorf("%s and %s: different columns (%s, then %s)", *first, path, strings.Join(*header, ","), strings.Join(names, ","))
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	buf := make([]parquet.Row, 256)
	rec := make([]string, len(names))
	rows := 0
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			for i := range rec {
				rec[i] = ""
			}
			for _, v := range row {
				if c := v.Column(); c >= 0 && c < len(rec) {
					rec[c] = text(v)
				}
			}
			if err := w.Write(rec); err != nil {
				return 0, err
			}
			rows++
		}
		if errors.Is(err, io.EOF) {
			return rows, nil
		}
		if err != nil {
			return 0, resultsdir.Damaged(path, err)
		}
	}
}

// text formats one cell as pandas' read_csv reads it back: integers in full, floats in
// the shortest exact form ("nan", "inf", "-inf" for the special values), booleans as
// true/false, a null as the empty field.
func text(v parquet.Value) string {
	if v.IsNull() {
		return ""
	}
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Float:
		return float(float64(v.Float()), 32)
	case parquet.Double:
		return float(v.Double(), 64)
	}
	return cell(string(v.ByteArray()))
}

// cell is a text cell as the CSV file holds it: as it is, unless a spreadsheet would
// evaluate it as a formula (its first character is =, +, -, @, a tab or a carriage
// return: a job's error text, a name from a spec). Such a cell gets a leading ', as
// OWASP's "CSV Injection" page recommends, so that Excel, LibreOffice and Google
// Sheets show it as text (docs/results.md §1). Numbers are never text cells: a negative
// number stays a number.
func cell(s string) string {
	if s != "" && strings.ContainsRune(formulaStart, rune(s[0])) {
		return "'" + s
	}
	return s
}

// formulaStart are the first characters that make a spreadsheet read a cell as a formula.
const formulaStart = "=+-@\t\r"

func float(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, bits)
}
