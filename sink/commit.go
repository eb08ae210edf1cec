package sink

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// JobDone records that every row of job has been written. Its journal line is appended
// at the next commit; JobDone commits if the files are big enough or jobs waited long.
func (w *Writer) JobDone(job journal.JobLine) error {
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
	var sums []journal.FileSum
	var nbytes int64
	var rows int64
	// One fsync batch per commit: the open files' footers are written one by one, then
	// all of them are fsynced at once (a journaling file system commits concurrent
	// fsyncs together), then renamed; the folders likewise. The order that makes a commit
	// all-or-nothing is unchanged: files durable, then names, then the journal line.
	// The files are finished one after another, not on a goroutine each: overlapping
	// their encoding and fsyncs costs CPU and memory on few cores.
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
	journal.AppendCommit(&buf, w.commit, w.pending, files, sums)
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
