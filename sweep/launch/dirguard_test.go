package launch_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/launch"
)

// The shard count is the directory's: run -o D, then --shard 1/2 or --shard 2/3 into D
// are refused (they would add job rows for jobs D already holds).
func TestShardCountIsTheDirectorys(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := t.TempDir()
	if _, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, sh := range []sweep.Shard{{K: 1, N: 2}, {K: 2, N: 3}} {
		_, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, Shard: sh, Resume: true})
		var se *launch.SetupError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "holds an unsharded sweep (journal.jsonl); this run is shard "+sh.Tag()) {
			t.Errorf("shard %s into an unsharded directory: %v", sh.Tag(), err)
		}
	}
	// Sharded first, then another count, then unsharded.
	dir = t.TempDir()
	if _, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, Shard: sweep.Shard{K: 2, N: 3}}); err != nil {
		t.Fatal(err)
	}
	for _, sh := range []sweep.Shard{{K: 1, N: 2}, {K: 1, N: 1}} {
		_, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, Shard: sh})
		if err == nil || !strings.Contains(err.Error(), "split into 3 shards") {
			t.Errorf("shard %s into a 3-shard directory: %v", sh.Tag(), err)
		}
	}
	if _, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, Shard: sweep.Shard{K: 1, N: 3}}); err != nil {
		t.Errorf("shard 1/3 beside 2/3: %v", err)
	}
}

// Two different plans started together on a fresh directory: the check runs under the
// directory lock, so exactly one wins, every time (20 trials, each a race).
func TestTwoPlansStartedTogether(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	a, b := plan(t, spec), plan(t, spec, "seed=2")
	for trial := 0; trial < 20; trial++ {
		dir := filepath.Join(t.TempDir(), "out")
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, p := range []*sweep.Plan{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 1})
			}()
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if !strings.Contains(err.Error(), "that differs from this one") {
				t.Errorf("trial %d: refused for another reason: %v", trial, err)
			}
		}
		if ok != 1 {
			t.Fatalf("trial %d: %d of 2 different plans accepted: %v", trial, ok, errs)
		}
	}
}

// A directory holding files that are not results (run -o configs) is refused.
func TestForeignDirectoryRefused(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ci.yaml"), []byte("name: x\n"), 0o644)
	_, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "holds files that are not rocesweep results (ci.yaml)") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries written into the refused directory", len(entries)-1)
	}
	// A directory holding only what `rocesweep slurm` writes is accepted.
	dir = t.TempDir()
	os.MkdirAll(filepath.Join(dir, "slurm"), 0o755)
	if _, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 1}); err != nil {
		t.Errorf("slurm/ only: %v", err)
	}
}

// A directory is rocesweep's only if its manifest says so (issue 38: a user's
// journal.jsonl and notes.txt got "use --resume to continue it", which overwrote their
// journal): a bare journal, or a manifest.json rocesweep did not write, is refused with
// or without --resume (and --force), and nothing in it changes.
func TestForeignJournalOrManifestRefused(t *testing.T) {
	t.Parallel()
	p := plan(t, spec)
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"journal", map[string]string{"journal.jsonl": `{"job_id":"mine","status":"ok"}` + "\n", "notes.txt": "my notes\n"},
			"holds files that are not rocesweep results (journal.jsonl, notes.txt)"},
		{"shard journal", map[string]string{"journal-2of3.jsonl": "{}\n"}, "holds files that are not rocesweep results (journal-2of3.jsonl)"},
		{"manifest", map[string]string{"manifest.json": `{"name": "my study", "rows": 3}` + "\n"}, "holds a manifest.json that rocesweep did not write"},
	} {
		for _, o := range []launch.Options{{}, {Resume: true}, {Resume: true, Force: true}} {
			t.Run(fmt.Sprintf("%s resume=%v force=%v", tc.name, o.Resume, o.Force), func(t *testing.T) {
				dir := t.TempDir()
				for name, text := range tc.files {
					os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
				}
				o.Dir, o.Workers = dir, 1
				_, err := launch.Run(context.Background(), p, testJob, o)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q", err, tc.want)
				}
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					text, ok := tc.files[e.Name()]
					if b, _ := os.ReadFile(filepath.Join(dir, e.Name())); !ok && !strings.HasPrefix(e.Name(), ".") || ok && string(b) != text {
						t.Errorf("%s was written or changed", e.Name())
					}
				}
			})
		}
	}
}

