package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/results/resultstest"
)

func TestExportCommand(t *testing.T) {
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
		{[]string{"export", dir, "--table", "lb_stats"}, 1, "", "rocesweep: export: table lb_stats: no committed part-*.parquet files"},
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
