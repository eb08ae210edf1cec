package launch

import (
	"path/filepath"
	"syscall"
)

// freeDisk is the space free to this user on the file system of dir, or of its nearest
// existing parent (a results directory not made yet); 0 when unknown.
func freeDisk(dir string) int64 {
	d, err := filepath.Abs(dir)
	if err != nil {
		return 0
	}
	for {
		var st syscall.Statfs_t
		if err := syscall.Statfs(d, &st); err == nil {
			return int64(st.Bavail) * int64(st.Bsize)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return 0
		}
		d = parent
	}
}