// A sweep started by a binary of another model version is not resumed
// (or added to by a shard) silently: the refusal names both versions.
func TestResumeOtherModelVersionRefused(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	dir := t.TempDir()
	if _, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, Shard: sweep.Shard{K: 1, N: 2}}); err != nil {
		t.Fatal(err)
	}
	// The manifest as a binary of another model version writes it (checksum and all).
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.ModelVersion = "rocesweep-model/0.0.9"
	os.WriteFile(filepath.Join(dir, "manifest.json"), m.Marshal(), 0o644)
	for _, o := range []launch.Options{
		{Dir: dir, Workers: 1, Shard: sweep.Shard{K: 1, N: 2}, Resume: true},
		{Dir: dir, Workers: 1, Shard: sweep.Shard{K: 2, N: 2}},
	} {
		_, err := launch.Run(context.Background(), p, testJob, o)
		if err == nil || !strings.Contains(err.Error(), "model version rocesweep-model/0.0.9, this tool runs "+model.Version) {
			t.Errorf("shard %s resume=%v: %v", o.Shard.Tag(), o.Resume, err)
		}
	}
}

// After a full disk the report's counts are the journal's: the jobs of the failed commit
// are "lost", not ok.
func TestFullDiskReportMatchesJournal(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	for _, budget := range []int64{30_000, 60_000} {
		p := plan(t, spec)
		dir := t.TempDir()
		ffs := &fullFS{}
		ffs.budget.Store(budget)
		rep, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, FS: ffs})
		if err == nil {
			t.Fatalf("budget %d: the disk did not fill", budget)
		}
		done, err := journal.Read(nil, filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.OK + rep.Failed + rep.Timeout + rep.Invalid; got != len(done) || rep.OK != len(rep.Summaries) {
			t.Errorf("budget %d: report %d recorded (%d ok, %d summaries), journal %d", budget, got, rep.OK, len(rep.Summaries), len(done))
		}
		if rep.Lost < 1 {
			t.Errorf("budget %d: lost %d, want the failed commit's job", budget, rep.Lost)
		}
	}
}

// A run never writes through a symbolic link: a results directory that is one, or a
// manifest, journal, lock, spill folder or table folder in it that is one, is refused
// before any job runs, naming the link, and the link's target is left as it was.
func TestRunRefusesLinks(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	p := plan(t, spec)
	// One finished run, copied for each case as the directory written in and as the
	// other results directory a link points to.
	done := filepath.Join(t.TempDir(), "done")
	if _, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: done, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, link := range []string{"", "manifest.json", "journal.jsonl", ".journal.jsonl.lock", ".spill-1of1", "jobs", "nd_stats"} {
		t.Run("link "+link, func(t *testing.T) {
			root := t.TempDir()
			other := filepath.Join(root, "other") // another results directory
			dir := filepath.Join(root, "out")
			for _, d := range []string{other, dir} {
				if err := os.CopyFS(d, os.DirFS(done)); err != nil {
					t.Fatal(err)
				}
			}
			path, target := filepath.Join(dir, link), filepath.Join(other, link)
			if link == "" {
				path, target = filepath.Join(root, "link"), other
			} else {
				os.RemoveAll(path)
			}
			if link == ".spill-1of1" {
				target = filepath.Join(other, "nd_stats")
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
			before := tree(t, other)
			_, err := launch.Run(context.Background(), p, testJob, launch.Options{Dir: path, Workers: 2, Resume: true})
			if link != "" {
				_, err = launch.Run(context.Background(), p, testJob, launch.Options{Dir: dir, Workers: 2, Resume: true})
			}
			var le *dirfs.LinkError
			if !errors.As(err, &le) || le.Path != path || !strings.Contains(err.Error(), "rocesweep never writes through links") {
				t.Errorf("err = %v, want a link error naming %s", err, path)
			}
			if after := tree(t, other); after != before {
				t.Errorf("the other directory changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// tree lists the files under dir with their sizes and contents' lengths.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			data, _ := os.ReadFile(p)
			out = append(out, fmt.Sprintf("%s:%d:%x", strings.TrimPrefix(p, dir), fi.Size(), sha256.Sum256(data)))
		}
		return nil
	})
	return strings.Join(out, "\n")
}
