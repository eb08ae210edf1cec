package launch

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"

	"github.com/rocesweep/rocesweep/model/stats"
)

// The spill file format (spill.go): a stream of batches, each table of stats.Batch in
// field order as a uvarint row count and, when there are rows, the uvarint length in
// bytes of its rows and the rows (so that a reader of one table skips the others), each
// row its fields in order: signed
// integers as zig-zag varints, float64 as its 8 IEEE bytes (little-endian), bools as one
// byte, strings as a uvarint length and the bytes. A file ends at a batch boundary. It is
// written and read by the same binary, so it describes nothing of its types: gob did,
// and its decoder allocated every batch anew (its message buffer, each row's strings),
// about a thousand bytes of garbage a row that a long job's replay paid in collections
// and in heap pages touched (performance.md "Performance").
//
// rowEncoder appends to one reused buffer and rowDecoder decodes into the memory of the
// last batch it decoded, with each string column's values interned, so that a replay
// allocates nothing per row once its batches and its strings have been seen.

// rowKind is how a field is written.
type rowKind uint8

const (
	kindInt rowKind = iota + 1
	kindFloat
	kindBool
	kindString
)

// rowTable is one table of stats.Batch: its field index in Batch, the row type and how
// each of its fields is written.
type rowTable struct {
	field int
	kinds []rowKind
}

// batchTables describes stats.Batch once (rowTables): every field a slice of a struct
// of integers, floats, bools and strings. Another kind is a programming error that the
// first spill of any test finds.
var batchTables = rowTables()

func rowTables() []rowTable {
	bt := reflect.TypeOf(stats.Batch{})
	var ts []rowTable
	for i := 0; i < bt.NumField(); i++ {
		f := bt.Field(i)
		if f.Type.Kind() != reflect.Slice || f.Type.Elem().Kind() != reflect.Struct {
			panic(fmt.Sprintf("sweep: stats.Batch.%s is %s, not a slice of rows", f.Name, f.Type))
		}
		rt := f.Type.Elem()
		t := rowTable{field: i}
		for j := 0; j < rt.NumField(); j++ {
			var k rowKind
			switch rt.Field(j).Type.Kind() {
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				k = kindInt
			case reflect.Float64:
				k = kindFloat
			case reflect.Bool:
				k = kindBool
			case reflect.String:
				k = kindString
			default:
				panic(fmt.Sprintf("sweep: %s.%s is %s: the spill format has no such field", rt.Name(), rt.Field(j).Name, rt.Field(j).Type))
			}
			t.kinds = append(t.kinds, k)
		}
		ts = append(ts, t)
	}
	return ts
}

// rowEncoder writes batches to w. Not safe for concurrent use.
type rowEncoder struct {
	w    io.Writer
	buf  []byte
	rows []byte // one table's rows of one batch, before their length is known
}

