package resultsdir

import (
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// Every record table gets the rows of one field of stats.Batch, of its own row type, and
// every field of Batch goes to one table: a table added to one and not the other would
// lose rows.
func TestRecordTablesCoverBatch(t *testing.T) {
	bt := reflect.TypeFor[stats.Batch]()
	var b stats.Batch
	v := reflect.ValueOf(&b).Elem()
	for i := 0; i < bt.NumField(); i++ {
		v.Field(i).Set(reflect.MakeSlice(bt.Field(i).Type, i+1, i+1)) // field i has i+1 rows
	}
	if len(RecordTables) != bt.NumField() {
		t.Fatalf("%d record tables, %d row slices in stats.Batch", len(RecordTables), bt.NumField())
	}
	seen := map[int]string{}
	for _, rt := range RecordTables {
		rows := reflect.ValueOf(rt.Rows(b))
		if rows.Kind() != reflect.Slice {
			t.Errorf("table %s: rows of kind %s, want a slice", rt.Name, rows.Kind())
			continue
		}
		field := rows.Len() - 1
		if other, ok := seen[field]; ok {
			t.Errorf("tables %s and %s take the same Batch field %s", other, rt.Name, bt.Field(field).Name)
		}
		seen[field] = rt.Name
		if got, want := rows.Type().Elem(), rt.Type; got != want {
			t.Errorf("table %s: rows of Batch.%s are %s, the table's row type is %s", rt.Name, bt.Field(field).Name, got, want)
		}
	}
}
