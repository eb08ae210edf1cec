package sink

import (
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// copyFile copies a committed part under another name: a stray that is a valid resultsdir.Parquet
// file holding real rows (a reader that counted it would count those rows twice).
func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(to), 0o755)
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Writes never follow a symbolic link: a journal, a lock, a table folder, the results
// directory or the manifest that is a link is refused with an error naming it, and the
// link's target is left exactly as it was.
func TestNoWritesThroughLinks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		link   string // in the results directory; "" for the directory itself
		target string // "file": a file outside; "parts": another results directory's nd_stats
		do     func(dir string) error
	}{
		{"journal", "journal.jsonl", "file", resumeOpen},
		{"shard lock", ".journal.jsonl.lock", "file", resumeOpen},
		{"other shard's lock", ".journal-2of2.jsonl.lock", "file", func(dir string) error {
			copyFile(t, filepath.Join(dir, "jobs", "part-1of1-000001.parquet"), filepath.Join(dir, "jobs", "part-2of2-000001.parquet"))
			os.WriteFile(filepath.Join(dir, "journal-2of2.jsonl"), nil, 0o644) // a shard of the directory, not a copied file
			return resumeOpen(dir)
		}},
		{"table folder", "nd_stats", "parts", resumeOpen},
		{"results directory", "", "parts", resumeOpen},
		{"manifest", "manifest.json", "file", func(dir string) error {
			return dirfs.WriteFileAtomic(nil, filepath.Join(dir, "manifest.json"), "1of1", []byte("{}\n"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			other := filepath.Join(root, "other")
			writeCommits(t, other, 3) // another results directory, 3 parts per table
			victim := filepath.Join(root, "victim.txt")
			os.WriteFile(victim, []byte("not rocesweep's\n"), 0o644)
			dir := filepath.Join(root, "out")
			writeCommits(t, dir, 1)
			target, path := victim, filepath.Join(dir, tc.link)
			if tc.target == "parts" {
				target = filepath.Join(other, "nd_stats")
			}
			switch tc.link {
			case "":
				path, target = filepath.Join(root, "link"), dir
			case "nd_stats":
				os.RemoveAll(path)
			default:
				os.Remove(path)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, root, target)
			err := tc.do(map[bool]string{true: path, false: dir}[tc.link == ""])
			var le *dirfs.LinkError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), path+" is a symbolic link; rocesweep never writes through links") {
				t.Errorf("err = %v, want a *LinkError naming %s", err, path)
			}
			if after := snapshot(t, root, target); after != before {
				t.Errorf("the link's target changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

func resumeOpen(dir string) error {
	w, err := Open(Options{Dir: dir, Resume: true}, testTables())
	if err == nil {
		w.Close()
	}
	return err
}

// snapshot describes target (a file, or a folder's files) by name, size and checksum.
func snapshot(t *testing.T, root, target string) string {
	t.Helper()
	var out []string
	filepath.Walk(target, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			out = append(out, fmt.Sprintf("%s:%d:%08x", rel, len(data), crc32.ChecksumIEEE(data)))
		}
		return nil
	})
	return strings.Join(out, " ")
}
