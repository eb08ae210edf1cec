package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
)

// report --png writes through no link, as every writer (issue 38: a linked chart file
// made a user's file a PNG, and a linked folder was written into): a chart file or the
// folder that is a link is refused, naming it, and the link's target is left as it was.
func TestReportPNGRefusesLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir := filepath.Join(base, "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, false)); err != nil {
		t.Fatal(err)
	}
	report := func(png string) (int, string) {
		var stdout, stderr bytes.Buffer
		code := mainWithArgs(context.Background(), []string{"report", dir, "--png", png, "--width", "100", "--height", "100"}, &stdout, &stderr)
		return code, stderr.String()
	}
	// The chart files' names, from a plain run.
	plain := filepath.Join(base, "plain")
	if code, errs := report(plain); code != 0 {
		t.Fatalf("report --png: exit %d\n%s", code, errs)
	}
	charts, _ := filepath.Glob(filepath.Join(plain, "*.png"))
	if len(charts) == 0 {
		t.Fatal("no chart written")
	}
	user := filepath.Join(base, "notes.txt")
	userDir := filepath.Join(base, "mine")
	os.Mkdir(userDir, 0o755)

	fileLink := filepath.Join(base, "png-file")
	os.Mkdir(fileLink, 0o755)
	os.WriteFile(user, []byte("my notes\n"), 0o644)
	os.Symlink(user, filepath.Join(fileLink, filepath.Base(charts[0])))
	dirLink := filepath.Join(base, "png-dir")
	os.Symlink(userDir, dirLink)

	for _, tc := range []struct{ png, link string }{
		{fileLink, filepath.Join(fileLink, filepath.Base(charts[0]))},
		{dirLink, dirLink},
	} {
		code, errs := report(tc.png)
		if code == 0 || !strings.Contains(errs, tc.link+" is a symbolic link") {
			t.Errorf("--png %s: exit %d, want a refusal naming %s\n%s", tc.png, code, tc.link, errs)
		}
	}
	if b, _ := os.ReadFile(user); string(b) != "my notes\n" {
		t.Errorf("the user's file behind the link now holds %d bytes", len(b))
	}
	if entries, _ := os.ReadDir(userDir); len(entries) != 0 {
		t.Errorf("the user's folder behind the link now holds %d files", len(entries))
	}
}
