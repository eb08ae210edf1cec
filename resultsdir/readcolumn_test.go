package resultsdir

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type wideRow struct {
	ID    string  `parquet:"job_id"`
	Small int32   `parquet:"small"`
	Big   int64   `parquet:"big"`
	F     float32 `parquet:"f"`
	D     float64 `parquet:"d"`
	On    bool    `parquet:"on"`
	Name  string  `parquet:"name,dict"`
	Opt   *int64  `parquet:"opt,optional"`
}

type narrowRow struct {
	D    float64 `parquet:"d"`
	ID   string  `parquet:"job_id"`
	Gone int64   `parquet:"not_in_the_file"`
}

// readStructs reads what parquet-go's own reader reads, field by field, in several row
// groups, for the whole struct and for a subset of its columns in another order.
func TestReadStructsMatchesParquetRead(t *testing.T) {
	var in []wideRow
	for i := range 2500 {
		in = append(in, wideRow{ID: string(rune('a' + i%7)), Small: int32(i - 1000), Big: int64(i) << 40,
			F: float32(i) / 3, D: float64(i) * 1.5, On: i%3 == 0, Name: []string{"host_0", "switch_1"}[i%2]})
		if i%4 == 0 {
			v := int64(-i)
			in[i].Opt = &v
		}
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[wideRow](&buf, parquet.MaxRowsPerRowGroup(1000))
	if _, err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pf.RowGroups()); n != 3 {
		t.Fatalf("%d row groups, want 3", n)
	}
	got, err := readStructs[wideRow](pf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("whole rows differ from what was written")
	}
	narrow, err := readStructs[narrowRow](pf, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := parquet.Read[narrowRow](bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(narrow, want) {
		t.Errorf("a subset of the columns differs from parquet.Read's")
	}
}
