package dirfs

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

// OS is the operating system's file system. It never writes through a symbolic link
// (nofollow.go): a file is opened without following a link in its name, and a folder
// that is a link is refused, with a *LinkError.
type OS struct{}

func (OS) Create(name string) (File, error) {
	return OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

func (OS) OpenAppend(name string) (File, error) {
	return OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
}

// ReadFile reads a file of the results directory (a journal, the manifest) that the
// sink may then append to, truncate or replace: a link is refused, not read.
func (OS) ReadFile(name string) ([]byte, error) {
	f, err := OpenFile(name, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ReadDir lists a folder the sink removes files from: a link is refused.
func (OS) ReadDir(dir string) ([]fs.DirEntry, error) {
	if err := CheckNotLink(dir); err != nil {
		return nil, err
	}
	return os.ReadDir(dir)
}

// Rename refuses a link as either name or as the folder of either (renaming onto a link
// would replace it, not write through it, but a link where a file of the directory
// belongs is refused all the same).
func (OS) Rename(oldName, newName string) error {
	for _, p := range []string{filepath.Dir(oldName), filepath.Dir(newName), oldName, newName} {
		if err := CheckNotLink(p); err != nil {
			return err
		}
	}
	return os.Rename(oldName, newName)
}

// Remove removes name, which may itself be a link (the link goes, its target stays), in
// a folder that is not a link.
func (OS) Remove(name string) error {
	if err := CheckNotLink(filepath.Dir(name)); err != nil {
		return err
	}
	return os.Remove(name)
}

// MkdirAll makes dir; dir itself must not be a link (its parents may be).
func (OS) MkdirAll(dir string) error {
	err := os.MkdirAll(dir, 0o755)
	if lerr := CheckNotLink(dir); lerr != nil {
		return lerr
	}
	return err
}

// Truncate opens name without following a link and truncates it.
func (OS) Truncate(name string, size int64) error {
	f, err := OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

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
