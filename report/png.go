package report

import (
	"os"
	"path/filepath"
	"strings"
)

// WritePNGs writes every chart as DIR/<chart id>.png and returns the paths in page order.
func (r *Report) WritePNGs(dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, c := range r.Charts() {
		img, err := c.PNG()
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, fileSafe(c.ID)+".png")
		if err := os.WriteFile(p, img, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
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
