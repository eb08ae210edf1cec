package launch

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sink"
)

// TestWriteSpilledEndsLargeGroups: writeSpilled writes each table's rows of a spilled job
// in the order the job produced them (the file's, then the held rows, then the
// recorder's), and ends the row group of each table the job gave groupEndRows rows or
// more (two here), not of one it gave fewer: the next job's rows of the first start a new
// row group, of the second join the job's.
func TestWriteSpilledEndsLargeGroups(t *testing.T) {
	dir := t.TempDir()
	var schemas []resultsdir.Schema
	for _, rt := range resultsdir.RecordTables {
		schemas = append(schemas, rt.Schema)
	}
	w, err := sink.Open(sink.Options{Dir: dir}, schemas)
	if err != nil {
		t.Fatal(err)
	}
	nd := fillBatch(groupEndRows+3, 1).NdStats
	msgs := fillBatch(6, 2).Messages
	ecn := fillBatch(groupEndRows, 4).EcnPfcStats
	path := filepath.Join(t.TempDir(), "job.rows")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	enc := rowEncoder{w: f}
	for off := 0; off < groupEndRows; off += 1000 {
		b := stats.Batch{NdStats: nd[off:min(off+1000, groupEndRows)], EcnPfcStats: ecn[off:min(off+1000, groupEndRows)]}
		if off == 0 {
			b.Messages = msgs[:3]
		}
		if err := enc.encode(&b); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	held := stats.Batch{NdStats: nd[groupEndRows : groupEndRows+2], Messages: msgs[3:4]}
	rec := stats.Batch{NdStats: nd[groupEndRows+2:]}
	if err := writeSpilled(w, path, held, rec); err != nil {
		t.Fatal(err)
	}
	next := fillBatch(5, 3)
	next.Messages = msgs[4:]
	if err := writeBatch(w, stats.Batch{NdStats: next.NdStats, EcnPfcStats: next.EcnPfcStats, Messages: next.Messages}); err != nil {
		t.Fatal(err)
	}
	if err := w.JobDone(journal.JobLine{ID: "a", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	gotNd, err := resultsdir.ReadRows[stats.NdStats](dir, "nd_stats")
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]stats.NdStats(nil), nd...), next.NdStats...); !reflect.DeepEqual(gotNd, want) {
		t.Errorf("nd_stats: %s", firstDiff(gotNd, want))
	}
	gotMsgs, err := resultsdir.ReadRows[stats.Message](dir, "messages")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotMsgs, msgs) {
		t.Errorf("messages: %s", firstDiff(gotMsgs, msgs))
	}
	gotEcn, err := resultsdir.ReadRows[stats.EcnPfcStats](dir, "ecn_pfc_stats")
	if err != nil {
		t.Fatal(err)
	}
	if want := append(append([]stats.EcnPfcStats(nil), ecn...), next.EcnPfcStats...); !reflect.DeepEqual(gotEcn, want) {
		t.Errorf("ecn_pfc_stats: %s", firstDiff(gotEcn, want))
	}
	for table, want := range map[string][]int64{"nd_stats": {groupEndRows + 3, 5}, "ecn_pfc_stats": {groupEndRows, 5}, "messages": {6}} {
		if got := rowGroups(t, dir, table); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: row groups of %v rows, want %v", table, got, want)
		}
	}
}

// rowGroups returns the rows of each row group of table's one Parquet file in dir.
func rowGroups(t *testing.T, dir, table string) []int64 {
	t.Helper()
	files, err := resultsdir.Files(dir, table)
	if err != nil || len(files) != 1 {
		t.Fatalf("%s: files %v, %v", table, files, err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	var rows []int64
	for _, g := range pf.RowGroups() {
		rows = append(rows, g.NumRows())
	}
	return rows
}
