package launch

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// fillBatch gives every table of a batch n rows whose every field is set from seed: the
// spill codec must carry each field of each row type.
func fillBatch(n, seed int) stats.Batch {
	var b stats.Batch
	bv := reflect.ValueOf(&b).Elem()
	for i := 0; i < bv.NumField(); i++ {
		rows := reflect.MakeSlice(bv.Field(i).Type(), n, n)
		for r := 0; r < n; r++ {
			row := rows.Index(r)
			for c := 0; c < row.NumField(); c++ {
				v := seed*1000 + r*31 + c
				switch f := row.Field(c); f.Kind() {
				case reflect.String:
					f.SetString(fmt.Sprintf("s%d", v%7)) // repeated values, as device names are
				case reflect.Float64:
					f.SetFloat(float64(v) / 3)
				case reflect.Bool:
					f.SetBool(v%2 == 1)
				default:
					f.SetInt(int64(v - 500))
				}
			}
		}
		bv.Field(i).Set(rows)
	}
	return b
}

// TestRowCodecRoundTrip: batches decoded one after the other into one reused Batch, as
// writeSpilled does, equal the batches encoded, whatever the last batch held (more rows,
// values where these are zero, tables these do not have), and NaN and infinities pass.
func TestRowCodecRoundTrip(t *testing.T) {
	withNaN := fillBatch(2, 3)
	withNaN.Messages[0].Slowdown = math.NaN()
	withNaN.Messages[1].IdealUsec = math.Inf(1)
	batches := []stats.Batch{
		fillBatch(3, 1),
		fillBatch(1, 2),
		{NdStats: []stats.NdStats{{JobID: "j"}}}, // zero fields where the last batch had values
		{},
		withNaN,
		fillBatch(5, 4),
	}
	var buf bytes.Buffer
	enc := rowEncoder{w: &buf}
	for i := range batches {
		if err := enc.encode(&batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	dec := rowDecoder{r: bufio.NewReader(&buf)}
	var b stats.Batch
	for i, want := range batches {
		if err := dec.decode(&b); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		gv, wv := reflect.ValueOf(b), reflect.ValueOf(want)
		for f := 0; f < gv.NumField(); f++ {
			got, exp := gv.Field(f), wv.Field(f)
			if got.Len() != exp.Len() {
				t.Fatalf("batch %d: %s has %d rows, want %d", i, gv.Type().Field(f).Name, got.Len(), exp.Len())
			}
			for r := 0; r < got.Len(); r++ {
				if g, w := fmt.Sprintf("%+v", got.Index(r)), fmt.Sprintf("%+v", exp.Index(r)); g != w {
					t.Errorf("batch %d: %s row %d decoded as\n%s, want\n%s", i, gv.Type().Field(f).Name, r, g, w)
				}
			}
		}
	}
	if err := dec.decode(&b); err != io.EOF {
		t.Errorf("after the last batch: %v, want io.EOF", err)
	}
}

// TestRowCodecTruncated: a spill that ends inside a batch is an error, never a short
// replay.
func TestRowCodecTruncated(t *testing.T) {
	var buf bytes.Buffer
	b := fillBatch(4, 1)
	if err := (&rowEncoder{w: &buf}).encode(&b); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	for _, cut := range []int{1, len(data) / 2, len(data) - 1} {
		dec := rowDecoder{r: bufio.NewReader(bytes.NewReader(data[:cut]))}
		var got stats.Batch
		if err := dec.decode(&got); !errors.Is(err, errCorrupt) {
			t.Errorf("cut at %d of %d bytes: %v, want %v", cut, len(data), err, errCorrupt)
		}
	}
}

// TestRowCodecReplayAllocs: once a replay has seen a batch's shape and its strings,
// decoding the next batches allocates nothing, however many rows they hold (the memory
// of a long job's replay stays flat), and encoding allocates nothing either.
func TestRowCodecReplayAllocs(t *testing.T) {
	b := fillBatch(64, 1)
	var buf bytes.Buffer
	enc := rowEncoder{w: &buf}
	if err := enc.encode(&b); err != nil { // grows the encoder's buffer
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() {
		buf.Reset()
		if err := enc.encode(&b); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("encoding a batch of %d rows: %v allocations, want 0", b.Rows(), a)
	}
	one := append([]byte(nil), buf.Bytes()...)
	stream := bytes.Repeat(one, 40)
	r := bytes.NewReader(stream)
	dec := rowDecoder{r: bufio.NewReader(r)}
	var got stats.Batch
	if err := dec.decode(&got); err != nil { // the first batch: rows and strings allocated
		t.Fatal(err)
	}
	if a := testing.AllocsPerRun(20, func() {
		if err := dec.decode(&got); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("decoding a batch of %d rows: %v allocations, want 0", got.Rows(), a)
	}
}

// TestRowCodecOneTable: decodeTable gives, batch after batch, the rows of its one table
// that decode gives, every other table of the batch empty, for every table.
func TestRowCodecOneTable(t *testing.T) {
	batches := []stats.Batch{
		fillBatch(3, 1),
		{},
		{Messages: fillBatch(2, 2).Messages},
		fillBatch(2*chunkRows+5, 3), // encoded as three batches
	}
	var buf bytes.Buffer
	enc := rowEncoder{w: &buf}
	for i := range batches {
		if err := enc.encode(&batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	var whole []stats.Batch
	dec := rowDecoder{r: bufio.NewReader(bytes.NewReader(buf.Bytes()))}
	for {
		var b stats.Batch // fresh: each batch kept
		if err := dec.decode(&b); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		whole = append(whole, b)
	}
	for _, tb := range batchTables {
		dec := rowDecoder{r: bufio.NewReader(bytes.NewReader(buf.Bytes()))}
		var got stats.Batch // reused, as a replay does
		for k := 0; ; k++ {
			err := dec.decodeTable(&got, tb.field)
			if err == io.EOF {
				if k != len(whole) {
					t.Errorf("field %d: %d batches, want %d", tb.field, k, len(whole))
				}
				break
			}
			if err != nil {
				t.Fatalf("field %d, batch %d: %v", tb.field, k, err)
			}
			gv, wv := reflect.ValueOf(got), reflect.ValueOf(whole[k])
			for f := 0; f < gv.NumField(); f++ {
				switch {
				case f == tb.field && (gv.Field(f).Len() > 0 || wv.Field(f).Len() > 0) && !reflect.DeepEqual(gv.Field(f).Interface(), wv.Field(f).Interface()):
					t.Errorf("field %d, batch %d: rows differ from decode's", f, k)
				case f != tb.field && gv.Field(f).Len() != 0:
					t.Errorf("decoding field %d, batch %d: field %d holds %d rows, want none", tb.field, k, f, gv.Field(f).Len())
				}
			}
		}
	}
}
