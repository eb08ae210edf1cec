package resultsdir

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// Schema is a table of a results directory as its writer declares it: the table's name
// (its folder) and the Go type of its rows, a flat struct
// whose `parquet:"name"` tags name the columns, in field order. Column types: string
// (Parquet BYTE_ARRAY UTF8, dictionary-encoded), bool, int32, int64, float64 (DOUBLE),
// and pointers to them for nullable columns (a nil pointer is a null).
//
// A float64 field may also be nullable without a pointer: the tag option `optional`
// (`parquet:"fct_p99_usec,optional"`) makes its column nullable and writes NaN as null,
// every other value as it is (0 stays 0), in Parquet and Arrow alike (NullFloat). Record
// rows use it for a statistic that has no value (a percentile over no sample): rows stay
// free of pointers, which a gob round trip would turn from a pointer to 0 into nil. Read
// back with parquet-go, the same tag on a float64 reads a null as 0 (parquet-go's
// meaning of optional); a *float64 field reads it as nil. The option is refused on any
// other type.
//
// Build one with SchemaOf for a row type known at compile time or with DynamicSchema for
// a type made with reflect.StructOf (the `jobs` table, whose swept columns depend on the
// plan). Package sink writes the tables of these schemas.
type Schema struct {
	Name string
	Type reflect.Type

	// check panics unless Type is a row type a table may have (checkRowType); it runs
	// once, at the table's first use, not when a package declares its tables.
	check func()
	// typed makes a Parquet writer of the row type known at compile time (SchemaOf); nil
	// for a DynamicSchema.
	typed func(w io.Writer, opts []parquet.WriterOption) TypedWriter
}

// TypedWriter writes slices of a table's row type into one Parquet file through
// parquet-go's generic writer of that type, which only code that knows the type at
// compile time can make (SchemaOf): package sink's fast path.
type TypedWriter interface {
	// WriteRows writes rows, a []T of the table's row type.
	WriteRows(rows any) (int, error)
	// Size is the file's bytes so far: those written out and parquet-go's estimate of
	// the open row group (encoded pages and values not yet encoded).
	Size() int64
	Flush() error
	Close() error
}

// SchemaOf returns the table name whose rows are T. Its first use (Check, Columns, a
// file) panics if T is not a flat struct of the supported column types (a programming
// error, caught by any test that writes the table or lists its columns).
func SchemaOf[T any](name string) Schema {
	t := reflect.TypeFor[T]()
	return Schema{Name: name, Type: t, check: sync.OnceFunc(func() { checkRowType(name, t) }),
		typed: func(w io.Writer, opts []parquet.WriterOption) TypedWriter {
			return typedRows[T]{parquet.NewGenericWriter[T](w, opts...)}
		}}
}

// DynamicSchema returns the table name whose rows are values of the struct type t, passed
// to the sink's Writer.Write as a slice of t (reflect.MakeSlice(reflect.SliceOf(t),
// ...).Interface()).
func DynamicSchema(name string, t reflect.Type) Schema {
	return Schema{Name: name, Type: t, check: sync.OnceFunc(func() { checkRowType(name, t) })}
}

// Check panics unless the table's row type is one a table may have (see Schema): a
// programming error. It checks once per table value made by SchemaOf or DynamicSchema.
func (t Schema) Check() { t.check() }

// NewTypedWriter returns a Parquet writer of the table's rows into w with opts, made for
// the row type of SchemaOf; nil for a DynamicSchema.
func (t Schema) NewTypedWriter(w io.Writer, opts ...parquet.WriterOption) TypedWriter {
	if t.typed == nil {
		return nil
	}
	return t.typed(w, opts)
}

// Nullable reports whether column i of the table can hold nulls: a pointer field, or a
// float64 field with the tag option `optional` (NaN written as null).
func (t Schema) Nullable(i int) bool {
	f := t.Type.Field(i)
	return f.Type.Kind() == reflect.Pointer || NullFloat(f)
}

// Columns returns the table's column names in order.
func (t Schema) Columns() []string {
	t.check()
	names := make([]string, t.Type.NumField())
	for i := range names {
		names[i] = ColumnName(t.Type.Field(i))
	}
	return names
}

type typedRows[T any] struct{ w *parquet.GenericWriter[T] }

func (r typedRows[T]) WriteRows(rows any) (int, error) {
	rs, ok := rows.([]T)
	if !ok {
		return 0, fmt.Errorf("rows are %T, want %T", rows, []T(nil))
	}
	return r.w.Write(rs)
}
func (r typedRows[T]) Size() int64  { return r.w.Size() }
func (r typedRows[T]) Flush() error { return r.w.Flush() }
func (r typedRows[T]) Close() error { return r.w.Close() }

// NullFloat reports whether field f of a row type is a NaN-null column: a float64 (not a
// pointer) whose tag carries the option `optional`, written with NaN as null.
func NullFloat(f reflect.StructField) bool {
	return f.Type.Kind() == reflect.Float64 && tagOption(f, "optional")
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

// ColumnName is the column name of a field of a row type: its parquet tag's name, else
// the field name.
func ColumnName(f reflect.StructField) string {
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
		panic(fmt.Sprintf("results: table %s: row type %v is not a struct", name, t))
	}
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		col := ColumnName(f)
		if !f.IsExported() || seen[col] {
			panic(fmt.Sprintf("results: table %s: field %s is unexported or repeats column %q", name, f.Name, col))
		}
		seen[col] = true
		base := f.Type
		if base.Kind() == reflect.Pointer {
			base = base.Elem()
		}
		switch base.Kind() {
		case reflect.String, reflect.Bool, reflect.Int32, reflect.Int64, reflect.Float64:
		default:
			panic(fmt.Sprintf("results: table %s: column %s has unsupported type %v", name, col, f.Type))
		}
		_, opts, _ := strings.Cut(f.Tag.Get("parquet"), ",")
		if opts != "" && (opts != "optional" || f.Type.Kind() != reflect.Float64) {
			panic(fmt.Sprintf("results: table %s: column %s: tag options %q; the only option is optional, on a float64 field (NaN written as null)", name, col, opts))
		}
	}
}
