package sink

import (
	"fmt"
	"hash/crc32"
	"io"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// Write appends rows (a []T of the table's row type) to table. Empty slices are free.
func (w *Writer) Write(table string, rows any) error {
	if w.err != nil {
		return w.err
	}
	t := w.byName[table]
	if t == nil {
		names := make([]string, len(w.tables))
		for i, t := range w.tables {
			names[i] = t.Name
		}
		return fmt.Errorf("sink: unknown table %q: this writer was opened with the tables %s", table, strings.Join(names, ", "))
	}
	if err := w.write(t, rows); err != nil {
		w.fail(fmt.Errorf("writing %s: %w", t.tmp, err))
		return w.err
	}
	return nil
}

func (w *Writer) write(t *tableFile, rows any) error {
	n := sliceLen(rows)
	if n < 0 {
		return fmt.Errorf("rows are %T, want a slice", rows)
	}
	if n == 0 {
		return nil
	}
	if t.f == nil {
		if err := w.openFile(t); err != nil {
			return err
		}
	}
	for off := 0; off < n; {
		chunk := min(n-off, w.opts.RowGroupRows-t.grp)
		part := subSlice(rows, off, off+chunk)
		var err error
		if t.pq != nil {
			_, err = t.pq.WriteRows(part)
		} else {
			_, err = t.ar.write(part)
		}
		if err != nil {
			return err
		}
		off += chunk
		t.grp += chunk
		t.rows += int64(chunk)
		if t.grp >= w.opts.RowGroupRows || t.groupBytes() >= w.opts.RowGroupBytes {
			if err := t.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// EndGroup ends the open row group (Parquet) or record batch (Arrow) of table, if it has
// rows, as RowGroupRows and RowGroupBytes do: its pages are written out to the file and
// its columns' buffers are released for the next rows of any table.
func (w *Writer) EndGroup(table string) error {
	if w.err != nil {
		return w.err
	}
	t := w.byName[table]
	if t == nil {
		return fmt.Errorf("sink: unknown table %q", table)
	}
	if t.grp == 0 {
		return nil
	}
	if err := t.flush(); err != nil {
		w.fail(fmt.Errorf("writing %s: %w", t.tmp, err))
		return w.err
	}
	return nil
}

// groupBytes is the memory the open row group holds (Options.RowGroupBytes).
func (t *tableFile) groupBytes() int64 {
	if t.pq != nil {
		return t.pq.Size() - t.cw.n // less what has reached the file
	}
	return t.ar.size()
}

func (t *tableFile) flush() error {
	t.grp = 0
	if t.pq != nil {
		return t.pq.Flush()
	}
	return t.ar.Flush()
}

func (w *Writer) openFile(t *tableFile) error {
	t.Check()
	if !t.made {
		if err := w.fs.MkdirAll(t.dir); err != nil {
			return err
		}
		t.made, w.newDirs = true, true
	}
	t.tmp = filepath.Join(t.dir, "."+w.fileName(w.commit)+".tmp")
	f, err := w.fs.Create(t.tmp)
	if err != nil {
		return err
	}
	t.f, t.cw = f, &countingFile{File: f}
	if w.opts.Format == resultsdir.Arrow {
		t.ar, err = newArrowRows(t.Type, t.cw)
		return err
	}
	t.pq = newParquet(t.Schema, t.cw, []parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.CreatedBy("rocesweep", "", ""),
		parquet.PageBufferSize(pageBufferOf(t.Type.NumField())),
		parquet.ColumnPageBuffers(pageBuffers{}),
	})
	return nil
}

// pageBufferSize is the Parquet writer's page buffer: a column's values are encoded into
// a page once they fill it. parquet-go reserves a whole buffer for every required column
// of every open file as its first row arrives, so a small buffer keeps a small job's
// memory small, and 32 KiB (4,096 numbers) still makes pages large enough for zstd
// (docs/performance.md "Constants chosen by measurement"). Rows do not depend on it: only
// the page boundaries of a table beyond 4,096 rows per row group do.
const pageBufferSize = 32 << 10

// tablePageBuffers bounds the page buffers of one table, all its columns together: 1 MiB.
// A wide table's columns get smaller pages (pageBufferOf), so that writing a job's
// widest table (roce_transport_stats, 75 columns: 2.4 MB of buffers at pageBufferSize)
// costs no more memory than a narrow one's (docs/performance.md "Constants chosen by
// measurement").
const tablePageBuffers = 1 << 20

// pageBufferOf is the page buffer of each column of a table of n columns:
// pageBufferSize, or less for a table that would otherwise pass tablePageBuffers, in
// whole KiB.
func pageBufferOf(n int) int {
	if n <= 0 || n*pageBufferSize <= tablePageBuffers {
		return pageBufferSize
	}
	return tablePageBuffers / n &^ (1<<10 - 1)
}

// zstdCodec is shared by every file the process writes: its pool of zstd encoders (each
// with hash tables of a few hundred KB) is filled once, not once per file. Its level is
// zstd's fastest, which compresses our tables about as well as the default for a tenth of
// its setup (docs/performance.md "Constants chosen by measurement"). The codec is zstd as
// before (docs/results.md names the format, not a level).
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

func (w *Writer) fileName(commit int) string {
	return fmt.Sprintf("part-%s-%06d%s", w.opts.Shard, commit, w.ext)
}

// castagnoli is the CRC-32C table of the journal's file checksums (resultsdir/journal).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// countingFile counts the bytes written through it and their CRC-32C, the journal's
// record of the file. Both writers write front to back (the Arrow writer only asks for
// its position); any other seek drops the checksum.
type countingFile struct {
	dirfs.File
	n      int64
	crc    uint32
	noSeek bool // a seek moved the position: crc no longer describes the file
}

func (c *countingFile) Write(p []byte) (int, error) {
	n, err := c.File.Write(p)
	c.crc = crc32.Update(c.crc, castagnoli, p[:n])
	c.n += int64(n)
	return n, err
}

func (c *countingFile) Seek(offset int64, whence int) (int64, error) {
	if offset != 0 || whence != io.SeekCurrent {
		c.noSeek = true
	}
	return c.File.Seek(offset, whence)
}

// sum is the journal's record of the file written through c.
func (c *countingFile) sum() journal.FileSum {
	if c.noSeek {
		return journal.FileSum{Size: c.n}
	}
	return journal.FileSum{Size: c.n, CRC32C: fmt.Sprintf("%08x", c.crc)}
}

// sliceLen returns the length of a slice held in an interface.
func sliceLen(rows any) int {
	v := reflect.ValueOf(rows)
	if v.Kind() != reflect.Slice {
		return -1
	}
	return v.Len()
}

// subSlice returns rows[i:j] for a slice held in an interface.
func subSlice(rows any, i, j int) any {
	v := reflect.ValueOf(rows)
	if i == 0 && j == v.Len() {
		return rows
	}
	return v.Slice(i, j).Interface()
}
