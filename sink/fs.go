package sink

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// FS is the file system the sink writes through. The operating system's is the default;
// tests substitute one that fails (a full disk) to check that the journal stays
// consistent. Every path is a full path as the sink builds it.
type FS interface {
	// Create creates a new file for writing; it fails if the file exists.
	Create(name string) (File, error)
	// OpenAppend opens (creating if needed) a file for appending.
	OpenAppend(name string) (File, error)
	ReadFile(name string) ([]byte, error)
	ReadDir(dir string) ([]fs.DirEntry, error)
	Rename(oldName, newName string) error
	Remove(name string) error
	MkdirAll(dir string) error
	Truncate(name string, size int64) error
	// SyncDir makes the entries of dir (creations, renames) durable.
	SyncDir(dir string) error
	// Lock takes an exclusive lock on the file name (created if absent) for as long as
	// the process holds it, or fails at once with a *LockedError naming the holder.
	// The lock dies with its process, however that ends.
	Lock(name string) (unlock func() error, err error)
}

// File is an open file of an FS. Seek is needed by the Arrow IPC file writer.
type File interface {
	io.Writer
	io.Seeker
	Sync() error
	Close() error
}

// OS is the operating system's file system.
type OS struct{}

func (OS) Create(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func (OS) OpenAppend(name string) (File, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
}

func (OS) ReadFile(name string) ([]byte, error)      { return os.ReadFile(name) }
func (OS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (OS) Rename(oldName, newName string) error      { return os.Rename(oldName, newName) }
func (OS) Remove(name string) error                  { return os.Remove(name) }
func (OS) MkdirAll(dir string) error                 { return os.MkdirAll(dir, 0o755) }
func (OS) Truncate(name string, size int64) error    { return os.Truncate(name, size) }

func (OS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFileAtomic writes data to name through a temporary file in the same directory:
// write, fsync, rename, fsync the directory. Readers see the old content or the new,
// never a part (used for manifest.json).
//
// The temporary name belongs to the writer (AtomicTemp): several processes may write one
// file at once — every shard of an array writes manifest.json when the tasks start
// together in a fresh directory — and each must rename its own complete file (with one
// shared name, one writer removed or renamed another's half-written file). A writer owns
// its temp name, so a temp file its killed predecessor left is removed first, not
// piled up; RemoveAtomicTemp removes it when the writer has nothing to write.
func WriteFileAtomic(fsys FS, name, writer string, data []byte) error {
	if fsys == nil {
		fsys = OS{}
	}
	dir := filepath.Dir(name)
	tmp := AtomicTemp(name, writer)
	_ = fsys.Remove(tmp) // a leftover of this writer's own crash, if any
	f, err := fsys.Create(tmp)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(tmp, name)
	}
	if err != nil {
		_ = fsys.Remove(tmp)
		return err
	}
	return fsys.SyncDir(dir)
}

// AtomicTemp is the temporary file WriteFileAtomic uses for name and writer:
// ".NAME.WRITER.tmp" (".NAME.tmp" for writer ""), a hidden dot-file readers skip.
func AtomicTemp(name, writer string) string {
	base := "." + filepath.Base(name)
	if writer != "" {
		base += "." + writer
	}
	return filepath.Join(filepath.Dir(name), base+".tmp")
}

// RemoveAtomicTemp removes the temp file a killed WriteFileAtomic of writer left for name.
func RemoveAtomicTemp(fsys FS, name, writer string) {
	if fsys == nil {
		fsys = OS{}
	}
	_ = fsys.Remove(AtomicTemp(name, writer))
}