// encode writes b to the encoder's writer, as batches of at most chunkRows rows a table
// (the rows a spill held before it made its file are one large batch), so that a
// replay decodes no batch larger than that; and it writes its buffer out whenever it
// passes flushBytes, so that neither side holds a large batch's bytes.
func (e *rowEncoder) encode(b *stats.Batch) error {
	bv := reflect.ValueOf(b).Elem()
	longest := 0
	for ti := range batchTables {
		longest = max(longest, bv.Field(batchTables[ti].field).Len())
	}
	buf := e.buf[:0]
	for off := 0; off == 0 || off < longest; off += chunkRows {
		for ti := range batchTables {
			t := &batchTables[ti]
			rows := bv.Field(t.field)
			lo, hi := min(off, rows.Len()), min(off+chunkRows, rows.Len())
			buf = binary.AppendUvarint(buf, uint64(hi-lo))
			if hi > lo {
				e.rows = e.rows[:0]
				for r := lo; r < hi; r++ {
					e.rows = appendRow(e.rows, t, rows.Index(r))
				}
				buf = binary.AppendUvarint(buf, uint64(len(e.rows)))
				buf = append(buf, e.rows...)
			}
			if len(buf) >= flushBytes {
				if _, err := e.w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	e.buf = buf
	_, err := e.w.Write(buf)
	return err
}

// chunkRows is the most rows of one table in one encoded batch; flushBytes the most
// bytes the encoder holds before it writes them out.
const (
	chunkRows  = stats.DefaultBatchRows
	flushBytes = 16 << 10
)

// appendRow appends row (of table t) to buf.
func appendRow(buf []byte, t *rowTable, row reflect.Value) []byte {
	for c, k := range t.kinds {
		f := row.Field(c)
		switch k {
		case kindInt:
			buf = binary.AppendVarint(buf, f.Int())
		case kindFloat:
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(f.Float()))
		case kindBool:
			v := byte(0)
			if f.Bool() {
				v = 1
			}
			buf = append(buf, v)
		case kindString:
			buf = binary.AppendUvarint(buf, uint64(f.Len()))
			buf = append(buf, f.String()...)
		}
	}
	return buf
}

// rowDecoder reads batches from r into the memory of the last one it read. Not safe for
// concurrent use.
type rowDecoder struct {
	r       *bufio.Reader
	word    [8]byte // a float's bytes (a local array would escape through io.ReadFull)
	scratch []byte  // a string's bytes
	// strs interns each string column's values (by table and column), so that a value
	// seen before costs no allocation; a column's set is dropped when it passes
	// internCap values, which bounds it whatever the job's length (a time_utc per
	// report interval).
	strs [][]map[string]string
}

// internCap bounds a string column's interned values.
const internCap = 4096

// errCorrupt is a spill that ends inside a batch or holds an impossible length.
var errCorrupt = errors.New("spill file corrupt")

// decode reads the next batch into b, reusing b's tables (whose rows it overwrites
// whole). It returns io.EOF at the end of the stream.
func (d *rowDecoder) decode(b *stats.Batch) error { return d.decodeTable(b, -1) }

// decodeTable reads the next batch into b as decode does, but only the rows of the table
// of stats.Batch field only (-1: every table): b's other tables are left empty.
func (d *rowDecoder) decodeTable(b *stats.Batch, only int) error {
	if d.strs == nil {
		d.strs = make([][]map[string]string, len(batchTables))
		for i := range batchTables {
			d.strs[i] = make([]map[string]string, len(batchTables[i].kinds))
		}
	}
	bv := reflect.ValueOf(b).Elem()
	for ti := range batchTables {
		t := &batchTables[ti]
		n, err := binary.ReadUvarint(d.r)
		if err != nil {
			if err == io.EOF && ti == 0 {
				return io.EOF
			}
			return d.fail(err)
		}
		if n > 1<<30 {
			return errCorrupt
		}
		rows := bv.Field(t.field)
		if n == 0 {
			rows.SetLen(0)
			continue
		}
		size, err := binary.ReadUvarint(d.r)
		if err != nil {
			return d.fail(err)
		}
		if size > 1<<40 {
			return errCorrupt
		}
		if only >= 0 && t.field != only {
			rows.SetLen(0)
			if _, err := d.r.Discard(int(size)); err != nil {
				return d.fail(err)
			}
			continue
		}
		if int(n) > rows.Cap() {
			grown := reflect.MakeSlice(rows.Type(), int(n), max(int(n), 2*rows.Cap()))
			rows.Set(grown)
		} else {
			rows.SetLen(int(n))
		}
		for r := 0; r < int(n); r++ {
			row := rows.Index(r)
			for c, k := range t.kinds {
				f := row.Field(c)
				switch k {
				case kindInt:
					v, err := binary.ReadVarint(d.r)
					if err != nil {
						return d.fail(err)
					}
					f.SetInt(v)
				case kindFloat:
					if _, err := io.ReadFull(d.r, d.word[:]); err != nil {
						return d.fail(err)
					}
					f.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(d.word[:])))
				case kindBool:
					v, err := d.r.ReadByte()
					if err != nil {
						return d.fail(err)
					}
					f.SetBool(v != 0)
				case kindString:
					s, err := d.string(ti, c)
					if err != nil {
						return err
					}
					f.SetString(s)
				}
			}
		}
	}
	return nil
}

// string reads a string of column c of table ti, interned.
func (d *rowDecoder) string(ti, c int) (string, error) {
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		return "", d.fail(err)
	}
	if n > 1<<20 {
		return "", errCorrupt
	}
	if cap(d.scratch) < int(n) {
		d.scratch = make([]byte, n)
	}
	b := d.scratch[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		return "", d.fail(err)
	}
	m := d.strs[ti][c]
	if s, ok := m[string(b)]; ok { // no allocation: the compiler looks up with b's bytes
		return s, nil
	}
	if m == nil || len(m) >= internCap {
		m = make(map[string]string)
		d.strs[ti][c] = m
	}
	s := string(b)
	m[s] = s
	return s, nil
}

// fail turns an end of stream inside a batch into errCorrupt.
func (d *rowDecoder) fail(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errCorrupt
	}
	return err
}
