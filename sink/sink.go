// Package sink writes the rows of a sweep into a results directory (design.md "Results
// directory"): one folder per table, Parquet (parquet-go, zstd, dictionary-encoded
// strings) or Arrow IPC files (arrow/go/v17), and a journal of finished jobs. It knows
// rows, not devices: a table is a name and a flat struct type (see Table).
//
// # Durability: commits
//
// Rows go into one temporary file per table (".part-SHARD-NNNNNN.parquet.tmp"; the
// leading dot hides it from DuckDB globs and pyarrow datasets). A commit closes those
// files, fsyncs them, renames them to "part-SHARD-NNNNNN.parquet", fsyncs the folders,
// and only then appends to the journal, in one write followed by fsync, one line per
// job of the commit and a closing commit line:
//
//	{"job_id":"4f0c…","status":"ok","commit":3,"crc":"…"}
//	{"job_id":"91ab…","status":"failed","commit":3,"crc":"…"}
//	{"commit":3,"jobs":2,"files":["jobs/part-1of1-000003.parquet", …],"sums":[…],"crc":"…"}
//
// Every line ends with a checksum of its own content (journal.go, "Line checksums"), so
// an edited or damaged line is skipped, never read as a record of another job.
//
// A job counts as done only when its commit line is in the journal. A process killed at
// any moment leaves either a complete commit or debris that Open(Resume) removes: temp
// files, renamed files of a commit with no commit line, and a torn journal tail. So every
// job is, after a resume, in the tables exactly once. Open(Resume) also removes strays,
// files in the table folders that no commit names (removeStrays), and readers read only
// the files commits name (Files, CommittedFiles), so that a stray is never counted.
//
// A commit happens when the open files reach Options.FileBytes (this is how files are
// rotated by size), when jobs have waited Options.CommitInterval, and at Close.
//
// A Writer is not safe for concurrent use: the sweep runner gives it to one goroutine.
package sink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// Format is the file format of the tables.
type Format string

const (
	Parquet Format = "parquet"
	Arrow   Format = "arrow"
)

// Options configure a Writer. The zero value of each field means its default.
type Options struct {
	Dir    string // results directory; created if missing
	Format Format // Parquet (default) or Arrow
	// Shard tags file names and the journal so that N processes can write side by side
	// into one directory: "2of3". Default "1of1".
	Shard string
	// Resume keeps the journal's finished jobs and removes debris of an interrupted run;
	// without it Open refuses a directory that already holds results of this shard.
	Resume bool
	// FileBytes commits (and so rotates to new files) once the open files of the
	// commit hold this many bytes. Default 64 MiB.
	FileBytes int64
	// RowGroupRows is the number of rows per row group (Parquet) or record batch (Arrow).
	// Default 65,536.
	RowGroupRows int
	// RowGroupBytes ends a table's row group (record batch) early once it holds this
	// many bytes in memory (Parquet: parquet-go's estimate of its encoded pages and
	// values not yet encoded; Arrow: the builders' values). So a writer's memory is at
	// most one bounded row group per table, however many rows pass. Default 4 MiB.
	RowGroupBytes int64
	// CommitInterval commits jobs that have waited this long (checked at JobDone and
	// Tick). Default 10 s; a negative value commits after every job.
	CommitInterval time.Duration
	// Retry, with Resume, withdraws the commits that hold a job of one of these statuses
	// ("failed", "timeout"), so that those jobs run again; the runner commits such jobs
	// alone, so their commits hold nothing else.
	Retry []string
	FS    FS               // nil: the operating system
	Now   func() time.Time // nil: time.Now
}

// JobLine is a finished job as the journal records it.
type JobLine struct {
	ID     string `json:"job_id"`
	Status string `json:"status"`
}

// Stats counts what a Writer has committed in this process.
type Stats struct {
	Commits int
	Jobs    int
	Rows    int64
	Bytes   int64 // bytes of the renamed files
	Files   int
}

