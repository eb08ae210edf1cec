// Package sink writes the rows of a sweep into a results directory (design.md "Results
// directory"): one folder per table, Parquet (parquet-go, zstd, dictionary-encoded
// strings) or Arrow IPC files (arrow/go/v17), and a journal of finished jobs. It knows
// rows, not devices: a table is a name and a flat struct type (resultsdir.Schema). What the
// directory holds and how it reads is package resultsdir's (the journal's format is
// resultsdir/journal's); this package writes it.
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
// Every line ends with a checksum of its own content (package resultsdir/journal), so
// an edited or damaged line is skipped, never read as a record of another job.
//
// A job counts as done only when its commit line is in the journal. A process killed at
// any moment leaves either a complete commit or debris that Open(Resume) removes: temp
// files, renamed files of a commit with no commit line, and a torn journal tail. So every
// job is, after a resume, in the tables exactly once. Open(Resume) also removes strays,
// files in the table folders that no commit names (removeStrays), and readers read only
// the files commits name (resultsdir.Parts, resultsdir.ReadCommitted), so that a stray is never
// counted.
//
// A commit happens when the open files reach Options.FileBytes (this is how files are
// rotated by size), when jobs have waited Options.CommitInterval, and at Close.
//
// A Writer is not safe for concurrent use: the sweep runner gives it to one goroutine.
package sink

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// Options configure a Writer. The zero value of each field means its default.
type Options struct {
	Dir    string            // results directory; created if missing
	Format resultsdir.Format // resultsdir.Parquet (default) or resultsdir.Arrow
	// Shard tags file names and the journal so that N processes can write side by side
	// into one directory: "2of3". Default "1of1".
	Shard string
	// Resume keeps the journal's finished jobs and removes debris of an interrupted run;
	// without it Open refuses a directory that already holds results of this shard.
	Resume bool
	// FileBytes commits (and so rotates to new files) once the open files of the
	// commit hold this many bytes. Default 64 MiB.
	FileBytes int64
	// RowGroupRows is the number of rows per row group (Parquet) or record batch (Arrow),
	// unless RowGroupBytes or Writer.EndGroup ends one earlier. Default 65,536.
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
	Retry []journal.JobStatus
	// Redo, with Resume, withdraws the commits that hold a job for which it returns
	// true, so that those jobs are decided again (the runner: a job recorded invalid
	// whose point the plan of this run finds valid, e.g. under another budget). nil:
	// none.
	Redo func(journal.JobLine) bool
	FS   dirfs.FS         // nil: the operating system
	Now  func() time.Time // nil: time.Now
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
	Damaged []journal.FileProblem
	// DamagedLines are the journal lines that do not count (they do not parse, their
	// checksum fails or is missing: package resultsdir/journal); each costs its commit at
	// most, and the journal is written anew without them.
	DamagedLines []int
	// Strays are the files of the table folders (relative, with /) that no commit named
	// and that were not this shard's: leftovers of other shards of this directory's
	// shard count not being written now. They are removed (and counted in RemovedFiles).
	Strays []string
	// Foreign are the files of the table folders (relative, with /) whose names are not
	// the sink's for this directory's shards ("jobs/extra.parquet", a user's
	// "jobs/part-00000-my-spark-output.parquet", a part of another shard count): never
	// removed, never read.
	Foreign []string
	// Retried counts the jobs of an Options.Retry status whose commits were withdrawn,
	// Redecided those for which Options.Redo said so; Withdrawn the jobs of those commits
	// (Retried, Redecided and any others they held).
	Retried, Redecided, Withdrawn int
}

// Writer writes tables into a results directory. See the package doc for the protocol.
type Writer struct {
	opts     Options
	fs       dirfs.FS
	ext      string
	tables   []*tableFile
	byName   map[string]*tableFile
	journal  dirfs.File
	unlock   func() error // releases the shard lock (dirfs.OS.Lock)
	jpath    string
	jsize    int64 // bytes of the journal that are complete commits
	commit   int   // number of the commit being filled
	pending  []journal.JobLine
	since    time.Time // when the oldest pending job finished
	done     map[string]journal.JobStatus
	voids    []int // commits to withdraw (damaged files) once the journal is open
	recovery Recovery
	stats    Stats
	err      error // sticky: after a failed commit the Writer refuses more work
	newDirs  bool  // an entry of the results folder (a table folder, the journal) awaits its fsync
}

// tableFile is the open temp file of one table in the current commit.
type tableFile struct {
	resultsdir.Schema
	dir  string
	tmp  string
	f    dirfs.File
	cw   *countingFile
	pq   parquetRows
	ar   *arrowRows
	rows int64 // rows in the open file
	grp  int   // rows in the open row group
	made bool  // the folder exists (openFile made it or found it)
}

// ErrExists is returned by Open without Resume when the directory already holds results
// of this shard.
var ErrExists = errors.New("already holds results")

// Open prepares dir for writing tables. It creates the folders and the journal, so an
// unwritable directory fails here, before any job runs. With Resume it reads the journal
// (Done), drops a torn tail and removes this shard's debris (see Recovery).
func Open(opts Options, tables []resultsdir.Schema) (*Writer, error) {
	if opts.Format == "" {
		opts.Format = resultsdir.Parquet
	}
	if opts.Format != resultsdir.Parquet && opts.Format != resultsdir.Arrow {
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
		opts.FS = dirfs.OS{}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	w := &Writer{opts: opts, fs: opts.FS, ext: "." + string(opts.Format), byName: map[string]*tableFile{},
		done: map[string]journal.JobStatus{}, jpath: filepath.Join(opts.Dir, dirfs.JournalName(opts.Shard))}
	if err := w.fs.MkdirAll(opts.Dir); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	// One writer per shard (dirfs.LockName), taken before recover removes any debris.
	unlock, err := w.fs.Lock(dirfs.LockName(opts.Dir, opts.Shard))
	var le *dirfs.LockedError
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
func (w *Writer) open(tables []resultsdir.Schema) error {
	opts := w.opts
	for _, t := range tables {
		if w.byName[t.Name] != nil {
			return fmt.Errorf("table %s registered twice", t.Name)
		}
		// A table's folder is made with its first file (openFile): a table that gets no
		// rows has no folder, rather than an empty one that a DuckDB glob fails on.
		tf := &tableFile{Schema: t, dir: filepath.Join(opts.Dir, t.Name)}
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
			journal.AppendVoid(&buf, n)
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

// Done returns the jobs of complete commits found by Open(Resume), id → status.
func (w *Writer) Done() map[string]journal.JobStatus { return w.done }

// Recovery says what Open(Resume) cleaned.
func (w *Writer) Recovery() Recovery { return w.recovery }

// Stats returns what was committed so far.
func (w *Writer) Stats() Stats { return w.stats }

// JournalPath is the path of this shard's journal.
func (w *Writer) JournalPath() string { return w.jpath }
