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

func TestExportCommand(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{1, 4}, []float64{200e3}, 1, false)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "lb_stats"), 0o755); err != nil && !os.IsExist(err) {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string // substring
		stderr string // prefix
	}{
		{[]string{"export", dir}, 0, "wrote " + filepath.Join(dir, "csv", "jobs.csv") + " (2 rows)\n", ""},
		{[]string{"export", dir, "--table", "jobs"}, 0, "(2 rows)\n", ""},
		{[]string{"export", dir, "--table", "lb_stats"}, 1, "", "rocesweep: export: table lb_stats: no committed part files"},
		{[]string{"export", dir, "--table", "job"}, 2, "", `rocesweep: export: --table "job": unknown table (did you mean jobs?)`},
		{[]string{"export", dir, "--format", "parquet"}, 2, "", `rocesweep: export: --format "parquet": want csv`},
		{[]string{"export"}, 2, "", "rocesweep: export: want one results DIR, got 0 arguments"},
	} {
		var stdout, stderr bytes.Buffer
		code := mainWithArgs(context.Background(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.HasPrefix(stderr.String(), tc.stderr) {
			t.Errorf("%q: exit %d\nstdout %q\nstderr %q", tc.args, code, stdout.String(), stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "csv", "lb_stats.csv")); !os.IsNotExist(err) {
		t.Errorf("an empty table was exported: %v", err)
	}
}

// export of a directory that holds no results says what is wrong and exits 2 (it wrote
// nothing and exited 0).
func TestExportRefusesNonResults(t *testing.T) {
	t.Parallel()
	d := t.TempDir()
	empty, foreign, fresh := filepath.Join(d, "empty"), filepath.Join(d, "configs"), filepath.Join(d, "fresh")
	os.Mkdir(empty, 0o755)
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "study.yaml"), []byte("name: x\n"), 0o644)
	os.Mkdir(fresh, 0o755)
	os.WriteFile(filepath.Join(fresh, "manifest.json"), []byte(`{"name": "x", "plan_size": 4}`), 0o644)
	good := filepath.Join(d, "res")
	if err := resultstest.Write(good, resultstest.Grid([]float64{1, 4}, []float64{200e3}, 1, false)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		code int
		want string // stderr prefix, or stdout substring when code is 0
	}{
		{empty, 2, "rocesweep: export: " + empty + " is not a results directory (open " + filepath.Join(empty, "manifest.json") + ": no such file or directory); export reads the DIR of 'rocesweep run -o DIR'"},
		{foreign, 2, "rocesweep: export: " + foreign + " is not a results directory (open "},
		{fresh, 2, "rocesweep: export: " + fresh + " holds no committed rows yet: no job has finished ('rocesweep status " + fresh + "' shows its progress)"},
		{good, 0, "jobs.csv (2 rows)"},
	} {
		code, out, stderr := runCmd(t, "export", tc.dir)
		if code != tc.code || (code == 0 && !strings.Contains(out, tc.want)) || (code != 0 && !strings.HasPrefix(stderr, tc.want)) {
			t.Errorf("export %s: exit %d, want %d and %q\nstdout %q\nstderr %q", tc.dir, code, tc.code, tc.want, out, stderr)
		}
		if code != 0 {
			if _, err := os.Stat(filepath.Join(tc.dir, "csv")); err == nil {
				t.Errorf("export %s made a csv folder", tc.dir)
			}
		}
	}
}
