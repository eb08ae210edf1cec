package launch

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sync"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
)

// A job's rows leave it while it runs: the job hands each batch of rows
// (stats.Recorder.Spill) to its spill. The spill holds a small job's rows in memory, up
// to holdRows; only a job whose rows pass that bound gets a spill file of its own,
// DIR/.spill-SHARD/ID.rows, a stream of stats.Batch values (rowcodec.go): the rows held so
// far as its first batch, then each batch as it comes. When the job ends ok, the one sink
// goroutine writes its rows into the shared part files table by table (writeSpilled):
// the table's rows of the file, then those the spill still held (a job run in a worker
// sends those in its response), then those the job's recorder still held; then it records
// the job. So each table gets the job's rows in the order the job produced them. A
// failed, timed-out or abandoned job's spill is dropped, file and held rows. So a job's
// memory holds at most holdRows rows beyond the batch its recorder fills, and the
// journal's all-or-nothing rule per job stands: rows reach the part files only with their
// job's jobs row, in the same commit. Spill files are temporary: Run removes the folder at
// its start (under the shard lock) and at its end.

// spillDir is the folder of the spill files of a shard.
func spillDir(dir string, sh sweep.Shard) string { return filepath.Join(dir, ".spill-"+sh.Tag()) }

// spillPath is the spill file of job j.
func spillPath(dir string, sh sweep.Shard, j *sweep.Job) string {
	return filepath.Join(spillDir(dir, sh), j.ID+".rows")
}

// spillBuffer is the buffer of a spill file's writer and reader: a few batches (~10 KB
// each, stats.DefaultBatchRows), enough for few large writes, small enough not to weigh
// on a job's footprint.
const spillBuffer = 64 << 10

// hooks are where the tests reach into how jobs run (Options.hooks, serveWorker); the
// zero value is what runs in use. A field of a run's options, not a package variable,
// so that tests that set them run in parallel with the others.
type hooks struct {
	// openSpill opens a spill file; nil: dirfs.OpenFile (never through a link). The
	// fault tests fail it as a full disk or an exhausted file table does.
	openSpill func(name string, flag int, perm os.FileMode) (*os.File, error)
}

// spillOpener is h's openSpill, else dirfs.OpenFile.
func (h hooks) spillOpener() func(name string, flag int, perm os.FileMode) (*os.File, error) {
	if h.openSpill != nil {
		return h.openSpill
	}
	return dirfs.OpenFile
}

// errAbandoned is what a job that goes on after it was abandoned gets from its spill.
var errAbandoned = errors.New("the job was abandoned")

// holdRows is the rows a spill holds in memory before it makes a file: 4,096 rows,
// 0.4-2.5 MB (a row is 88-624 bytes in memory, and its strings), a few MB at most on a
// job's footprint and on the runner's, which holds a finished job's rows until it
// records them. Most jobs of a sweep stay under it, so they never pay for a file: its
// creation and removal, and the encoding of their rows by the job and their decoding by
// the runner. Options.SpillEveryRow makes it 0.
const holdRows = 4096

// spill is one job's rows on their way out of it: held in memory (held) while they stay
// at or under hold rows, then in a file created at the batch that would pass the bound.
// It is safe for concurrent use: a job abandoned by its deadline may still emit while the
// runner discards it.
//
// Every error of the spill is final: the first one is kept (err) and returned by every
// later write and by close, so a job whose rows could not all be written can never be
// recorded ok. maxBytes bounds the file (--max-disk-per-job; 0 = no bound); held rows
// are not on disk.
type spill struct {
	mu       sync.Mutex
	path     string
	maxBytes int64
	share    bool        // maxBytes is a share of the free space (DiskBudgetError.Share)
	hold     int         // rows it may hold before it makes the file (newSpill: holdRows)
	hooks    hooks       // the tests' (zero: a spill file opens with dirfs.OpenFile)
	held     stats.Batch // the rows emitted so far, while there is no file; copies
	f        *os.File
	cw       *countingWriter
	bw       *bufio.Writer
	enc      rowEncoder
	done     bool
	err      error
}

// newSpill returns the spill of a job whose file would be path, holding up to holdRows
// rows in memory.
func newSpill(path string, maxBytes int64, share bool, h hooks) *spill {
	return &spill{path: path, maxBytes: maxBytes, share: share, hold: holdRows, hooks: h}
}

// heldPool keeps the memory of rows the runner has written from an outcome's held (a
// spill's, or a worker's response's), for the next job's: the held rows of a job run
// in-process are copied into it, a worker's response decoded into it, so that a sweep
// of small jobs does not allocate its rows anew for every job. Its batches have empty,
// zeroed tables (clearBatch): gob decodes into them, and leaves zero fields out.
var heldPool sync.Pool // of *stats.Batch

