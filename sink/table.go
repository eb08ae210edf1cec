package sink

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"sync"

	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// parquetRows writes row slices of the table's type into one Parquet file.
type parquetRows interface {
	WriteRows(rows any) (int, error)
	// Size is the file's bytes so far: those written out and parquet-go's estimate of
	// the open row group (encoded pages and values not yet encoded).
	Size() int64
	Flush() error
	Close() error
}

// newParquet returns the Parquet writer of table t's rows into w: parquet-go's generic
// writer of the row type when the table has one (resultsdir.SchemaOf) and no NaN-null
// columns, else a reflective one.
func newParquet(t resultsdir.Schema, w io.Writer, opts []parquet.WriterOption) parquetRows {
	opts = append(opts, fileOptions(t)...)
	if nanNullFields(t.Type) != nil {
		return newNullRows(t.Type, parquet.NewWriter(w, opts...))
	}
	if typed := t.NewTypedWriter(w, opts...); typed != nil {
		return typed
	}
	return dynamicRows{t: t.Type, w: parquet.NewWriter(w, opts...)}
}

// fileOptionsOf holds, per table (name and row type), the Parquet writer options that
// describe its files, made at its first file (fileOptions).
var fileOptionsOf sync.Map // tableKey → func() []parquet.WriterOption

type tableKey struct {
	name string
	t    reflect.Type
}

// fileOptions returns the Parquet writer options that describe the files of table t:
// the schema and, when the table has nullable integer columns, the "pandas" metadata
// that keeps their pandas dtype (pandasMetadata). They are made once per table, at its
// first file, not when the table is declared: a process that writes no Parquet (a
// worker, `plan`, `validate`) builds no schema.
func fileOptions(t resultsdir.Schema) []parquet.WriterOption {
	mk := sync.OnceValue(func() []parquet.WriterOption {
		t.Check()
		opts := []parquet.WriterOption{tableSchema(t.Name, nullMirror(t.Type))}
		if meta := pandasMetadata(t.Type); meta != "" {
			opts = append(opts, parquet.KeyValueMetadata(pandasMetadataKey, meta))
		}
		return opts
	})
	f, _ := fileOptionsOf.LoadOrStore(tableKey{t.Name, t.Type}, mk)
	return f.(func() []parquet.WriterOption)()
}

type dynamicRows struct {
	t reflect.Type
	w *parquet.Writer
}

func (r dynamicRows) WriteRows(rows any) (int, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice || v.Type().Elem() != r.t {
		return 0, fmt.Errorf("rows are %T, want []%v", rows, r.t)
	}
	for i := 0; i < v.Len(); i++ {
		if err := r.w.Write(v.Index(i).Interface()); err != nil {
			return i, err
		}
	}
	return v.Len(), nil
}
func (r dynamicRows) Size() int64  { return r.w.Size() }
func (r dynamicRows) Flush() error { return r.w.Flush() }
func (r dynamicRows) Close() error { return r.w.Close() }

// nullRows writes rows of t that have NaN-null columns (resultsdir.NullFloat): each row is copied into
// one reused value of nullMirror(t), each such column a pointer into vals (nil for NaN),
// and written through the schema of the mirror, which makes these columns optional.
type nullRows struct {
	t    reflect.Type
	w    *parquet.Writer
	nan  []int           // the NaN-null fields of t
	m    reflect.Value   // *mirror, reused row after row
	vals []float64       // the non-null values the mirror's pointers point to, one per nan entry
	ptrs []reflect.Value // &vals[k], made once
}

func newNullRows(t reflect.Type, w *parquet.Writer) *nullRows {
	r := &nullRows{t: t, w: w, nan: nanNullFields(t), m: reflect.New(nullMirror(t))}
	r.vals = make([]float64, len(r.nan))
	for k := range r.vals {
		r.ptrs = append(r.ptrs, reflect.ValueOf(&r.vals[k]))
	}
	return r
}

func (r *nullRows) WriteRows(rows any) (int, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice || v.Type().Elem() != r.t {
		return 0, fmt.Errorf("rows are %T, want []%v", rows, r.t)
	}
	m := r.m.Elem()
	for i := 0; i < v.Len(); i++ {
		row, k := v.Index(i), 0
		for j := 0; j < r.t.NumField(); j++ {
			if k < len(r.nan) && r.nan[k] == j {
				if x := row.Field(j).Float(); math.IsNaN(x) {
					m.Field(j).SetZero()
				} else {
					r.vals[k] = x
					m.Field(j).Set(r.ptrs[k])
				}
				k++
				continue
			}
			m.Field(j).Set(row.Field(j))
		}
		// Write copies the values out of the mirror (Schema.Deconstruct) before it returns.
		if err := r.w.Write(r.m.Interface()); err != nil {
			return i, err
		}
	}
	return v.Len(), nil
}
func (r *nullRows) Size() int64  { return r.w.Size() }
func (r *nullRows) Flush() error { return r.w.Flush() }
func (r *nullRows) Close() error { return r.w.Close() }

// nanNullFields returns the indices of t's NaN-null fields, nil when it has none.
func nanNullFields(t reflect.Type) []int {
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if resultsdir.NullFloat(t.Field(i)) {
			out = append(out, i)
		}
	}
	return out
}

// nullMirror returns t with each NaN-null field a *float64 (same name and tag), the row
// type whose schema the Parquet writer gets; t itself when it has none.
func nullMirror(t reflect.Type) reflect.Type {
	idx := nanNullFields(t)
	if idx == nil {
		return t
	}
	fields := make([]reflect.StructField, t.NumField())
	for i := range fields {
		fields[i] = t.Field(i)
	}
	for _, i := range idx {
		fields[i].Type = reflect.TypeFor[*float64]()
	}
	return reflect.StructOf(fields)
}

// tableSchema returns the Parquet schema of a checked row type t: strings are dictionary-encoded
// (component names, ids and statuses repeat row after row, so the dictionary pays);
// numbers are plain; pointer fields are optional. Compression (zstd) is a writer option.
func tableSchema(name string, t reflect.Type) *parquet.Schema {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("sink: table %s: row type %v is not a struct", name, t))
	}
	fields := make([]reflect.StructField, t.NumField())
	seen := map[string]bool{}
	for i := range fields {
		f := t.Field(i)
		col := resultsdir.ColumnName(f)
		if !f.IsExported() || seen[col] {
			panic(fmt.Sprintf("sink: table %s: field %s is unexported or repeats column %q", name, f.Name, col))
		}
		seen[col] = true
		base := f.Type
		opts := ""
		if base.Kind() == reflect.Pointer {
			base = base.Elem()
			opts = ",optional"
		}
		switch base.Kind() {
		case reflect.String:
			opts += ",dict"
		case reflect.Bool, reflect.Int32, reflect.Int64, reflect.Float64:
		default:
			panic(fmt.Sprintf("sink: table %s: column %s has unsupported type %v", name, col, f.Type))
		}
		f.Tag = reflect.StructTag(fmt.Sprintf(`parquet:"%s%s"`, col, opts))
		fields[i] = f
	}
	mirror := reflect.StructOf(fields)
	return parquet.SchemaOf(reflect.New(mirror).Elem().Interface())
}
