package sink

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// portRow is shaped like a record row: strings that repeat, counters, rates.
type portRow struct {
	JobID      string  `parquet:"job_id"`
	Component  string  `parquet:"component_name"`
	Tier       int32   `parquet:"tier"`
	Ifid       int64   `parquet:"ifid"`
	SimTimeSec float64 `parquet:"sim_time_sec"`
	TxPackets  int64   `parquet:"total_packets_tx"`
	TxRateGbps float64 `parquet:"tx_rate_Gbps"`
	Paused     bool    `parquet:"paused"`
}

func portRows(job string, n int) []portRow {
	rows := make([]portRow, n)
	for i := range rows {
		rows[i] = portRow{JobID: job, Component: fmt.Sprintf("switch_%d", i%4), Tier: int32(i % 3), Ifid: int64(i % 64),
			SimTimeSec: float64(i) * 1e-4, TxPackets: int64(i) * 977, TxRateGbps: float64(i%400) + 0.25, Paused: i%7 == 0}
	}
	return rows
}

// jobsType is a dynamic row type like the sweep's jobs table: a nullable metric.
var jobsType = reflect.StructOf([]reflect.StructField{
	{Name: "F0", Type: reflect.TypeFor[string](), Tag: `parquet:"job_id"`},
	{Name: "F1", Type: reflect.TypeFor[string](), Tag: `parquet:"status"`},
	{Name: "F2", Type: reflect.TypeFor[float64](), Tag: `parquet:"switch_LossyAlpha"`},
	{Name: "F3", Type: reflect.TypeFor[*int64](), Tag: `parquet:"drops_total"`},
})

func jobsRow(id, status string, alpha float64, drops *int64) any {
	s := reflect.MakeSlice(reflect.SliceOf(jobsType), 1, 1)
	v := s.Index(0)
	v.Field(0).SetString(id)
	v.Field(1).SetString(status)
	v.Field(2).SetFloat(alpha)
	if drops != nil {
		v.Field(3).Set(reflect.ValueOf(drops))
	}
	return s.Interface()
}

func testTables() []resultsdir.Schema {
	return []resultsdir.Schema{resultsdir.DynamicSchema("jobs", jobsType), resultsdir.SchemaOf[portRow]("nd_stats")}
}

func ptr[T any](v T) *T { return &v }

func readParquet[T any](t *testing.T, dir, table string) []T {
	t.Helper()
	files, err := resultsdir.Files(dir, table)
	if err != nil {
		t.Fatal(err)
	}
	var all []T
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		rows, err := parquet.Read[T](f, st.Size())
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all = append(all, rows...)
	}
	return all
}