// heldMemory returns empty tables whose memory held rows already written, if any.
func heldMemory() stats.Batch {
	if b, ok := heldPool.Get().(*stats.Batch); ok {
		return *b
	}
	return stats.Batch{}
}

// freeHeld hands the memory of rows written to the next heldMemory.
func freeHeld(b stats.Batch) {
	clearBatch(&b)
	heldPool.Put(&b)
}

// countingWriter counts the bytes written through it and refuses to go past max.
type countingWriter struct {
	w     io.Writer
	n     int64
	max   int64 // 0: no bound
	share bool  // max is a share of the free space
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.max > 0 && c.n+int64(len(p)) > c.max {
		return 0, &DiskBudgetError{Max: c.max, Share: c.share}
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// DiskBudgetError is a job whose rows outgrew its disk budget (--max-disk-per-job): the
// job fails with this reason.
//
// Share says that the budget was not given but taken from the free space of the results
// directory's file system when the run started (ParseMaxDisk's default): the job then
// did not fail, the disk is nearly full (machineCause), and --resume runs it again.
type DiskBudgetError struct {
	Max   int64
	Share bool
}

func (e *DiskBudgetError) Error() string {
	if e.Share {
		return fmt.Sprintf("the job's rows outgrew its share of the free disk space, %s (the free space of the results directory's file system when the run started, less a fifth, over -j)", config.FormatBytes(config.Bytes(e.Max)))
	}
	return fmt.Sprintf("the job's rows outgrew its disk budget of %s (--max-disk-per-job): lower its report intervals, duration or traffic, or raise the budget", config.FormatBytes(config.Bytes(e.Max)))
}

func (s *spill) write(b stats.Batch) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return errAbandoned
	}
	if s.err != nil {
		return s.err
	}
	if b.Rows() == 0 {
		return nil
	}
	s.err = s.writeLocked(b)
	return s.err
}

func (s *spill) writeLocked(b stats.Batch) error {
	if s.f == nil && s.held.Rows()+b.Rows() <= s.hold {
		appendBatch(&s.held, b) // a copy: the recorder reuses b's slices
		return nil
	}
	if s.f == nil {
		// Never through a link (docs/results.md §9): neither a spill folder nor a spill
		// file that is one.
		dir := filepath.Dir(s.path)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("spill folder: %w", err)
		}
		if err := dirfs.CheckNotLink(dir); err != nil {
			return err
		}
		f, err := s.hooks.spillOpener()(s.path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return fmt.Errorf("spill %s: %w", s.path, err)
		}
		s.f, s.cw = f, &countingWriter{w: f, max: s.maxBytes, share: s.share}
		s.bw = bufio.NewWriterSize(s.cw, spillBuffer)
		s.enc = rowEncoder{w: s.bw}
		held := s.held
		s.held = stats.Batch{} // the file holds them now
		if held.Rows() > 0 {
			if err := s.encode(&held); err != nil {
				return err
			}
		}
	}
	return s.encode(&b)
}

func (s *spill) encode(b *stats.Batch) error {
	if err := s.enc.encode(b); err != nil {
		var be *DiskBudgetError
		if errors.As(err, &be) {
			return be
		}
		return fmt.Errorf("spill %s: %w", s.path, err)
	}
	return nil
}

// close ends the spill. It returns the path of its file, or "" when it made none, and
// the rows it held, which the runner writes after the file's: all the rows emitted when
// there is no file, none when there is one.
func (s *spill) close() (path string, held stats.Batch, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	held, s.held = s.held, stats.Batch{}
	if s.f == nil {
		if s.err != nil {
			return "", stats.Batch{}, s.err // a spill that could not even be created
		}
		return "", held, nil
	}
	err = s.bw.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	s.f = nil
	if s.err != nil {
		err = s.err
	}
	if err != nil {
		os.Remove(s.path)
		var be *DiskBudgetError
		if errors.As(err, &be) || s.err != nil {
			return "", stats.Batch{}, err
		}
		return "", stats.Batch{}, fmt.Errorf("spill %s: %w", s.path, err)
	}
	return s.path, held, nil
}

// discard ends and removes the file.
func (s *spill) discard() {
	s.close()
	os.Remove(s.path)
}

// appendBatch appends a copy of every table's rows of b to dst's (rows hold no
// pointers: TestRowsSurviveGob).
func appendBatch(dst *stats.Batch, b stats.Batch) {
	dst.NdStats = append(dst.NdStats, b.NdStats...)
	dst.EcnPfcStats = append(dst.EcnPfcStats, b.EcnPfcStats...)
	dst.RoceTransportStats = append(dst.RoceTransportStats, b.RoceTransportStats...)
	dst.BufferStats = append(dst.BufferStats, b.BufferStats...)
	dst.PortBufferStats = append(dst.PortBufferStats, b.PortBufferStats...)
	dst.NetBuffStats = append(dst.NetBuffStats, b.NetBuffStats...)
	dst.LbStats = append(dst.LbStats, b.LbStats...)
	dst.Messages = append(dst.Messages, b.Messages...)
	dst.Classes = append(dst.Classes, b.Classes...)
	dst.Topology = append(dst.Topology, b.Topology...)
	dst.TierHop = append(dst.TierHop, b.TierHop...)
	dst.Collectives = append(dst.Collectives, b.Collectives...)
}

