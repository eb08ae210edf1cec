package dirfs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// # Links
//
// rocesweep never writes through a symbolic link (docs/results.md §9): every file it
// creates, appends to, truncates, renames or removes in a results directory is opened
// without following a link in the file's own name (O_NOFOLLOW where the system has it,
// an Lstat check elsewhere), and the folder it does so in (the results directory, a
// table folder, the spill folder) must not be a link either. A link is refused with a
// *LinkError naming it; nothing is written. A link named by a commit, or a stray link in
// a table folder, is itself removed by sink.Open(Resume) (removing a link never touches
// its target). Folders above the results directory may be links.

// LinkError is a path of a results directory that is a symbolic link where rocesweep
// would write.
type LinkError struct{ Path string }

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s is a symbolic link; rocesweep never writes through links: remove it or use another -o", e.Path)
}

// CheckNotLink returns a *LinkError when name (cleaned: "out/" is "out") is a symbolic
// link, and nil when it is anything else or does not exist.
func CheckNotLink(name string) error {
	name = filepath.Clean(name)
	if fi, err := os.Lstat(name); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return &LinkError{Path: name}
	}
	return nil
}

// OpenFile is os.OpenFile for a file of a results directory: it follows no link in
// name's last element, and refuses a folder (name's parent) that is a link. Either is a
// *LinkError.
func OpenFile(name string, flag int, perm os.FileMode) (*os.File, error) {
	if err := CheckNotLink(filepath.Dir(name)); err != nil {
		return nil, err
	}
	if oNoFollow == 0 {
		if err := CheckNotLink(name); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(name, flag|oNoFollow, perm)
	if err != nil {
		// ELOOP (Linux), EMLINK (FreeBSD) or EEXIST (O_EXCL) on a link: say what it is.
		if lerr := CheckNotLink(name); lerr != nil {
			return nil, lerr
		}
		return nil, err
	}
	return f, nil
}
