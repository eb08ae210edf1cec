package dirfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// OS never writes through a symbolic link (docs/results.md §9): a file that is a link,
// or a file in a folder that is one, is refused with a *LinkError naming the link, and
// the link's target is left as it was.
func TestOSRefusesLinks(t *testing.T) {
	fsys := OS{}
	for _, tc := range []struct {
		name   string
		folder bool // the link is a folder (to a folder outside) rather than a file
		do     func(link string) error
	}{
		{"Create", false, func(p string) error { _, err := fsys.Create(p); return err }},
		{"OpenAppend", false, func(p string) error { _, err := fsys.OpenAppend(p); return err }},
		{"ReadFile", false, func(p string) error { _, err := fsys.ReadFile(p); return err }},
		{"Truncate", false, func(p string) error { return fsys.Truncate(p, 0) }},
		{"Rename onto", false, func(p string) error {
			other := filepath.Join(filepath.Dir(p), "other")
			os.WriteFile(other, []byte("x"), 0o644)
			return fsys.Rename(other, p)
		}},
		{"Lock", false, func(p string) error { _, err := fsys.Lock(p); return err }},
		{"WriteFileAtomic", false, func(p string) error { return WriteFileAtomic(fsys, p, "1of1", []byte("{}\n")) }},
		{"Create in", true, func(p string) error { _, err := fsys.Create(filepath.Join(p, "f")); return err }},
		{"Remove in", true, func(p string) error { return fsys.Remove(filepath.Join(p, "f")) }},
		{"ReadDir", true, func(p string) error { _, err := fsys.ReadDir(p); return err }},
		{"MkdirAll", true, func(p string) error { return fsys.MkdirAll(p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			victim := filepath.Join(root, "victim")
			os.MkdirAll(filepath.Join(root, "out"), 0o755)
			link := filepath.Join(root, "out", "link")
			if tc.folder {
				os.MkdirAll(victim, 0o755)
				os.WriteFile(filepath.Join(victim, "f"), []byte("not rocesweep's\n"), 0o644)
			} else {
				os.WriteFile(victim, []byte("not rocesweep's\n"), 0o644)
			}
			if err := os.Symlink(victim, link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			err := tc.do(link)
			var le *LinkError
			if !errors.As(err, &le) || le.Path != link || !strings.HasSuffix(err.Error(), "link is a symbolic link; rocesweep never writes through links: remove it or use another -o") {
				t.Errorf("err = %v, want a *LinkError naming %s", err, link)
			}
			got := victim
			if tc.folder {
				got = filepath.Join(victim, "f")
			}
			if data, err := os.ReadFile(got); err != nil || string(data) != "not rocesweep's\n" {
				t.Errorf("the link's target %s holds %q (%v), want it untouched", got, data, err)
			}
			if tc.folder {
				if entries, _ := os.ReadDir(victim); len(entries) != 1 {
					t.Errorf("the linked folder holds %d entries, want its one file", len(entries))
				}
			}
		})
	}
}