// Recovery says what Open(Resume) found and cleaned.
type Recovery struct {
	Done           int   // jobs in complete commits of the journal
	RemovedFiles   int   // temp files and files of commits without a commit line
	TruncatedBytes int64 // torn journal tail dropped
	// Damaged lists committed files found missing or damaged (size, checksum, a link):
	// their commits are withdrawn (a void line), their files removed and their jobs run
	// again.
	Damaged []FileProblem
	// DamagedLines are the journal lines that do not count (they do not parse, their
	// checksum fails or is missing: journal.go); each costs its commit at most, and the
	// journal is written anew without them.
	DamagedLines []int
	// Strays are the files of the table folders (relative, with /) that no commit named
	// and that were not this shard's: files of no shard ("jobs/extra.parquet") and
	// leftovers of other shards not being written now. They are removed (and counted in
	// RemovedFiles).
	Strays []string
	// Retried counts the jobs of an Options.Retry status whose commits were withdrawn;
	// Withdrawn the jobs of those commits (Retried and any others they held).
	Retried, Withdrawn int
}

// Writer writes tables into a results directory. See the package doc for the protocol.
type Writer struct {
	opts     Options
	fs       FS
	ext      string
	tables   []*tableFile
	byName   map[string]*tableFile
	journal  File
	unlock   func() error // releases the shard lock (lock.go)
	jpath    string
	jsize    int64 // bytes of the journal that are complete commits
	commit   int   // number of the commit being filled
	pending  []JobLine
	since    time.Time // when the oldest pending job finished
	done     map[string]string
	voids    []int // commits to withdraw (damaged files) once the journal is open
	recovery Recovery
	stats    Stats
	err      error // sticky: after a failed commit the Writer refuses more work
	newDirs  bool  // an entry of the results folder (a table folder, the journal) awaits its fsync
}

// tableFile is the open temp file of one table in the current commit.
type tableFile struct {
	Table
	dir  string
	tmp  string
	f    File
	cw   *countingFile
	pq   parquetRows
	ar   *arrowRows
	rows int64 // rows in the open file
	grp  int   // rows in the open row group
	made bool  // the folder exists (openFile made it or found it)
}

// JournalName is the journal file of a shard: "journal.jsonl" for "1of1", else
// "journal-KofN.jsonl".
func JournalName(shard string) string {
	if shard == "" || shard == "1of1" {
		return "journal.jsonl"
	}
	return "journal-" + shard + ".jsonl"
}

// journalRE matches the file names JournalName makes.
var journalRE = regexp.MustCompile(`^journal(?:-([0-9]+)of([0-9]+))?\.jsonl$`)

// ParseJournalName is the inverse of JournalName for a file name without directory:
// "journal-2of3.jsonl" is shard 2 of 3, "journal.jsonl" shard 1 of 1. ok is false for
// any other name, and for a shard outside 1 <= k <= n.
func ParseJournalName(name string) (k, n int, ok bool) {
	m := journalRE.FindStringSubmatch(name)
	if m == nil {
		return 0, 0, false
	}
	if m[1] == "" {
		return 1, 1, true
	}
	k, err1 := strconv.Atoi(m[1])
	n, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || k < 1 || k > n {
		return 0, 0, false
	}
	return k, n, true
}

// ErrExists is returned by Open without Resume when the directory already holds results
// of this shard.
var ErrExists = errors.New("already holds results")