// writeBatch writes the rows of b into the record tables.
func writeBatch(w *sink.Writer, b stats.Batch) error {
	for _, t := range resultsdir.RecordTables {
		if err := w.Write(t.Name, t.Rows(b)); err != nil {
			return err
		}
	}
	return nil
}

// writeSpilled writes the rows of a finished job that made a spill file (path) into the
// record tables: table by table, the table's rows of the file, then its rows in held
// (those the spill still held) and in rec (those the job's recorder held at its end),
// so that each table gets the job's rows in the order the job produced them. After a
// table that the job gave groupEndRows rows or more, it ends the table's row group
// (sink.Writer.EndGroup): so the writer holds the open row group of one large table of
// the job at a time, not of all of them at once, and a long job's peak memory is that of
// its largest table's page buffers rather than of every table's. Each table is one pass
// over the file that decodes only its rows (rowDecoder.decodeTable), one batch in memory
// at a time, decoded into the memory of the one before: a job's rows cost the replay no
// allocation per row, whatever their number. A spill that does not decode aborts the
// writer's open commit (sink.Writer.Abort): some of its rows may already be in the open
// files.
func writeSpilled(w *sink.Writer, path string, held, rec stats.Batch) error {
	var b stats.Batch // one batch's memory, reused for every batch of the file
	for i, t := range resultsdir.RecordTables {
		n, err := replayTable(w, path, t, recordFields[i], &b)
		if err != nil {
			return err
		}
		for _, rows := range []any{t.Rows(held), t.Rows(rec)} {
			if err := w.Write(t.Name, rows); err != nil {
				return err
			}
			n += reflect.ValueOf(rows).Len()
		}
		if n >= groupEndRows {
			if err := w.EndGroup(t.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// groupEndRows is the rows of one table from one spilled job after which writeSpilled
// ends the table's row group: a page of a number column (the sink's page buffer), so
// that a row group it ends holds at least full pages.
const groupEndRows = 4096

// replayTable writes the rows of table t (of stats.Batch field field) in the spill file
// path into the record tables, decoding batches into b, and returns their number.
func replayTable(w *sink.Writer, path string, t resultsdir.RecordTable, field int, b *stats.Batch) (int, error) {
	f, err := dirfs.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return 0, w.Abort(fmt.Errorf("reading the rows of a finished job: %w", err))
	}
	defer f.Close()
	dec := rowDecoder{r: bufio.NewReaderSize(f, spillBuffer)}
	n := 0
	for {
		// What the sink allocates as it writes rows (its encoding) is collected every
		// replayGarbage bytes, so that a job's rows cost the process the same memory at
		// any count.
		memory.CollectGarbage(replayGarbage)
		err := dec.decodeTable(b, field)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, w.Abort(fmt.Errorf("reading the rows of a finished job from %s: %w", path, err))
		}
		rows := t.Rows(*b)
		if err := w.Write(t.Name, rows); err != nil {
			return n, err
		}
		n += reflect.ValueOf(rows).Len()
	}
}

// recordFields are the stats.Batch field of each of resultsdir.RecordTables, in order.
var recordFields = func() []int {
	bt := reflect.TypeFor[stats.Batch]()
	out := make([]int, len(resultsdir.RecordTables))
	for i, t := range resultsdir.RecordTables {
		rt := reflect.TypeOf(t.Rows(stats.Batch{}))
		out[i] = -1
		for f := 0; f < bt.NumField(); f++ {
			if bt.Field(f).Type == rt {
				out[i] = f
			}
		}
		if out[i] < 0 {
			panic(fmt.Sprintf("sweep: record table %s: no field of stats.Batch holds its rows (%v)", t.Name, rt))
		}
	}
	return out
}()

// replayGarbage is the garbage writeSpilled lets pile up before it collects: 512 KiB. It
// is what a job of many rows holds beyond a job of few (whose replay is never
// collected), so it is kept small; each collection marks only the open writers
// (docs/performance.md "Constants chosen by measurement").
const replayGarbage = 512 << 10

// clearBatch empties every table of b and zeroes the rows its slices held. gob decodes a
// batch into b's slices when they are large enough and leaves out zero fields and empty
// tables, so that a decode into a reused b could otherwise keep values of the last batch.
func clearBatch(b *stats.Batch) {
	v := reflect.ValueOf(b).Elem()
	for i := 0; i < v.NumField(); i++ {
		if f := v.Field(i); f.Kind() == reflect.Slice {
			f.Slice(0, f.Cap()).Clear()
			f.SetLen(0)
		}
	}
}
