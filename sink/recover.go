package sink

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// recover reads the journal and removes debris of this shard; without Resume it refuses
// a directory with results of this shard.
func (w *Writer) recover() error {
	data, err := w.fs.ReadFile(w.jpath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("output directory: %w", err)
	}
	st := journal.Parse(data, journal.ParseOptions{Shard: w.opts.Shard, Strict: w.opts.Resume})
	valid := st.Valid
	w.jsize = valid
	w.commit = st.Last + 1
	complete := st.Complete
	if w.opts.Resume {
		// Verified results: a commit whose files are missing or
		// damaged is withdrawn; its files are debris, its jobs run again.
		for _, c := range st.Commits {
			if probs := journal.CheckCommit(w.fs, w.opts.Dir, c, true); len(probs) > 0 {
				w.recovery.Damaged = append(w.recovery.Damaged, probs...)
				w.voids = append(w.voids, c.N)
				delete(complete, c.N)
			}
		}
		w.recovery.DamagedLines = st.Damaged
		for _, c := range st.Commits {
			retry, redo := 0, 0
			for _, j := range c.Jobs {
				switch {
				case slices.Contains(w.opts.Retry, j.Status):
					retry++
				case w.opts.Redo != nil && w.opts.Redo(j):
					redo++
				}
			}
			if retry+redo > 0 && complete[c.N] != nil {
				w.voids = append(w.voids, c.N)
				delete(complete, c.N)
				w.recovery.Retried += retry
				w.recovery.Redecided += redo
				w.recovery.Withdrawn += len(c.Jobs)
			}
		}
	}
	// A file of this shard is committed only if a complete commit names it (a file of
	// commit n in another table folder, or of the other format, is not). Files of other
	// shards, and files of no shard, are strays (removeStrays).
	named := map[string]bool{}
	for _, c := range complete {
		for _, f := range c.Files {
			named[f] = true
		}
	}
	var debris []string
	others := map[string][]string{} // shard → its files (relative, with /)
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
			// Only what the sink names a file is the sink's to remove: any other name (a
			// user's jobs/part-00000-my-spark-output.parquet, extra.parquet, a commit
			// number out of range) is left where it is; readers skip it and status
			// --verify names it. Another shard's files are judged by its journal
			// (removeStraysOf).
			shard, n, committed, ours := journal.MatchPartName(e.Name())
			switch {
			case e.IsDir():
				continue // a folder is not a part; status --verify names it
			case !ours:
				if !strings.HasPrefix(e.Name(), ".") { // hidden and not the sink's: no reader sees it
					w.recovery.Foreign = append(w.recovery.Foreign, rel)
				}
				continue
			case shard != w.opts.Shard:
				others[shard] = append(others[shard], rel)
				continue
			}
			w.commit = max(w.commit, n+1)
			if committed && named[rel] {
				continue // a committed file
			}
			debris = append(debris, filepath.Join(t.dir, e.Name()))
		}
	}
	if !w.opts.Resume {
		if len(data) > 0 || len(debris) > 0 {
			return fmt.Errorf("output directory %s %w of shard %s (%s); use --resume to continue it or choose another directory", w.opts.Dir, ErrExists, w.opts.Shard, dirfs.JournalName(w.opts.Shard))
		}
		return nil
	}
	for _, name := range debris {
		if err := w.fs.Remove(name); err != nil {
			return fmt.Errorf("removing leftover %s: %w", name, err)
		}
		w.recovery.RemovedFiles++
	}
	if err := w.removeStrays(others); err != nil {
		return err
	}
	if len(st.Damaged) > 0 || len(st.Broken) > 0 {
		// Lines that can never count again (damaged lines, commits that cannot be
		// complete) are dropped: the journal is written anew with exactly the commits
		// that stand, under a temp name renamed over it, so that once their jobs have run
		// again `status --verify` finds nothing left to report.
		var buf bytes.Buffer
		for _, c := range st.Commits {
			if complete[c.N] != nil {
				journal.AppendCommit(&buf, c.N, c.Jobs, c.Files, c.Sums)
			}
		}
		if err := dirfs.WriteFileAtomic(w.fs, w.jpath, "", buf.Bytes()); err != nil {
			return fmt.Errorf("writing %s without its damaged lines: %w", w.jpath, err)
		}
		w.jsize, w.voids = int64(buf.Len()), nil
	} else if valid < int64(len(data)) {
		if err := w.fs.Truncate(w.jpath, valid); err != nil {
			return fmt.Errorf("dropping the torn tail of %s: %w", w.jpath, err)
		}
		w.recovery.TruncatedBytes = int64(len(data)) - valid
	}
	for _, c := range st.Commits {
		if complete[c.N] == nil {
			continue
		}
		for _, j := range c.Jobs {
			w.done[j.ID] = j.Status
		}
	}
	w.recovery.Done = len(w.done)
	return nil
}

// removeStrays removes, per other shard of this directory's shard count, that shard's
// files that no complete commit of its journal names. Another shard's files are judged
// and removed only while holding that shard's lock (dirfs.LockName): a writer of it
// holds the lock from before its first temp file until after its last journal append,
// so no file between a rename and its commit line is removed; a shard being written now
// is left alone (its own --resume cleans it).
func (w *Writer) removeStrays(others map[string][]string) error {
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
// (dirfs.OS.Lock retries for 200 ms) rather than failing. So the journal is parsed
// before, and under the lock only read again and compared, parsed anew only if it
// changed.
func (w *Writer) removeStraysOf(shard string, files []string, remove func(string) error) error {
	jpath := filepath.Join(w.opts.Dir, dirfs.JournalName(shard))
	read := func() ([]byte, error) {
		data, err := w.fs.ReadFile(jpath)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("output directory: %w", err)
		}
		return data, nil
	}
	namedBy := func(data []byte) map[string]bool {
		named := map[string]bool{}
		for _, c := range journal.Parse(data, journal.ParseOptions{Shard: shard}).Commits {
			for _, f := range c.Files {
				named[f] = true
			}
		}
		return named
	}
	before, err := read()
	if err != nil {
		return err
	}
	if before == nil && !w.journalExists(jpath) {
		// No journal of that shard: nothing says these files are rocesweep's (a part
		// of another directory's shard, copied in): left where they are.
		w.recovery.Foreign = append(w.recovery.Foreign, files...)
		return nil
	}
	named := namedBy(before)
	unlock, err := w.fs.Lock(dirfs.LockName(w.opts.Dir, shard))
	var le *dirfs.LockedError
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
		if _, _, committed, _ := journal.MatchPartName(path.Base(rel)); committed && named[rel] {
			continue
		}
		if err := remove(rel); err != nil {
			return err
		}
	}
	return nil
}

// journalExists reports whether the journal file path is there (an empty one counts).
func (w *Writer) journalExists(path string) bool {
	entries, err := w.fs.ReadDir(filepath.Dir(path))
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.Name() == filepath.Base(path) {
			return true
		}
	}
	return false
}
