// Package dirfs is the file system of a results directory (docs/results.md §1),
// apart from the Parquet and Arrow that package sink writes with, so that a package
// needing only the files (sweep/slurm) does not link those:
//
//   - FS, the file system the sink and the runner write through (tests substitute one
//     that fails), and OS, the operating system's, which never writes through a
//     symbolic link (docs/results.md §9; nofollow.go: LinkError, CheckNotLink, OpenFile);
//   - atomic replacement of a file (WriteFileAtomic: write, fsync, rename, fsync the
//     folder) through a temp name that belongs to its writer (AtomicTemp), so several
//     shards may write one file at once;
//   - the locks (lock.go): one writer per shard (LockName, OS.Lock, ShardWriter, results.md
//     §7) and the directory lock a starting run holds while it claims the directory
//     (LockDir);
//   - the journal file names of the shards (JournalName, ParseJournalName; results.md §5).
package dirfs
