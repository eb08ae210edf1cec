package sink

import (
	"encoding/json"
	"reflect"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// pandasMetadataKey is the key of the file metadata (Parquet key-value metadata, Arrow
// schema metadata) that pandas writes and pyarrow's to_pandas reads to restore column
// dtypes (pyarrow/pandas_compat.py). Polars and DuckDB ignore it.
const pandasMetadataKey = "pandas"

// pandasMetadata returns the "pandas" file metadata of a table whose rows are t, or ""
// when it needs none.
//
// A nullable integer or boolean column (a pointer field: the jobs table's summary
// counts, null unless status is ok) reads in pandas by default as float64 with NaN
// as soon as one cell is null, and as int64 otherwise: its dtype would depend on
// whether a job failed. The metadata names pandas' nullable extension dtype for each
// such column (Int64, Int32, boolean), which pyarrow's to_pandas applies whatever the
// cells hold, so `pd.read_parquet("DIR/jobs")` gives the same dtypes for every run.
// Only those columns are listed: pyarrow reads a partial column list, and every other
// column keeps the dtype pyarrow gives its Arrow type (strings pandas' str, doubles
// float64 with NaN for a null). The metadata changes no value and no Parquet or Arrow
// type: other readers see the same columns with or without it.
func pandasMetadata(t reflect.Type) string {
	type column struct {
		Name      string  `json:"name"`
		FieldName string  `json:"field_name"`
		Pandas    string  `json:"pandas_type"`
		Numpy     string  `json:"numpy_type"`
		Metadata  *string `json:"metadata"`
	}
	var cols []column
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Type.Kind() != reflect.Pointer {
			continue
		}
		var pandasType, dtype string
		switch f.Type.Elem().Kind() {
		case reflect.Int64:
			pandasType, dtype = "int64", "Int64"
		case reflect.Int32:
			pandasType, dtype = "int32", "Int32"
		case reflect.Bool:
			pandasType, dtype = "bool", "boolean"
		default:
			continue // a nullable double reads as float64 with NaN, pandas' own way
		}
		name := resultsdir.ColumnName(f)
		cols = append(cols, column{Name: name, FieldName: name, Pandas: pandasType, Numpy: dtype})
	}
	if cols == nil {
		return ""
	}
	data, err := json.Marshal(struct {
		IndexColumns  []string `json:"index_columns"`
		ColumnIndexes []string `json:"column_indexes"`
		Columns       []column `json:"columns"`
		Creator       struct {
			Library string `json:"library"`
		} `json:"creator"`
	}{IndexColumns: []string{}, ColumnIndexes: []string{}, Columns: cols,
		Creator: struct {
			Library string `json:"library"`
		}{"rocesweep"}})
	if err != nil {
		panic(err) // strings and slices only: cannot fail
	}
	return string(data)
}