// Open prepares dir for writing tables. It creates the folders and the journal, so an
// unwritable directory fails here, before any job runs. With Resume it reads the journal
// (Done), drops a torn tail and removes this shard's debris (see Recovery).
func Open(opts Options, tables []Table) (*Writer, error) {
	if opts.Format == "" {
		opts.Format = Parquet
	}
	if opts.Format != Parquet && opts.Format != Arrow {
		return nil, fmt.Errorf("format %q: want parquet or arrow", opts.Format)
	}
	if opts.Shard == "" {
		opts.Shard = "1of1"
	}
	if opts.FileBytes <= 0 {
		opts.FileBytes = 64 << 20
	}
	if opts.RowGroupRows <= 0 {
		opts.RowGroupRows = 1 << 16
	}
	if opts.RowGroupBytes <= 0 {
		opts.RowGroupBytes = 4 << 20
	}
	if opts.CommitInterval == 0 {
		opts.CommitInterval = 10 * time.Second
	}
	if opts.FS == nil {
		opts.FS = OS{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &Writer{opts: opts, fs: opts.FS, ext: "." + string(opts.Format), byName: map[string]*tableFile{},
		done: map[string]string{}, jpath: filepath.Join(opts.Dir, JournalName(opts.Shard))}
	if err := w.fs.MkdirAll(opts.Dir); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	// One writer per shard (lock.go), taken before recover removes any debris.
	unlock, err := w.fs.Lock(LockName(opts.Dir, opts.Shard))
	var le *LockedError
	if errors.As(err, &le) {
		return nil, fmt.Errorf("output directory %s: shard %s is being written by another rocesweep (%s); wait for it to end, or use another -o", opts.Dir, opts.Shard, le.Holder)
	}
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	w.unlock = unlock
	if err := w.open(tables); err != nil {
		unlock()
		return nil, err
	}
	return w, nil
}

// open makes the table folders, recovers the journal and opens it for appending.
func (w *Writer) open(tables []Table) error {
	opts := w.opts
	for _, t := range tables {
		if w.byName[t.Name] != nil {
			return fmt.Errorf("table %s registered twice", t.Name)
		}
		// A table's folder is made with its first file (openFile): a table that gets no
		// rows has no folder, rather than an empty one that a DuckDB glob fails on.
		tf := &tableFile{Table: t, dir: filepath.Join(opts.Dir, t.Name)}
		w.tables = append(w.tables, tf)
		w.byName[t.Name] = tf
	}
	if err := w.recover(); err != nil {
		return err
	}
	j, err := w.fs.OpenAppend(w.jpath)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	w.journal = j
	if len(w.voids) > 0 {
		// Withdraw the commits whose files recover found missing or damaged (it has
		// removed what was left of them): their jobs are not done.
		var buf bytes.Buffer
		for _, n := range w.voids {
			buf.Write(sealLine(fmt.Appendf(nil, `{"void":%d}`, n)))
			buf.WriteByte('\n')
		}
		_, err := j.Write(buf.Bytes())
		if err == nil {
			err = j.Sync()
		}
		if err != nil {
			j.Close()
			return fmt.Errorf("appending to %s: %w", w.jpath, err)
		}
		w.jsize += int64(buf.Len())
	}
	if len(w.voids) == 0 {
		// The journal's name (a new file) becomes durable with the first commit's folder
		// fsyncs, which run together and before the commit's journal line: nothing in
		// the journal counts before then, so an fsync of its own here only costs time.
		w.newDirs = true
		return nil
	}
	if err := w.fs.SyncDir(opts.Dir); err != nil {
		j.Close()
		return fmt.Errorf("output directory: %w", err)
	}
	return nil
}

// partRE matches this package's file names: part-SHARD-NNNNNN.EXT and the temp
// .part-SHARD-NNNNNN.EXT.tmp.
var partRE = regexp.MustCompile(`^(\.)?part-([0-9]+of[0-9]+)-([0-9]+)\.(parquet|arrow)(\.tmp)?$`)

// recover reads the journal and removes debris of this shard; without Resume it refuses
// a directory with results of this shard.
func (w *Writer) recover() error {
	data, err := w.fs.ReadFile(w.jpath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("output directory: %w", err)
	}
	st := parseJournal(data, parseOpts{shard: w.opts.Shard, strict: w.opts.Resume})
	valid := st.valid
	w.jsize = valid
	w.commit = st.last + 1
	complete := st.complete
	if w.opts.Resume {
		// Verified results (issue 14 item 7): a commit whose files are missing or
		// damaged is withdrawn; its files are debris, its jobs run again.
		for _, c := range st.commits {
			if probs := checkCommit(w.fs, w.opts.Dir, c, true); len(probs) > 0 {
				w.recovery.Damaged = append(w.recovery.Damaged, probs...)
				w.voids = append(w.voids, c.n)
				delete(complete, c.n)
			}
		}
		w.recovery.DamagedLines = st.damaged
		for _, c := range st.commits {
			retry := 0
			for _, j := range c.jobs {
				if slices.Contains(w.opts.Retry, j.Status) {
					retry++
				}
			}
			if retry > 0 && complete[c.n] != nil {
				w.voids = append(w.voids, c.n)
				delete(complete, c.n)
				w.recovery.Retried += retry
				w.recovery.Withdrawn += len(c.jobs)
			}
		}
	}
	// A file of this shard is committed only if a complete commit names it (a file of
	// commit n in another table folder, or of the other format, is not). Files of other
	// shards, and files of no shard, are strays (removeStrays).
	named := map[string]bool{}
	for _, c := range complete {
		for _, f := range c.files {
			named[f] = true
		}
	}
	var debris []string
	others := map[string][]string{} // shard → its files (relative, with /)
	var foreign []string            // files of no shard (relative, with /)
	for _, t := range w.tables {
		entries, err := w.fs.ReadDir(t.dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue // no rows yet
		}
		if err != nil {
			return fmt.Errorf("output directory: %w", err)
		}
		for _, e := range entries {
			rel := t.Name + "/" + e.Name()
			m := partRE.FindStringSubmatch(e.Name())
			switch {
			case e.IsDir():
				continue // a folder is not a part; status --verify names it
			case m == nil && strings.HasPrefix(e.Name(), "."):
				continue // hidden and not the sink's: no reader sees it
			case m == nil:
				foreign = append(foreign, rel)
				continue
			case m[2] != w.opts.Shard:
				others[m[2]] = append(others[m[2]], rel)
				continue
			}
			n, _ := strconv.Atoi(m[3])
			w.commit = max(w.commit, n+1)
			if m[1] == "" && m[5] == "" && named[rel] {
				continue // a committed file
			}
			debris = append(debris, filepath.Join(t.dir, e.Name()))
		}
	}
	if !w.opts.Resume {
		if len(data) > 0 || len(debris) > 0 {
			return fmt.Errorf("output directory %s %w of shard %s (%s); use --resume to continue it or choose another directory", w.opts.Dir, ErrExists, w.opts.Shard, JournalName(w.opts.Shard))
		}
		return nil
	}
	for _, name := range debris {
		if err := w.fs.Remove(name); err != nil {
			return fmt.Errorf("removing leftover %s: %w", name, err)
		}
		w.recovery.RemovedFiles++
	}
	if err := w.removeStrays(foreign, others); err != nil {
		return err
	}
	if len(st.damaged) > 0 || len(st.broken) > 0 {
		// Lines that can never count again (damaged lines, commits that cannot be
		// complete) are dropped: the journal is written anew with exactly the commits
		// that stand, under a temp name renamed over it, so that once their jobs have run
		// again `status --verify` finds nothing left to report.
		var buf bytes.Buffer
		for _, c := range st.commits {
			if complete[c.n] != nil {
				appendCommit(&buf, c.n, c.jobs, c.files, c.sums)
			}
		}
		if err := WriteFileAtomic(w.fs, w.jpath, "", buf.Bytes()); err != nil {
			return fmt.Errorf("writing %s without its damaged lines: %w", w.jpath, err)
		}
		w.jsize, w.voids = int64(buf.Len()), nil
	} else if valid < int64(len(data)) {
		if err := w.fs.Truncate(w.jpath, valid); err != nil {
			return fmt.Errorf("dropping the torn tail of %s: %w", w.jpath, err)
		}
		w.recovery.TruncatedBytes = int64(len(data)) - valid
	}
	for _, c := range st.commits {
		if complete[c.n] == nil {
			continue
		}
		for _, j := range c.jobs {
			w.done[j.ID] = j.Status
		}
	}
	w.recovery.Done = len(w.done)
	return nil
}

// removeStrays removes the files of the table folders that no commit names: foreign
// (files of no shard, e.g. "extra.parquet") and, per other shard, that shard's files
// that no complete commit of its journal names. Another shard's files are judged and
// removed only while holding that shard's lock (lock.go): a writer of it holds the
// lock from before its first temp file until after its last journal append, so no file
// between a rename and its commit line is removed; a shard being written now is left
// alone (its own --resume cleans it).
func (w *Writer) removeStrays(foreign []string, others map[string][]string) error {
	remove := func(rel string) error {
		name := filepath.Join(w.opts.Dir, filepath.FromSlash(rel))
		err := w.fs.Remove(name)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // gone meanwhile (committed under another name, or cleaned)
		}
		if err != nil {
			return fmt.Errorf("removing stray %s: %w", name, err)
		}
		w.recovery.RemovedFiles++
		w.recovery.Strays = append(w.recovery.Strays, rel)
		return nil
	}
	for _, rel := range foreign {
		if err := remove(rel); err != nil {
			return err
		}
	}
	shards := make([]string, 0, len(others))
	for sh := range others {
		shards = append(shards, sh)
	}
	slices.Sort(shards)
	for _, sh := range shards {
		if err := w.removeStraysOf(sh, others[sh], remove); err != nil {
			return err
		}
	}
	return nil
}

// removeStraysOf removes the files (relative) of shard that its journal's complete
// commits do not name, under shard's lock; nothing when a writer of shard holds it.
//
// The lock is held only for a moment: a writer of shard starting meanwhile waits for it
// (OS.Lock retries for 200 ms) rather than failing. So the journal is parsed before, and
// under the lock only read again and compared, parsed anew only if it changed.
func (w *Writer) removeStraysOf(shard string, files []string, remove func(string) error) error {
	jpath := filepath.Join(w.opts.Dir, JournalName(shard))
	read := func() ([]byte, error) {
		data, err := w.fs.ReadFile(jpath)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		return data, nil
	}
	namedBy := func(data []byte) map[string]bool {
		named := map[string]bool{}
		for _, c := range parseJournal(data, parseOpts{shard: shard}).commits {
			for _, f := range c.files {
				named[f] = true
			}
		}
		return named
	}
	before, err := read()
	if err != nil {
		return err
	}
	named := namedBy(before)
	unlock, err := w.fs.Lock(LockName(w.opts.Dir, shard))
	var le *LockedError
	if errors.As(err, &le) {
		return nil // being written: its files may be about to be committed
	}
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	defer unlock()
	data, err := read()
	if err != nil {
		return err
	}
	if !bytes.Equal(data, before) {
		named = namedBy(data) // a writer of shard committed since
	}
	for _, rel := range files {
		if m := partRE.FindStringSubmatch(path.Base(rel)); m[1] == "" && m[5] == "" && named[rel] {
			continue
		}
		if err := remove(rel); err != nil {
			return err
		}
	}
	return nil
}

// Done returns the jobs of complete commits found by Open(Resume), id → status.
func (w *Writer) Done() map[string]string { return w.done }

// Recovery says what Open(Resume) cleaned.
func (w *Writer) Recovery() Recovery { return w.recovery }

// Stats returns what was committed so far.
func (w *Writer) Stats() Stats { return w.stats }

// JournalPath is the path of this shard's journal.
func (w *Writer) JournalPath() string { return w.jpath }

// Write appends rows (a []T of the table's row type) to table. Empty slices are free.
func (w *Writer) Write(table string, rows any) error {
	if w.err != nil {
		return w.err
	}
	t := w.byName[table]
	if t == nil {
		return fmt.Errorf("sink: unknown table %q", table)
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
			_, err = t.pq.write(part)
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
	t.check()
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
	if w.opts.Format == Arrow {
		t.ar, err = newArrowRows(t.Type, t.cw)
		return err
	}
	t.pq = t.newParquet(t.cw, []parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.CreatedBy("rocesweep", "", ""),
		parquet.PageBufferSize(pageBufferSize),
		parquet.ColumnPageBuffers(pageBuffers{}),
	})
	return nil
}

// pageBufferSize is the Parquet writer's page buffer: a column's values are encoded into
// a page once they fill it. parquet-go reserves a whole buffer for every required column
// of every open file as its first row arrives; at its default (256 KiB) a one-job `sim`,
// ten files of ~150 columns holding a few hundred rows each, reserved 40 MB it never
// filled and spent most of its collections on it. At 32 KiB (4,096 numbers) a one-job
// `sim` of the 1 MiB incast allocates 12 MB instead of 54 MB (−11% instructions), while
// a page of a large table is still large enough for zstd (the bench jobs' files and a
// 100-replicate sweep's come out the same size within 10 bytes). Rows are unchanged;
// only the page boundaries of a table beyond 4,096 rows per row group move.
const pageBufferSize = 32 << 10

// zstdCodec is shared by every file the process writes: its pool of zstd encoders (each
// with hash tables of a few hundred KB) is filled once, not once per file. Its level is
// zstd's fastest: the default level's encoder clears 2.5 MB of match tables before its
// first page, the fastest's a tenth of that, and on our tables it compresses within 1%
// as well (the bench jobs' files: 106,880 -> 106,918 B and 140,906 -> 141,707 B), for
// 1.3-3 MB less peak RSS and 1.6% fewer instructions in a one-job `sim`. The codec is
// zstd as before (docs/results.md names the format, not a level).
var zstdCodec = &zstd.Codec{Level: zstd.SpeedFastest}

func (w *Writer) fileName(commit int) string {
	return fmt.Sprintf("part-%s-%06d%s", w.opts.Shard, commit, w.ext)
}

// JobDone records that every row of job has been written. Its journal line is appended
// at the next commit; JobDone commits if the files are big enough or jobs waited long.
func (w *Writer) JobDone(job JobLine) error {
	if w.err != nil {
		return w.err
	}
	if len(w.pending) == 0 {
		w.since = w.opts.Now()
	}
	w.pending = append(w.pending, job)
	return w.maybeCommit()
}

// Tick commits if pending jobs have waited Options.CommitInterval. The runner calls it
// periodically so that finished jobs become durable while long jobs still run.
func (w *Writer) Tick() error {
	if w.err != nil {
		return w.err
	}
	return w.maybeCommit()
}

func (w *Writer) maybeCommit() error {
	if len(w.pending) == 0 {
		return nil
	}
	var open int64
	for _, t := range w.tables {
		if t.cw != nil {
			open += t.cw.n
		}
	}
	if w.opts.CommitInterval < 0 || open >= w.opts.FileBytes || w.opts.Now().Sub(w.since) >= w.opts.CommitInterval {
		return w.Commit()
	}
	return nil
}

// Commit makes the pending jobs durable: files closed, fsynced, renamed, folders
// fsynced, then the journal lines appended and fsynced. On error nothing of the commit
// counts (the journal is cut back to its last complete commit) and the Writer refuses
// further work; the error says how many jobs the journal holds.
func (w *Writer) Commit() error {
	if w.err != nil {
		return w.err
	}
	if len(w.pending) == 0 {
		return nil
	}
	if err := w.commitFiles(); err != nil {
		w.fail(err)
		return w.err
	}
	return nil
}

func (w *Writer) commitFiles() error {
	var files, dirs []string
	var sums []FileSum
	var nbytes int64
	var rows int64
	// One fsync batch per commit: the open files' footers are written one by one, then
	// all of them are fsynced at once (a journaling file system commits concurrent
	// fsyncs together), then renamed; the folders likewise. The order that makes a commit
	// all-or-nothing is unchanged: files durable, then names, then the journal line.
	// (Finishing the files on a goroutine each, encoding and fsync overlapping, measured
	// worse on two cores: +8 ms of CPU and +2 MB of peak RSS for a one-job `sim`.)
	var open []*tableFile
	for _, t := range w.tables {
		if t.f == nil {
			continue
		}
		var err error
		if t.pq != nil {
			err = t.pq.Close()
		} else {
			err = t.ar.Close()
		}
		if err != nil {
			return fmt.Errorf("writing %s: %w", t.tmp, err)
		}
		open = append(open, t)
	}
	syncErrs := make([]error, len(open))
	syncAll(len(open), func(i int) { syncErrs[i] = open[i].f.Sync() })
	for i, t := range open {
		err := syncErrs[i]
		if cerr := t.f.Close(); err == nil {
			err = cerr
		}
		t.f, t.pq, t.ar = nil, nil, nil
		if err != nil {
			return fmt.Errorf("writing %s: %w", t.tmp, err)
		}
	}
	for _, t := range open {
		final := filepath.Join(t.dir, w.fileName(w.commit))
		if err := w.fs.Rename(t.tmp, final); err != nil {
			return fmt.Errorf("renaming %s: %w", t.tmp, err)
		}
		t.tmp = ""
		files = append(files, filepath.ToSlash(filepath.Join(t.Name, w.fileName(w.commit))))
		sums = append(sums, t.cw.sum())
		dirs = append(dirs, t.dir)
		nbytes += t.cw.n
		rows += t.rows
		t.cw, t.rows, t.grp = nil, 0, 0
	}
	if w.newDirs { // a table folder or the journal made since the last commit: its name must be durable too
		dirs = append(dirs, w.opts.Dir)
		w.newDirs = false
	}
	dirErrs := make([]error, len(dirs))
	syncAll(len(dirs), func(i int) { dirErrs[i] = w.fs.SyncDir(dirs[i]) })
	for i, d := range dirs {
		if dirErrs[i] != nil {
			return fmt.Errorf("syncing %s: %w", d, dirErrs[i])
		}
	}
	var buf bytes.Buffer
	appendCommit(&buf, w.commit, w.pending, files, sums)
	_, err := w.journal.Write(buf.Bytes())
	if err == nil {
		err = w.journal.Sync()
	}
	if err != nil {
		return fmt.Errorf("appending to %s: %w", w.jpath, err)
	}
	w.jsize += int64(buf.Len())
	for _, j := range w.pending {
		w.done[j.ID] = j.Status
	}
	w.stats.Commits++
	w.stats.Jobs += len(w.pending)
	w.stats.Rows += rows
	w.stats.Bytes += nbytes
	w.stats.Files += len(files)
	w.pending = w.pending[:0]
	w.commit++
	return nil
}

// appendCommit appends the journal lines of commit n to buf: a job line per job, then
// the closing line, each with its checksum (journal.go).
func appendCommit(buf *bytes.Buffer, n int, jobs []JobLine, files []string, sums []FileSum) {
	for _, j := range jobs {
		line, _ := json.Marshal(struct {
			JobLine
			Commit int `json:"commit"`
		}{j, n})
		buf.Write(sealLine(line))
		buf.WriteByte('\n')
	}
	marker, _ := json.Marshal(struct {
		Commit int       `json:"commit"`
		Jobs   int       `json:"jobs"`
		Files  []string  `json:"files"`
		Sums   []FileSum `json:"sums"`
	}{n, len(jobs), files, sums})
	buf.Write(sealLine(marker))
	buf.WriteByte('\n')
}

// Abort gives up the open commit because of err, a failure outside the Writer (rows of a
// job that cannot be read after some of them were written): as after a failed commit, the
// directory is left as the last complete commit left it and the Writer refuses more work.
// It returns the sticky *Error.
func (w *Writer) Abort(err error) error {
	if w.err == nil {
		w.fail(err)
	}
	return w.err
}

// fail makes err sticky and leaves the directory as the last complete commit left it:
// temp files removed, files renamed by the failed commit removed, journal cut back.
func (w *Writer) fail(err error) {
	for _, t := range w.tables {
		if t.f != nil {
			t.f.Close()
			t.f, t.pq, t.ar, t.cw = nil, nil, nil, nil
		}
		if t.tmp != "" {
			_ = w.fs.Remove(t.tmp)
			t.tmp = ""
		}
		_ = w.fs.Remove(filepath.Join(t.dir, w.fileName(w.commit)))
	}
	_ = w.fs.Truncate(w.jpath, w.jsize)
	lost := len(w.pending)
	w.pending = nil
	w.err = &Error{Err: err, Journal: w.jpath, Done: len(w.done), Lost: lost}
}

// Error is a failure to write results. The journal is consistent: it holds Done jobs,
// all durable; Lost finished jobs were not recorded and rerun with --resume.
type Error struct {
	Err     error
	Journal string
	Done    int
	Lost    int
}

func (e *Error) Error() string {
	return fmt.Sprintf("writing results: %v; the journal %s is consistent and holds %d finished jobs (%d not recorded); free the space and run again with --resume",
		e.Err, e.Journal, e.Done, e.Lost)
}

func (e *Error) Unwrap() error { return e.Err }

// Close commits the pending jobs and closes the journal.
func (w *Writer) Close() error {
	err := w.Commit()
	if w.journal != nil {
		if cerr := w.journal.Close(); err == nil {
			err = cerr
		}
		w.journal = nil
	}
	if w.unlock != nil {
		w.unlock()
		w.unlock = nil
	}
	return err
}

// Files lists the committed data files of table in dir (all shards), sorted: the files
// of that table folder that a complete, not withdrawn commit of one of dir's journals
// names (CommittedFiles) and that are there. A file no commit names is not listed,
// whatever its name. A missing dir is an error; a table without rows has no files.
func Files(dir, table string) ([]string, error) {
	committed, err := CommittedFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for f := range committed {
		t, _, _ := strings.Cut(f, "/")
		if t != table {
			continue
		}
		name := filepath.Join(dir, filepath.FromSlash(f))
		if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// ParsePartName reads a file name of a table folder as the sink makes them:
// "part-2of3-000004.parquet" is commit 4 of shard "2of3"; temp is true for the hidden
// temp name ".part-2of3-000004.parquet.tmp". ok is false for any other name.
func ParsePartName(name string) (shard string, commit int, temp, ok bool) {
	m := partRE.FindStringSubmatch(name)
	if m == nil || (m[1] == "") != (m[5] == "") {
		return "", 0, false, false
	}
	n, err := strconv.Atoi(m[3])
	if err != nil {
		return "", 0, false, false
	}
	return m[2], n, m[1] == ".", true
}

// ReadJournal returns the jobs of the complete commits of a journal file.
func ReadJournal(fsys FS, path string) (map[string]string, error) {
	if fsys == nil {
		fsys = OS{}
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseJournal(data, parseOpts{shard: journalShard(path)}).done(), nil
}

// countingFile counts the bytes written through it and their CRC-32C, the journal's
// record of the file. Both writers write front to back (the Arrow writer only asks for
// its position); any other seek drops the checksum.
type countingFile struct {
	File
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
func (c *countingFile) sum() FileSum {
	if c.noSeek {
		return FileSum{Size: c.n}
	}
	return FileSum{Size: c.n, CRC32C: fmt.Sprintf("%08x", c.crc)}
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

// ReadRows reads every committed Parquet file of table in dir into rows of type T
// (columns matched by parquet tag). Tests and tools use it to check what a sweep wrote;
// an error names the file that does not open.
func ReadRows[T any](dir, table string) ([]T, error) {
	files, err := Files(dir, table)
	if err != nil {
		return nil, err
	}
	var all []T
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		rows, err := parquet.Read[T](f, st.Size())
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s does not open: %w", name, err)
		}
		all = append(all, rows...)
	}
	return all, nil
}

// syncAll runs do(0..n-1) concurrently and waits for all of them.
func syncAll(n int, do func(i int)) {
	if n == 1 {
		do(0)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(i)
		}()
	}
	wg.Wait()
}
