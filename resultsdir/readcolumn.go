package resultsdir

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
)

// ReadColumn calls f with each value of a column chunk, in row order (flat columns: one
// value a row, a null one for a missing cell). A value's bytes are valid only during f.
// Readers go column by column, page by page: parquet-go's row reader decodes every page
// header again for each batch of rows it assembles, several times the cost
// (BenchmarkReadTable).
func ReadColumn(chunk parquet.ColumnChunk, f func(parquet.Value)) error {
	pages := chunk.Pages()
	defer pages.Close()
	buf := make([]parquet.Value, 512)
	for {
		p, err := pages.ReadPage()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		vr := p.Values()
		for {
			n, err := vr.ReadValues(buf)
			for _, v := range buf[:n] {
				f(v)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				parquet.Release(p)
				return err
			}
		}
		parquet.Release(p)
	}
}

// readStructs appends the rows of one Parquet file to rows, column by column into the
// fields of T (a flat struct of strings, bools, ints and floats, or pointers to them for
// optional columns) whose parquet tag names a column of the file; other fields stay
// zero, as do null cells.
func readStructs[T any](pf *parquet.File, rows []T) ([]T, error) {
	type field struct {
		index  int // in T
		column int // in the file
	}
	rt := reflect.TypeFor[T]()
	columns := map[string]int{}
	for i, path := range pf.Schema().Columns() {
		columns[strings.Join(path, ".")] = i
	}
	var fields []field
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if name == "" {
			name = f.Name
		}
		c, ok := columns[name]
		if name == "-" || !ok {
			continue
		}
		if t := f.Type; !flat(t) && (t.Kind() != reflect.Pointer || !flat(t.Elem())) {
			return nil, fmt.Errorf("field %s of %s: a %s, not a flat column", f.Name, rt, f.Type)
		}
		fields = append(fields, field{i, c})
	}
	for _, rg := range pf.RowGroups() {
		base, n := len(rows), int(rg.NumRows())
		rows = append(rows, make([]T, n)...)
		chunks := rg.ColumnChunks()
		for _, f := range fields {
			r := 0
			err := ReadColumn(chunks[f.column], func(v parquet.Value) {
				if r < n && !v.IsNull() {
					setField(reflect.ValueOf(&rows[base+r]).Elem().Field(f.index), v)
				}
				r++
			})
			if err == nil && r != n {
				err = fmt.Errorf("column %d has %d values in a row group of %d rows", f.column, r, n)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return rows, nil
}

// flat reports whether a field of type t holds one column's value (a pointer to one is
// an optional column: nil for a null cell).
func flat(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int32, reflect.Int64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func setField(f reflect.Value, v parquet.Value) {
	if f.Kind() == reflect.Pointer {
		f.Set(reflect.New(f.Type().Elem()))
		f = f.Elem()
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(string(v.ByteArray()))
	case reflect.Bool:
		f.SetBool(v.Boolean())
	case reflect.Int, reflect.Int32, reflect.Int64:
		if v.Kind() == parquet.Int32 {
			f.SetInt(int64(v.Int32()))
		} else {
			f.SetInt(v.Int64())
		}
	case reflect.Float32, reflect.Float64:
		if v.Kind() == parquet.Float {
			f.SetFloat(float64(v.Float()))
		} else {
			f.SetFloat(v.Double())
		}
	}
}
