package sink

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/apache/arrow/go/v17/arrow/ipc"
	"github.com/parquet-go/parquet-go"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// TestRowGroupBytesBoundsRowGroups: a table's row group ends once it holds
// Options.RowGroupBytes, well before RowGroupRows, in Parquet and Arrow alike, and every
// row reads back in order.
func TestRowGroupBytesBoundsRowGroups(t *testing.T) {
	const n = 40_000
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		t.Run(string(format), func(t *testing.T) {
			dir := t.TempDir()
			w, err := Open(Options{Dir: dir, Format: format, RowGroupBytes: 256 << 10}, testTables())
			if err != nil {
				t.Fatal(err)
			}
			rows := portRows("a", n)
			for off := 0; off < n; off += 64 { // as the runner writes a job's batches
				if err := w.Write("nd_stats", rows[off:min(off+64, n)]); err != nil {
					t.Fatal(err)
				}
			}
			file := closeJobA(t, w, dir)
			var groups int
			if format == resultsdir.Parquet {
				got := readParquet[portRow](t, dir, "nd_stats")
				if !reflect.DeepEqual(got, rows) {
					t.Fatalf("nd_stats: %d rows read back, want the %d written, in order", len(got), n)
				}
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				st, _ := f.Stat()
				pf, err := parquet.OpenFile(f, st.Size())
				if err != nil {
					t.Fatal(err)
				}
				groups = len(pf.RowGroups())
			} else {
				f, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				r, err := ipc.NewFileReader(f)
				if err != nil {
					t.Fatal(err)
				}
				groups = r.NumRecords()
				var total int64
				for i := range groups {
					rec, err := r.Record(i)
					if err != nil {
						t.Fatal(err)
					}
					total += rec.NumRows()
				}
				if total != n {
					t.Fatalf("%d rows in the record batches, want %d", total, n)
				}
			}
			// 40,000 rows of ~50 B: at least 2 MB of values or pages, so several groups
			// of 256 KiB, where RowGroupRows (65,536) alone would make one.
			if groups < 3 {
				t.Errorf("%s: %d row groups for %d rows at RowGroupBytes 256 KiB, want at least 3", filepath.Base(file), groups, n)
			}
		})
	}
}

// TestEndGroup: EndGroup ends a table's open row group (record batch) there and then,
// in Parquet and Arrow alike, leaves a table without rows in its group as it is, and
// refuses a table the writer does not have; every row reads back in order.
func TestEndGroup(t *testing.T) {
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		t.Run(string(format), func(t *testing.T) {
			dir := t.TempDir()
			w, err := Open(Options{Dir: dir, Format: format}, testTables())
			if err != nil {
				t.Fatal(err)
			}
			rows := portRows("a", 30)
			for _, part := range [][]portRow{rows[:10], rows[10:25], rows[25:]} {
				if err := w.Write("nd_stats", part); err != nil {
					t.Fatal(err)
				}
				if err := w.EndGroup("nd_stats"); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.EndGroup("nd_stats"); err != nil { // nothing open: no empty group
				t.Fatal(err)
			}
			if err := w.EndGroup("no_such_table"); err == nil {
				t.Error("EndGroup of an unknown table: no error")
			}
			file := closeJobA(t, w, dir)
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var sizes []int64
			if format == resultsdir.Parquet {
				if got := readParquet[portRow](t, dir, "nd_stats"); !reflect.DeepEqual(got, rows) {
					t.Fatalf("nd_stats: %d rows read back, want the %d written, in order", len(got), len(rows))
				}
				st, _ := f.Stat()
				pf, err := parquet.OpenFile(f, st.Size())
				if err != nil {
					t.Fatal(err)
				}
				for _, g := range pf.RowGroups() {
					sizes = append(sizes, g.NumRows())
				}
			} else {
				r, err := ipc.NewFileReader(f)
				if err != nil {
					t.Fatal(err)
				}
				for i := range r.NumRecords() {
					rec, err := r.Record(i)
					if err != nil {
						t.Fatal(err)
					}
					sizes = append(sizes, rec.NumRows())
				}
			}
			if want := []int64{10, 15, 5}; !reflect.DeepEqual(sizes, want) {
				t.Errorf("row groups of %v rows, want %v", sizes, want)
			}
		})
	}
}

// TestPageBuffer: the page buffer reads back what was written, from where it was
// rewound, as the Parquet writer uses it (write pages, seek to 0, copy out).
func TestPageBuffer(t *testing.T) {
	var p pageBuffer
	for _, s := range []string{"abc", "", "defgh"} {
		if n, err := p.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if off, err := p.Seek(0, io.SeekStart); off != 0 || err != nil {
		t.Fatalf("Seek(0, start) = %d, %v", off, err)
	}
	b, err := io.ReadAll(&p)
	if string(b) != "abcdefgh" || err != nil {
		t.Fatalf("read back %q, %v; want abcdefgh", b, err)
	}
	if off, err := p.Seek(-3, io.SeekEnd); off != 5 || err != nil {
		t.Fatalf("Seek(-3, end) = %d, %v, want 5", off, err)
	}
	var out []byte
	w := writerFunc(func(b []byte) (int, error) { out = append(out, b...); return len(b), nil })
	if n, err := p.WriteTo(w); n != 3 || err != nil || string(out) != "fgh" {
		t.Fatalf("WriteTo = %d, %v, %q; want 3, fgh", n, err, out)
	}
	if _, err := p.Seek(9, io.SeekStart); err == nil {
		t.Fatalf("Seek past the end: no error")
	}
	p.Seek(1, io.SeekStart)
	p.Write([]byte("XYZWV")) // overwrites "bcdef" ... and extends
	p.Seek(0, io.SeekStart)
	if b, _ := io.ReadAll(&p); string(b) != "aXYZWVgh" {
		t.Fatalf("after an overwrite: %q, want aXYZWVgh", b)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// closeJobA ends job "a", closes w and returns the one nd_stats file the commit made.
func closeJobA(t *testing.T, w *Writer, dir string) string {
	t.Helper()
	if err := w.JobDone(journal.JobLine{ID: "a", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	files, err := resultsdir.Files(dir, "nd_stats")
	if err != nil || len(files) != 1 {
		t.Fatalf("files %v, %v", files, err)
	}
	return files[0]
}
