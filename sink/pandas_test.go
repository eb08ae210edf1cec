package sink

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/parquet-go/parquet-go"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// countRow is shaped like a jobs row: identity columns, then nullable counts and a
// nullable double (null unless the job is ok).
type countRow struct {
	JobID   string   `parquet:"job_id"`
	Rep     int64    `parquet:"replicate"`
	Events  *int64   `parquet:"events"`
	Tier    *int32   `parquet:"tier"`
	Flag    *bool    `parquet:"flag"`
	FCT     *float64 `parquet:"fct_usec"`
	Nothing *string  `parquet:"note"`
}

// pandasColumns reads the "pandas" file metadata: column name → numpy_type.
func pandasColumns(t *testing.T, meta string) map[string]string {
	t.Helper()
	var md struct {
		IndexColumns []string `json:"index_columns"`
		Columns      []struct {
			Name      string `json:"name"`
			FieldName string `json:"field_name"`
			Numpy     string `json:"numpy_type"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(meta), &md); err != nil {
		t.Fatalf("pandas metadata %q: %v", meta, err)
	}
	if md.IndexColumns == nil {
		t.Errorf("pandas metadata without index_columns (pyarrow requires the key): %s", meta)
	}
	out := map[string]string{}
	for _, c := range md.Columns {
		if c.Name != c.FieldName {
			t.Errorf("column %q has field_name %q", c.Name, c.FieldName)
		}
		out[c.Name] = c.Numpy
	}
	return out
}

// The files of a table with nullable integer or boolean columns carry the "pandas"
// metadata that makes pandas read those columns with its nullable dtypes (Int64, Int32,
// boolean) whatever their cells hold, in Parquet and in resultsdir.Arrow; the other columns are not
// listed (pyarrow's default dtypes), and a table without such columns has no metadata.
func TestPandasMetadata(t *testing.T) {
	want := map[string]string{"events": "Int64", "tier": "Int32", "flag": "boolean"}
	one := int64(1)
	rows := []countRow{{JobID: "a", Rep: 0, Events: &one}, {JobID: "b", Rep: 1}}
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		dir := t.TempDir()
		w, err := Open(Options{Dir: dir, Format: format}, []resultsdir.Schema{resultsdir.SchemaOf[countRow]("jobs"), resultsdir.SchemaOf[statRow]("stats")})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write("jobs", rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Write("stats", statRows); err != nil {
			t.Fatal(err)
		}
		if err := w.JobDone(journal.JobLine{ID: "a", Status: "ok"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		for table, wantCols := range map[string]map[string]string{"jobs": want, "stats": nil} {
			path := filepath.Join(dir, table, "part-1of1-000001."+string(format))
			meta, ok := fileMetadata(t, path, format)
			if wantCols == nil {
				if ok {
					t.Errorf("%s: pandas metadata %s on a table without nullable integers", path, meta)
				}
				continue
			}
			if got := pandasColumns(t, meta); !reflect.DeepEqual(got, wantCols) {
				t.Errorf("%s: pandas dtypes %v, want %v", path, got, wantCols)
			}
		}
	}
}

// fileMetadata returns the "pandas" metadata of a Parquet or Arrow IPC file.
func fileMetadata(t *testing.T, path string, format resultsdir.Format) (string, bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if format == resultsdir.Arrow {
		r, err := ipc.NewFileReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		md := r.Schema().Metadata()
		if i := md.FindKey(pandasMetadataKey); i >= 0 {
			return md.Values()[i], true
		}
		return "", false
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf.Lookup(pandasMetadataKey)
}
