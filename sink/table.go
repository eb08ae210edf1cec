package sink

import (
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// Table is one folder of a results directory and the Go type of its rows: a flat struct
// whose `parquet:"name"` tags name the columns, in field order. Column types: string
// (Parquet BYTE_ARRAY UTF8, dictionary-encoded), bool, int32, int64, float64 (DOUBLE),
// and pointers to them for nullable columns (a nil pointer is a null).
//
// A float64 field may also be nullable without a pointer: the tag option `optional`
// (`parquet:"fct_p99_usec,optional"`) makes its column nullable and writes NaN as null,
// every other value as it is (0 stays 0), in Parquet and Arrow alike. Record rows use it
// for a statistic that has no value (a percentile over no sample): rows stay free of
// pointers, which a gob round trip would turn from a pointer to 0 into nil. Such a
// table's Parquet rows go through a reflective copy with a *float64 in place of each of
// these fields, slower than the typed writer: keep it to small tables (classes). Read
// back with parquet-go, the same tag on a float64 reads a null as 0 (parquet-go's
// meaning of optional); a *float64 field reads it as nil. The option is refused on any
// other type.
//
// Build one with TableOf for a row type known at compile time (the fast path) or with
// DynamicTable for a type made with reflect.StructOf (the `jobs` table, whose swept
// columns depend on the plan).
type Table struct {
	Name string
	Type reflect.Type

	// newParquet makes the table's Parquet writer. Its schema is built at the first
	// call, not when the table is declared: a process that writes no Parquet (a worker,
	// `plan`, `validate`) does not pay for eleven schemas at start-up (~1.5 ms and 4,500
	// allocations each process).
	newParquet func(w io.Writer, opts []parquet.WriterOption) parquetRows

	// check panics unless Type is a row type the sink can write (checkRowType); it runs
	// once, at the table's first use, not when a package declares its tables.
	check func()
}

// parquetRows writes row slices of the table's type into one Parquet file.
type parquetRows interface {
	write(rows any) (int, error)
	// Size is the file's bytes so far: those written out and parquet-go's estimate of
	// the open row group (encoded pages and values not yet encoded).
	Size() int64
	Flush() error
	Close() error
}

// TableOf returns the table name whose rows are T. Its first use (a file, Columns)
// panics if T is not a flat struct of the supported column types (a programming error,
// caught by any test that writes the table or lists its columns).
func TableOf[T any](name string) Table {
	t := reflect.TypeFor[T]()
	check := sync.OnceFunc(func() { checkRowType(name, t) })
	options := fileOptions(name, t, check)
	return Table{Name: name, Type: t, check: check,
		newParquet: func(w io.Writer, opts []parquet.WriterOption) parquetRows {
			if nanNullFields(t) != nil {
				return newNullRows(t, parquet.NewWriter(w, append(opts, options()...)...))
			}
			return typedRows[T]{parquet.NewGenericWriter[T](w, append(opts, options()...)...)}
		}}
}

// DynamicTable returns the table name whose rows are values of the struct type t, passed
// to Writer.Write as a slice of t (reflect.MakeSlice(reflect.SliceOf(t), ...).Interface()).
func DynamicTable(name string, t reflect.Type) Table {
	check := sync.OnceFunc(func() { checkRowType(name, t) })
	options := fileOptions(name, t, check)
	return Table{Name: name, Type: t, check: check,
		newParquet: func(w io.Writer, opts []parquet.WriterOption) parquetRows {
			if nanNullFields(t) != nil {
				return newNullRows(t, parquet.NewWriter(w, append(opts, options()...)...))
			}
			return dynamicRows{t: t, w: parquet.NewWriter(w, append(opts, options()...)...)}
		}}
}

// fileOptions returns, made once at the first call, the Parquet writer options that
// describe the table's files: the schema and, when the table has nullable integer
// columns, the "pandas" metadata that keeps their pandas dtype (pandasMetadata).
func fileOptions(name string, t reflect.Type, check func()) func() []parquet.WriterOption {
	return sync.OnceValue(func() []parquet.WriterOption {
		check()
		opts := []parquet.WriterOption{tableSchema(name, nullMirror(t))}
		if meta := pandasMetadata(t); meta != "" {
			opts = append(opts, parquet.KeyValueMetadata(pandasMetadataKey, meta))
		}
		return opts
	})
}

// Nullable reports whether column i of the table can hold nulls: a pointer field, or a
// float64 field with the tag option `optional` (NaN written as null).
func (t Table) Nullable(i int) bool {
	f := t.Type.Field(i)
	return f.Type.Kind() == reflect.Pointer || nanNull(f)
}

// Columns returns the table's column names in order.
func (t Table) Columns() []string {
	t.check()
	names := make([]string, t.Type.NumField())
	for i := range names {
		names[i] = columnName(t.Type.Field(i))
	}
	return names
}

type typedRows[T any] struct{ w *parquet.GenericWriter[T] }

func (r typedRows[T]) write(rows any) (int, error) {
	rs, ok := rows.([]T)
	if !ok {
		return 0, fmt.Errorf("rows are %T, want %T", rows, []T(nil))
	}
	return r.w.Write(rs)
}
func (r typedRows[T]) Size() int64  { return r.w.Size() }
func (r typedRows[T]) Flush() error { return r.w.Flush() }
func (r typedRows[T]) Close() error { return r.w.Close() }

type dynamicRows struct {
	t reflect.Type
	w *parquet.Writer
}

func (r dynamicRows) write(rows any) (int, error) {
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

// nullRows writes rows of t that have NaN-null columns (nanNull): each row is copied into
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

func (r *nullRows) write(rows any) (int, error) {
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

// nanNull reports whether field f is a NaN-null column: a float64 (not a pointer) whose
// tag carries the option `optional`.
func nanNull(f reflect.StructField) bool {
	return f.Type.Kind() == reflect.Float64 && tagOption(f, "optional")
}

// nanNullFields returns the indices of t's NaN-null fields, nil when it has none.
func nanNullFields(t reflect.Type) []int {
	var out []int
	for i := 0; i < t.NumField(); i++ {
		if nanNull(t.Field(i)) {
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

// tagOption reports whether the parquet tag of f lists option opt after its name.
func tagOption(f reflect.StructField, opt string) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("parquet"), ",")
	for o := range strings.SplitSeq(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// columnName is the Parquet column name of a field: its tag name, else the field name.
func columnName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("parquet"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// checkRowType panics unless t is a flat struct of the supported column types with one
// column per name (a programming error, caught by any test).
func checkRowType(name string, t reflect.Type) {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("sink: table %s: row type %v is not a struct", name, t))
	}
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		col := columnName(f)
		if !f.IsExported() || seen[col] {
			panic(fmt.Sprintf("sink: table %s: field %s is unexported or repeats column %q", name, f.Name, col))
		}
		seen[col] = true
		base := f.Type
		if base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		switch base.Kind() {
		case reflect.String, reflect.Bool, reflect.Int32, reflect.Int64, reflect.Float64:
		default:
			panic(fmt.Sprintf("sink: table %s: column %s has unsupported type %v", name, col, f.Type))
		}
		_, opts, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if opts != "" && (opts != "optional" || f.Type.Kind() != reflect.Float64) {
			panic(fmt.Sprintf("sink: table %s: column %s: tag options %q; the only option is optional, on a float64 field (NaN written as null)", name, col, opts))
		}
	}
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
		col := columnName(f)
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
