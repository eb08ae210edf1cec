package sink

import (
	"fmt"
	"math"
	"reflect"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// arrowRows writes row slices of one table into an Arrow IPC file (the file format, with
// a footer, readable by pyarrow.ipc.open_file and DuckDB's arrow extension). Rows are
// buffered in builders and written as one record batch per row group.
type arrowRows struct {
	t       reflect.Type
	w       *ipc.FileWriter
	b       *array.RecordBuilder
	appends []func(array.Builder, reflect.Value)
	n       int
	rowSize int64 // bytes of a row in the builders, about (strings counted at 16)
}

func arrowSchema(t reflect.Type) *arrow.Schema {
	fields := make([]arrow.Field, t.NumField())
	for i := range fields {
		f := t.Field(i)
		base, nullable := f.Type, resultsdir.NullFloat(f) // NaN-null float64 columns (Table)
		if base.Kind() == reflect.Pointer {
			base, nullable = base.Elem(), true
		}
		var dt arrow.DataType
		switch base.Kind() {
		case reflect.String:
			dt = arrow.BinaryTypes.String
		case reflect.Bool:
			dt = arrow.FixedWidthTypes.Boolean
		case reflect.Int32:
			dt = arrow.PrimitiveTypes.Int32
		case reflect.Int64:
			dt = arrow.PrimitiveTypes.Int64
		case reflect.Float64:
			dt = arrow.PrimitiveTypes.Float64
		}
		fields[i] = arrow.Field{Name: resultsdir.ColumnName(f), Type: dt, Nullable: nullable}
	}
	if meta := pandasMetadata(t); meta != "" {
		md := arrow.NewMetadata([]string{pandasMetadataKey}, []string{meta})
		return arrow.NewSchema(fields, &md)
	}
	return arrow.NewSchema(fields, nil)
}

func newArrowRows(t reflect.Type, w dirfs.File) (*arrowRows, error) {
	schema := arrowSchema(t)
	fw, err := ipc.NewFileWriter(w, ipc.WithSchema(schema), ipc.WithZstd())
	if err != nil {
		return nil, err
	}
	r := &arrowRows{t: t, w: fw, b: array.NewRecordBuilder(memory.DefaultAllocator, schema)}
	for i := 0; i < t.NumField(); i++ {
		app := arrowAppender(t.Field(i).Type)
		if resultsdir.NullFloat(t.Field(i)) {
			app = appendNaNNull
		}
		r.appends = append(r.appends, app)
		r.rowSize += arrowValueSize(t.Field(i).Type)
	}
	return r, nil
}

// appendNaNNull appends a NaN-null float64 column's value (Table): NaN as a null.
func appendNaNNull(b array.Builder, v reflect.Value) {
	if x := v.Float(); math.IsNaN(x) {
		b.AppendNull()
	} else {
		b.(*array.Float64Builder).Append(x)
	}
}

// arrowAppender returns the function appending one field value to its column builder.
func arrowAppender(ft reflect.Type) func(array.Builder, reflect.Value) {
	if ft.Kind() == reflect.Pointer {
		inner := arrowAppender(ft.Elem())
		return func(b array.Builder, v reflect.Value) {
			if v.IsNil() {
				b.AppendNull()
				return
			}
			inner(b, v.Elem())
		}
	}
	switch ft.Kind() {
	case reflect.String:
		return func(b array.Builder, v reflect.Value) { b.(*array.StringBuilder).Append(v.String()) }
	case reflect.Bool:
		return func(b array.Builder, v reflect.Value) { b.(*array.BooleanBuilder).Append(v.Bool()) }
	case reflect.Int32:
		return func(b array.Builder, v reflect.Value) { b.(*array.Int32Builder).Append(int32(v.Int())) }
	case reflect.Int64:
		return func(b array.Builder, v reflect.Value) { b.(*array.Int64Builder).Append(v.Int()) }
	case reflect.Float64:
		return func(b array.Builder, v reflect.Value) { b.(*array.Float64Builder).Append(v.Float()) }
	}
	panic(fmt.Sprintf("sink: unsupported arrow column type %v", ft))
}

func (r *arrowRows) write(rows any) (int, error) {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice || v.Type().Elem() != r.t {
		return 0, fmt.Errorf("rows are %T, want []%v", rows, r.t)
	}
	for i := 0; i < v.Len(); i++ {
		row := v.Index(i)
		for j, app := range r.appends {
			app(r.b.Field(j), row.Field(j))
		}
	}
	r.n += v.Len()
	return v.Len(), nil
}

// arrowValueSize is the bytes a value of a column of type ft takes in its builder: its
// width, with an offset and 12 bytes of text for a string and a validity bit (a byte,
// rounding up) for a nullable column.
func arrowValueSize(ft reflect.Type) int64 {
	var n int64
	if ft.Kind() == reflect.Pointer {
		ft, n = ft.Elem(), 1
	}
	switch ft.Kind() {
	case reflect.String:
		return n + 16
	case reflect.Bool:
		return n + 1
	case reflect.Int32:
		return n + 4
	}
	return n + 8
}

// size is the bytes of the buffered rows, about.
func (r *arrowRows) size() int64 { return int64(r.n) * r.rowSize }

// Flush writes the buffered rows as one record batch.
func (r *arrowRows) Flush() error {
	if r.n == 0 {
		return nil
	}
	rec := r.b.NewRecord()
	defer rec.Release()
	r.n = 0
	return r.w.Write(rec)
}

func (r *arrowRows) Close() error {
	err := r.Flush()
	if cerr := r.w.Close(); err == nil {
		err = cerr
	}
	r.b.Release()
	return err
}
