package launch

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sweep"
)

// A spill file, or the spill folder, that is a symbolic link is refused, naming it; the
// link's target keeps its content (a spill file is created truncated).
func TestSpillNeverWritesThroughALink(t *testing.T) {
	t.Parallel()
	for _, link := range []string{"file", "folder"} {
		t.Run(link, func(t *testing.T) {
			root := t.TempDir()
			victim := filepath.Join(root, "victim")
			os.MkdirAll(victim, 0o755)
			os.WriteFile(filepath.Join(victim, "j.rows"), []byte("keep\n"), 0o644)
			dir := filepath.Join(root, "out")
			sdir := spillDir(dir, sweep.Shard{})
			path := filepath.Join(sdir, "j.rows")
			linkPath, target := path, filepath.Join(victim, "j.rows")
			if link == "folder" {
				linkPath, target = sdir, victim
			}
			os.MkdirAll(filepath.Dir(linkPath), 0o755)
			if err := os.Symlink(target, linkPath); err != nil {
				t.Fatal(err)
			}
			s := &spill{path: path}
			err := s.write(stats.Batch{NdStats: []stats.NdStats{{JobID: "j"}}})
			s.close()
			var le *dirfs.LinkError
			if !errors.As(err, &le) || le.Path != linkPath {
				t.Errorf("err = %v, want a link error naming %s", err, linkPath)
			}
			if data, _ := os.ReadFile(filepath.Join(victim, "j.rows")); string(data) != "keep\n" {
				t.Errorf("the link's target holds %q", data)
			}
		})
	}
}
