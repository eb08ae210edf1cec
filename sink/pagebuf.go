package sink

import (
	"fmt"
	"io"
)

// pageBuffers is the pool of the buffers in which a Parquet writer keeps each column's
// encoded pages until its row group is written out (parquet.ColumnPageBuffers). Each
// buffer grows with what it holds. parquet-go's own pool hands out buffers of 32 KiB
// chunks, a whole chunk for every column that has written a page: a table of a hundred
// columns holds 32 KiB per column for pages that compress to a few hundred bytes each.
type pageBuffers struct{}

func (pageBuffers) GetBuffer() io.ReadWriteSeeker { return new(pageBuffer) }

func (pageBuffers) PutBuffer(io.ReadWriteSeeker) {}

// pageBuffer is an in-memory io.ReadWriteSeeker over a byte slice.
type pageBuffer struct {
	b   []byte
	off int
}

func (p *pageBuffer) Write(b []byte) (int, error) {
	if p.off == len(p.b) {
		p.b = append(p.b, b...)
	} else {
		n := copy(p.b[p.off:], b)
		p.b = append(p.b, b[n:]...)
	}
	p.off += len(b)
	return len(b), nil
}

func (p *pageBuffer) Read(b []byte) (int, error) {
	if p.off >= len(p.b) {
		return 0, io.EOF
	}
	n := copy(b, p.b[p.off:])
	p.off += n
	return n, nil
}

// WriteTo writes the bytes after the offset to w (io.Copy of the row group to the file).
func (p *pageBuffer) WriteTo(w io.Writer) (int64, error) {
	if p.off >= len(p.b) {
		return 0, nil
	}
	n, err := w.Write(p.b[p.off:])
	p.off += n
	return int64(n), err
}

func (p *pageBuffer) Seek(offset int64, whence int) (int64, error) {
	to := offset
	switch whence {
	case io.SeekCurrent:
		to += int64(p.off)
	case io.SeekEnd:
		to += int64(len(p.b))
	}
	if to < 0 || to > int64(len(p.b)) {
		return int64(p.off), fmt.Errorf("sink: page buffer: seek(%d, whence %d) from offset %d lands at %d, outside the buffer's 0..%d bytes", offset, whence, p.off, to, len(p.b))
	}
	p.off = int(to)
	return to, nil
}
