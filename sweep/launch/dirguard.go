package launch

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sweep"
)

// claimDir decides, under the directory lock (dirfs.LockDir), whether this run may
// write o.Dir: the directory is new, empty or holds rocesweep results (never a folder
// of unrelated files); its manifest, if any, has this plan, model version and format
// (checkManifest) and this shard count; and when it has no manifest this run writes
// one. Runs started together are thus decided one after the other: the second of two
// different plans, or of two shard counts, is refused, whatever the timing. --force
// accepts another plan or shard count, as before.
func claimDir(p *sweep.Plan, o Options, start time.Time, tables []resultsdir.Schema) error {
	fsys := o.FS
	if fsys == nil {
		fsys = dirfs.OS{}
	}
	// A folder of unrelated files is refused before the lock file is made in it; a
	// folder with results stays one, so this check needs no lock.
	if entries, err := fsys.ReadDir(o.Dir); err == nil {
		if err := refuseForeign(o.Dir, entries); err != nil {
			return err
		}
	}
	if err := fsys.MkdirAll(o.Dir); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	unlock, err := dirfs.LockDir(fsys, o.Dir)
	if err != nil {
		return fmt.Errorf("output directory %s: %w", o.Dir, err)
	}
	defer unlock()
	if err := refuseLinks(o, tables); err != nil {
		return err
	}
	entries, err := fsys.ReadDir(o.Dir)
	if err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	if err := checkManifest(p, o); err != nil {
		return err
	}
	if err := checkShardCount(o, entries); err != nil && !o.Force {
		return err
	}
	return writeManifest(p, o, start, tables)
}

// refuseLinks refuses a results directory where this run would write through a
// symbolic link (docs/results.md §9): the directory itself, its manifest, this shard's
// journal and lock, its spill folder, or a table folder. The sink and the spill check
// each file as they open it; this check names the link before anything is written.
func refuseLinks(o Options, tables []resultsdir.Schema) error {
	names := []string{"", resultsdir.ManifestFile, dirfs.JournalName(o.Shard.Tag()), filepath.Base(dirfs.LockName(o.Dir, o.Shard.Tag())),
		filepath.Base(spillDir(o.Dir, o.Shard))}
	for _, t := range tables {
		names = append(names, t.Name)
	}
	for _, n := range names {
		if err := dirfs.CheckNotLink(filepath.Join(o.Dir, n)); err != nil {
			return err
		}
	}
	return nil
}

// refuseForeign refuses a non-empty directory that holds no rocesweep results (no
// manifest.json, no journal) but files no rocesweep command writes (resultsdir.Foreign):
// `run -o configs` must not scatter tables among a user's files. A directory holding only
// what `rocesweep slurm` writes (slurm/) or rocesweep's hidden lock and temp files counts
// as empty.
func refuseForeign(dir string, entries []fs.DirEntry) error {
	if resultsdir.HasResults(entries) {
		return nil
	}
	foreign := resultsdir.Foreign(dir, entries)
	if len(foreign) == 0 {
		return nil
	}
	if len(foreign) > 3 {
		foreign = append(foreign[:3], "...")
	}
	return fmt.Errorf("output directory %s holds files that are not rocesweep results (%s); use a new or empty directory", dir, strings.Join(foreign, ", "))
}

// checkShardCount refuses a shard count other than the directory's: shard K/N and K/M
// select different jobs, so mixing them runs jobs twice and misses others. The count
// is the manifest's (written under the directory lock by the first run) or, for a
// directory written before manifests recorded it, its journals' names.
func checkShardCount(o Options, entries []fs.DirEntry) error {
	want := o.Shard.N
	if want < 1 {
		want = 1
	}
	m, err := resultsdir.ReadManifestFS(o.FS, o.Dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, os.ErrNotExist) {
		return nil // checkManifest reported it (or --force accepted it)
	}
	var have []int
	if m != nil && m.Shards > 0 {
		have = []int{m.Shards}
	} else {
		seen := map[int]bool{}
		for _, e := range entries {
			if _, n, ok := dirfs.ParseJournalName(e.Name()); ok && !seen[n] {
				seen[n] = true
				have = append(have, n)
			}
		}
		sort.Ints(have)
	}
	for _, n := range have {
		switch {
		case n == want:
		case n == 1:
			return fmt.Errorf("output directory %s holds an unsharded sweep (journal.jsonl); this run is shard %s: drop --shard, or use another -o",
				o.Dir, o.Shard.Tag())
		default:
			return fmt.Errorf("output directory %s holds a sweep split into %d shards (%s ...); this run is shard %s: use --shard K/%d, or another -o",
				o.Dir, n, dirfs.JournalName(resultsdir.ShardTag(1, n)), o.Shard.Tag(), n)
		}
	}
	return nil
}
