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

// ls renders resultsdir.List's rows; status of their parent points at ls.
func TestLsAndStatusOfAParent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := resultstest.Write(filepath.Join(dir, "grid"), resultstest.Grid([]float64{0.5, 1}, []float64{1e5}, 1, false)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "mine"), 0o755)
	os.WriteFile(filepath.Join(dir, "mine", "a.txt"), []byte("x"), 0o644)
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"ls", dir}, &out, &errb); code != 0 {
		t.Fatalf("ls exit %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "name ") || !strings.Contains(lines[0], "jobs ok") {
		t.Fatalf("ls:\n%s", out.String())
	}
	for _, l := range lines {
		if strings.TrimRight(l, " ") != l {
			t.Errorf("ls line %q ends in spaces", l)
		}
	}
	for i, want := range [][]string{{"grid ", " 2/2 ", " complete "}, {"mine ", " not results "}} {
		for _, w := range want {
			if !strings.Contains(lines[i+1], w) {
				t.Errorf("ls line %d %q lacks %q", i+1, lines[i+1], w)
			}
		}
	}
	out.Reset()
	errb.Reset()
	if code := mainWithArgs(context.Background(), []string{"status", dir}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "is not a results directory") || !strings.Contains(errb.String(), "rocesweep ls "+dir) {
		t.Errorf("status of a parent: exit %d: %s", code, errb.String())
	}
}
