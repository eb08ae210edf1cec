package report

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// WritePNGs writes every chart as DIR/<chart id>.png and returns the paths in page order.
// As every writer of rocesweep (docs/results.md §9), it writes nothing through a link:
// DIR that is one, or a chart file that is one, is refused before anything is written
// (a *dirfs.LinkError naming it), and each file appears complete (a temp name, then
// rename).
func (r *Report) WritePNGs(dir string) ([]string, error) {
	if err := dirfs.CheckNotLink(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := dirfs.CheckNotLink(dir); err != nil {
		return nil, err
	}
	charts := r.Charts()
	paths := make([]string, len(charts))
	for i, c := range charts {
		paths[i] = filepath.Join(dir, fileSafe(c.ID)+".png")
		if err := dirfs.CheckNotLink(paths[i]); err != nil {
			return nil, err
		}
	}
	for i, c := range charts {
		img, err := c.PNG()
		if err != nil {
			return nil, err
		}
		if err := dirfs.WriteFileAtomic(nil, paths[i], "", img); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// fileSafe replaces characters that are awkward in file names.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, s)
}
