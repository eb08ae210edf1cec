package resultsdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
)

// Parts lists the committed part files of DIR/<table>/ (every shard, in name order), in
// either format a sweep writes (run --format: part-*.parquet or part-*.arrow, the Arrow
// IPC file format of sink/arrow.go): the files that complete, not withdrawn commits of
// DIR's journals name. A file in the folder that no commit names is not
// read, whatever its name. With none it returns an error wrapping ErrNoParts and
// fs.ErrNotExist. The readers (ReadTable, PartCache, export) pick each file's reader by
// its extension, so what they return does not depend on the format.
func Parts(dir, table string) ([]string, error) {
	parts, err := CommittedParts(dir, table)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Path
	}
	return out, nil
}

// CommittedParts is Parts with what the journals record of each file (Part): a
// reader checks each part's size and checksum (CheckPart) before it decodes it.
func CommittedParts(dir, table string) ([]Part, error) {
	files, err := committedParts(dir, table)
	if err != nil {
		return nil, fmt.Errorf("table %s: %w", table, err)
	}
	var parts []Part
	for _, p := range files {
		if IsArrow(p.Path) || filepath.Ext(p.Path) == ".parquet" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil, fmt.Errorf("table %s: %w in %s: %w", table, ErrNoParts, filepath.Join(dir, table), fs.ErrNotExist)
	}
	return parts, nil
}

// IsArrow reports whether the part file path is an Arrow IPC file (Arrow's
// extension), not Parquet.
func IsArrow(path string) bool { return filepath.Ext(path) == ".arrow" }

// ArrowPart is one Arrow IPC part file open for reading: its columns' names and types
// (named as Column.Type names the Parquet types: a reader sees the same table in either
// format) and its record batches.
type ArrowPart struct {
	Path  string
	Names []string
	Types []string
	f     *os.File
	r     *ipc.FileReader
}

// OpenArrow opens the Arrow IPC file path. Columns of a type sink/arrow.go does not
// write (anything but string, boolean, int32, int64, float32, float64) are refused,
// naming the file and the column.
func OpenArrow(path string) (*ArrowPart, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var r *ipc.FileReader
	err = GuardPart(path, func() (err error) {
		r, err = ipc.NewFileReader(f)
		return Damaged(path, err)
	})
	if err != nil {
		f.Close()
		return nil, err
	}
	p := &ArrowPart{Path: path, f: f, r: r}
	for _, fd := range r.Schema().Fields() {
		typ := arrowTypeName(fd.Type)
		if typ == "" {
			p.Close()
			return nil, fmt.Errorf("%s: column %s: type %s, want string, boolean, int32, int64, float or double", path, fd.Name, fd.Type)
		}
		p.Names = append(p.Names, fd.Name)
		p.Types = append(p.Types, typ)
	}
	return p, nil
}

// Close closes the file.
func (p *ArrowPart) Close() error {
	p.r.Close()
	return p.f.Close()
}

// Records calls fn with each record batch of the file in order; the batch is valid only
// during the call.
func (p *ArrowPart) Records(fn func(rec arrow.Record) error) error {
	for i := 0; i < p.r.NumRecords(); i++ {
		var rec arrow.Record
		err := GuardPart(p.Path, func() (err error) {
			rec, err = p.r.RecordAt(i)
			return err
		})
		if err != nil {
			return Damaged(p.Path, fmt.Errorf("record batch %d: %w", i, err))
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// arrowTypeName names an Arrow type as typeName names the Parquet physical type the
// Parquet writer uses for the same Go field; "" for a type the sink never writes.
func arrowTypeName(t arrow.DataType) string {
	switch t.ID() {
	case arrow.BOOL:
		return "boolean"
	case arrow.INT32:
		return "int32"
	case arrow.INT64:
		return "int64"
	case arrow.FLOAT32:
		return "float"
	case arrow.FLOAT64:
		return "double"
	case arrow.STRING:
		return "string"
	}
	return ""
}

// readArrowPart appends the rows of one Arrow IPC file to t, as readPart does for a
// Parquet file: the same columns, numbers as float64 (NaN for a null cell), strings as
// they are.
func readArrowPart(t *Table, path string, keep func(string) bool, first *string) error {
	p, err := OpenArrow(path)
	if err != nil {
		return err
	}
	defer p.Close()
	if *first == "" {
		*first = path
		for i := range p.Names {
			c := &Column{Name: p.Names[i], Type: p.Types[i]}
			if p.Types[i] == "string" {
				c.Str = []string{}
			} else {
				c.Num = []float64{}
			}
			t.Columns = append(t.Columns, c)
		}
	} else if err := sameColumns(t, p.Names, p.Types); err != nil {
		return fmt.Errorf("%s and %s: %w", *first, path, err)
	}
	idCol := -1
	for i, n := range p.Names {
		if n == "job_id" && p.Types[i] == "string" {
			idCol = i
		}
	}
	return p.Records(func(rec arrow.Record) error {
		var ids *array.String
		if idCol >= 0 {
			ids = rec.Column(idCol).(*array.String)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			if keep != nil && ids != nil && !keep(ids.Value(r)) {
				continue
			}
			for i, c := range t.Columns {
				a := rec.Column(i)
				null := a.IsNull(r)
				c.Null = append(c.Null, null)
				if c.Str != nil {
					s := ""
					if !null {
						s = a.(*array.String).Value(r)
					}
					c.Str = append(c.Str, s)
				} else {
					c.Num = append(c.Num, arrowNumber(a, r))
				}
			}
			t.Rows++
		}
		return nil
	})
}

// arrowNumber is cell r of a numeric or boolean column as number gives a Parquet value:
// NaN for a null, a boolean as 0 or 1.
func arrowNumber(a arrow.Array, r int) float64 {
	if a.IsNull(r) {
		return nan
	}
	switch a := a.(type) {
	case *array.Boolean:
		if a.Value(r) {
			return 1
		}
		return 0
	case *array.Int32:
		return float64(a.Value(r))
	case *array.Int64:
		return float64(a.Value(r))
	case *array.Float32:
		return float64(a.Value(r))
	case *array.Float64:
		return a.Value(r)
	}
	return nan
}