func TestParquetRoundTripTypesAndEncodings(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir, RowGroupRows: 100}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write("nd_stats", portRows("a", 250)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write("jobs", jobsRow("a", "ok", 0.5, ptr[int64](7))); err != nil {
		t.Fatal(err)
	}
	if err := w.JobDone(journal.JobLine{ID: "a", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write("jobs", jobsRow("b", "failed", 2, nil)); err != nil {
		t.Fatal(err)
	}
	if err := w.JobDone(journal.JobLine{ID: "b", Status: "failed"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readParquet[portRow](t, dir, "nd_stats")
	if !reflect.DeepEqual(got, portRows("a", 250)) {
		t.Fatalf("nd_stats rows differ after the round trip")
	}
	type jobRow struct {
		JobID  string  `parquet:"job_id"`
		Status string  `parquet:"status"`
		Alpha  float64 `parquet:"switch_LossyAlpha"`
		Drops  *int64  `parquet:"drops_total,optional"`
	}
	jobs := readParquet[jobRow](t, dir, "jobs")
	if len(jobs) != 2 || jobs[0].Drops == nil || *jobs[0].Drops != 7 || jobs[1].Drops != nil || jobs[1].Alpha != 2 {
		t.Fatalf("jobs = %+v", jobs)
	}

	// Physical layout: standard types, zstd, dictionary strings, row groups of 100.
	files, _ := resultsdir.Files(dir, "nd_stats")
	f, _ := os.Open(files[0])
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(pf.RowGroups()); n != 3 {
		t.Errorf("row groups = %d, want 3 (250 rows, 100 per group)", n)
	}
	want := map[string]string{"job_id": "BYTE_ARRAY", "tier": "INT32", "ifid": "INT64", "sim_time_sec": "DOUBLE", "paused": "BOOLEAN"}
	md := pf.Metadata()
	for _, cc := range md.RowGroups[0].Columns {
		name := cc.MetaData.PathInSchema[0]
		if typ, ok := want[name]; ok && cc.MetaData.Type.String() != typ {
			t.Errorf("column %s type %s, want %s", name, cc.MetaData.Type, typ)
		}
		if cc.MetaData.Codec.String() != "ZSTD" {
			t.Errorf("column %s codec %s, want ZSTD", name, cc.MetaData.Codec)
		}
		dict := strings.Contains(fmt.Sprint(cc.MetaData.Encoding), "DICTIONARY")
		if (name == "job_id" || name == "component_name") != dict {
			t.Errorf("column %s encodings %v: dictionary only for strings", name, cc.MetaData.Encoding)
		}
	}
	for _, n := range pf.Schema().Fields() {
		if n.Name() == "job_id" && !strings.Contains(strings.ToUpper(n.Type().LogicalType().String()), "STRING") {
			t.Errorf("job_id is not annotated as a UTF8 string")
		}
	}
}

func TestArrowRoundTrip(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir, Format: resultsdir.Arrow, RowGroupRows: 64}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	w.Write("nd_stats", portRows("a", 100))
	w.Write("jobs", jobsRow("a", "ok", 0.5, nil))
	w.JobDone(journal.JobLine{ID: "a", Status: "ok"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := resultsdir.Files(dir, "nd_stats")
	if len(files) != 1 || !strings.HasSuffix(files[0], ".arrow") {
		t.Fatalf("files = %v", files)
	}
	f, _ := os.Open(files[0])
	defer f.Close()
	r, err := ipc.NewFileReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.NumRecords() != 2 {
		t.Errorf("record batches = %d, want 2", r.NumRecords())
	}
	var rows int64
	for i := 0; i < r.NumRecords(); i++ {
		rec, err := r.Record(i)
		if err != nil {
			t.Fatal(err)
		}
		rows += rec.NumRows()
		if i == 0 {
			if got := rec.Column(1).(*array.String).Value(5); got != "switch_1" {
				t.Errorf("component_name[5] = %q", got)
			}
			if got := rec.Column(5).(*array.Int64).Value(3); got != 3*977 {
				t.Errorf("total_packets_tx[3] = %d", got)
			}
		}
	}
	if rows != 100 {
		t.Errorf("rows = %d, want 100", rows)
	}
	if got := r.Schema().Field(3).Name; got != "ifid" {
		t.Errorf("field 3 = %s", got)
	}
}

func TestRotationBySize(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir, FileBytes: 20_000, RowGroupRows: 50, CommitInterval: time.Hour}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	for j := range 20 {
		id := fmt.Sprintf("job%02d", j)
		if err := w.Write("nd_stats", portRows(id, 200)); err != nil {
			t.Fatal(err)
		}
		w.Write("jobs", jobsRow(id, "ok", 1, nil))
		if err := w.JobDone(journal.JobLine{ID: id, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := resultsdir.Files(dir, "nd_stats")
	// parquet-go hands bytes to the file in buffered chunks, so a file ends at the first
	// commit after it passed FileBytes.
	if len(files) < 3 {
		t.Errorf("%d files; want several (rotated at 20,000 bytes)", len(files))
	}
	for _, f := range files[:len(files)-1] {
		if st, _ := os.Stat(f); st.Size() < 20_000 {
			t.Errorf("%s has %d bytes, rotated before 20,000", f, st.Size())
		}
	}
	if got := len(readParquet[portRow](t, dir, "nd_stats")); got != 20*200 {
		t.Errorf("rows = %d, want 4000", got)
	}
	done, err := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
	if err != nil || len(done) != 20 {
		t.Errorf("journal holds %d jobs (%v), want 20", len(done), err)
	}
}

func TestOpenRefusesExistingResultsWithoutResume(t *testing.T) {
	dir := t.TempDir()
	w, _ := Open(Options{Dir: dir}, testTables())
	w.Write("jobs", jobsRow("a", "ok", 1, nil))
	w.JobDone(journal.JobLine{ID: "a", Status: "ok"})
	w.Close()
	_, err := Open(Options{Dir: dir}, testTables())
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("err = %v, want ErrExists naming --resume", err)
	}
	// Another shard may write beside it.
	w2, err := Open(Options{Dir: dir, Shard: "2of3"}, testTables())
	if err != nil {
		t.Fatalf("shard 2of3 beside 1of1: %v", err)
	}
	w2.Close()
	if _, err := os.Stat(filepath.Join(dir, "journal-2of3.jsonl")); err != nil {
		t.Error(err)
	}
}

func TestOpenUnwritableDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain-file")
	os.WriteFile(file, nil, 0o644)
	_, err := Open(Options{Dir: filepath.Join(file, "results")}, testTables())
	if err == nil || !strings.Contains(err.Error(), "output directory") || !strings.Contains(err.Error(), "plain-file") {
		t.Fatalf("err = %v, want an output directory error naming the path", err)
	}
}

// TestResumeRemovesDebris builds every kind of leftover a SIGKILL can leave and checks
// that Open(Resume) keeps exactly the complete commits.
func TestResumeRemovesDebris(t *testing.T) {
	dir := t.TempDir()
	w, _ := Open(Options{Dir: dir, CommitInterval: -1}, testTables())
	for _, id := range []string{"a", "b"} {
		w.Write("nd_stats", portRows(id, 10))
		w.Write("jobs", jobsRow(id, "ok", 1, nil))
		w.JobDone(journal.JobLine{ID: id, Status: "ok"})
	}
	w.Close()
	// Commit 3 renamed its files, then the process died before the journal line.
	os.WriteFile(filepath.Join(dir, "nd_stats", "part-1of1-000003.parquet"), []byte("orphan"), 0o644)
	// Commit 4 died while writing.
	os.WriteFile(filepath.Join(dir, "jobs", ".part-1of1-000004.parquet.tmp"), []byte("half"), 0o644)
	// The files of a shard being written now (its lock is held) are not ours to remove:
	// a temp file, and a file renamed whose commit line is still to come.
	others := []string{filepath.Join(dir, "jobs", ".part-2of2-000001.parquet.tmp"), filepath.Join(dir, "nd_stats", "part-2of2-000001.parquet")}
	for _, f := range others {
		os.WriteFile(f, []byte("theirs"), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "journal-2of2.jsonl"), nil, 0o644) // its writer made it at its start
	unlock, err := dirfs.OS{}.Lock(dirfs.LockName(dir, "2of2"))
	if err != nil {
		t.Fatal(err)
	}
	// A torn journal tail: job lines of commit 3 without the commit line, then half a line.
	jf, _ := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	jf.WriteString(seal(`{"job_id":"c","status":"ok","commit":3}`) + `{"commit":3,"jo`)
	jf.Close()

	w, err = Open(Options{Dir: dir, Resume: true}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	rec := w.Recovery()
	if rec.Done != 2 || rec.RemovedFiles != 2 || rec.TruncatedBytes == 0 || len(rec.DamagedLines) != 0 || len(rec.Strays) != 0 {
		t.Errorf("recovery = %+v, want 2 done, 2 files removed, a truncated tail, nothing damaged", rec)
	}
	if _, ok := w.Done()["c"]; ok {
		t.Error("job c of the torn commit counts as done")
	}
	for _, f := range others {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("a file of shard 2of2, which is being written, was removed: %v", err)
		}
	}
	w.Write("nd_stats", portRows("c", 10))
	w.Write("jobs", jobsRow("c", "ok", 1, nil))
	w.JobDone(journal.JobLine{ID: "c", Status: "ok"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rows := readParquet[portRow](t, dir, "nd_stats")
	if len(rows) != 30 {
		t.Errorf("nd_stats rows = %d, want 30 (a, b, c once each)", len(rows))
	}
	done, _ := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
	if len(done) != 3 {
		t.Errorf("journal jobs = %v", done)
	}
	// Once shard 2of2 has stopped, its files that no commit of its journal names are
	// leftovers, and the next resume of any shard removes them.
	unlock()
	w, err = Open(Options{Dir: dir, Resume: true}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := w.Recovery().Strays; !slices.Equal(got, []string{"jobs/.part-2of2-000001.parquet.tmp", "nd_stats/part-2of2-000001.parquet"}) {
		t.Errorf("strays removed: %v", got)
	}
	for _, f := range others {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s of the stopped shard 2of2: %v, want removed", f, err)
		}
	}
}

// fullFS fails every write once budget bytes have been written: a disk filling up.
type fullFS struct {
	dirfs.OS
	budget int64
}

type fullFile struct {
	dirfs.File
	fs *fullFS
}

func (f *fullFS) Create(name string) (dirfs.File, error) {
	file, err := f.OS.Create(name)
	if err != nil {
		return nil, err
	}
	return &fullFile{file, f}, nil
}

func (f *fullFS) OpenAppend(name string) (dirfs.File, error) {
	file, err := f.OS.OpenAppend(name)
	if err != nil {
		return nil, err
	}
	return &fullFile{file, f}, nil
}

func (f *fullFile) Write(p []byte) (int, error) {
	if int64(len(p)) > f.fs.budget {
		n := max(f.fs.budget, 0)
		f.File.Write(p[:n])
		f.fs.budget = 0
		return int(n), &fs.PathError{Op: "write", Path: "disk", Err: syscall.ENOSPC}
	}
	f.fs.budget -= int64(len(p))
	return f.File.Write(p)
}

func TestFullDiskKeepsJournalConsistent(t *testing.T) {
	for _, budget := range []int64{3000, 9000, 20000, 40000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			dir := t.TempDir()
			ffs := &fullFS{budget: budget}
			w, err := Open(Options{Dir: dir, FS: ffs, CommitInterval: -1}, testTables())
			if err != nil {
				t.Fatal(err)
			}
			var werr error
			for j := 0; j < 100 && werr == nil; j++ {
				id := fmt.Sprintf("job%03d", j)
				if werr = w.Write("nd_stats", portRows(id, 40)); werr != nil {
					break
				}
				if werr = w.Write("jobs", jobsRow(id, "ok", 1, nil)); werr != nil {
					break
				}
				werr = w.JobDone(journal.JobLine{ID: id, Status: "ok"})
			}
			var serr *Error
			if !errors.As(werr, &serr) || !errors.Is(werr, syscall.ENOSPC) {
				t.Fatalf("err = %v, want a sink.Error wrapping ENOSPC", werr)
			}
			if !strings.Contains(werr.Error(), "journal") || !strings.Contains(werr.Error(), "consistent") {
				t.Errorf("message %q does not say the journal is consistent", werr)
			}
			if w.Close() == nil {
				t.Error("Close after a failure returned nil")
			}
			// The journal lists exactly the jobs whose rows are in committed files.
			w2, err := Open(Options{Dir: dir, Resume: true}, testTables())
			if err != nil {
				t.Fatal(err)
			}
			done := w2.Done()
			if len(done) != serr.Done {
				t.Errorf("journal holds %d jobs, error said %d", len(done), serr.Done)
			}
			w2.Close()
			perJob := map[string]int{}
			for _, r := range readParquet[portRow](t, dir, "nd_stats") {
				perJob[r.JobID]++
			}
			for id := range done {
				if perJob[id] != 40 {
					t.Errorf("journaled job %s has %d rows, want 40", id, perJob[id])
				}
			}
			if len(perJob) != len(done) {
				t.Errorf("%d jobs in files, %d in the journal", len(perJob), len(done))
			}
		})
	}
}

// BenchmarkSinkParquet measures rows/s and bytes per row of an nd_stats-shaped table.
func BenchmarkSinkParquet(b *testing.B) { benchSink(b, resultsdir.Parquet) }

// BenchmarkSinkArrow is the same with --format arrow.
func BenchmarkSinkArrow(b *testing.B) { benchSink(b, resultsdir.Arrow) }

func benchSink(b *testing.B, format resultsdir.Format) {
	const perJob = 10_000
	// Counters and rates as a simulation produces them: random low digits, so the
	// bytes/row figure is not flattered by repetition.
	// (Refreshed every job, a few % of the time measured.)
	rows := portRows("0123456789abcdef", perJob)
	rng := rand.New(rand.NewPCG(1, 2))
	dir := b.TempDir()
	w, err := Open(Options{Dir: dir, Format: format, CommitInterval: time.Hour}, testTables())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range rows {
			rows[k].TxPackets = rng.Int64N(1 << 40)
			rows[k].TxRateGbps = rng.Float64() * 400
		}
		if err := w.Write("nd_stats", rows); err != nil {
			b.Fatal(err)
		}
		w.JobDone(journal.JobLine{ID: fmt.Sprint(i), Status: "ok"})
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	st := w.Stats()
	b.ReportMetric(float64(st.Rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(st.Bytes)/float64(st.Rows), "bytes/row")
}

// A table that gets no rows has no folder (a DuckDB glob on an empty folder fails, issue
// 16); Files reads it as no files; a resume and a later first row of it work.
func TestNoFolderForATableWithoutRows(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(Options{Dir: dir, CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	w.Write("jobs", jobsRow("a", "ok", 1, nil))
	if err := w.JobDone(journal.JobLine{ID: "a", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "nd_stats")); !os.IsNotExist(err) {
		t.Fatalf("nd_stats folder without rows: %v", err)
	}
	if files, err := resultsdir.Files(dir, "nd_stats"); err != nil || len(files) != 0 {
		t.Fatalf("Files of a table without rows: %v, %v", files, err)
	}
	if _, err := resultsdir.Files(filepath.Join(dir, "absent"), "nd_stats"); err == nil {
		t.Error("Files of a missing results directory: no error")
	}
	w, err = Open(Options{Dir: dir, CommitInterval: -1, Resume: true}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	w.Write("nd_stats", portRows("b", 3))
	w.Write("jobs", jobsRow("b", "ok", 1, nil))
	if err := w.JobDone(journal.JobLine{ID: "b", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rows := readParquet[portRow](t, dir, "nd_stats"); len(rows) != 3 {
		t.Errorf("nd_stats: %d rows, want 3", len(rows))
	}
}
