package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
)

// csvColumn reads one column of a CSV file as a set.
func csvColumn(t *testing.T, path, column string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(recs[0], column)
	out := map[string]bool{}
	for _, r := range recs[1:] {
		out[r[i]] = true
	}
	return out
}

// A committed jobs part deleted (issue 38: export exited 0 with 54 jobs in jobs.csv but
// every job's rows in nd_stats.csv, and report said "54 of 54 jobs ok" without a
// warning): the commit is left out whole, so every table holds the rows of the same
// jobs; export, report and status name the missing jobs, and export and report exit 1.
func TestMissingCommittedPart(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.5, 1, 2}, []float64{200e3, 700e3}, 2, false)); err != nil {
		t.Fatal(err)
	}
	// The first commit holds the first half of the jobs: j0001..j0006.
	if err := os.Remove(filepath.Join(dir, "jobs", "part-1of1-000001.parquet")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		out  string // the output naming the jobs: "stdout" or "stderr"
	}{
		{[]string{"export", dir}, 1, "stderr"},
		{[]string{"report", dir}, 1, "stderr"},
		{[]string{"status", dir}, 0, "stdout"},
	} {
		var stdout, stderr bytes.Buffer
		code := mainWithArgs(context.Background(), tc.args, &stdout, &stderr)
		text := map[string]string{"stdout": stdout.String(), "stderr": stderr.String()}[tc.out]
		if code != tc.code || !strings.Contains(text, "jobs/part-1of1-000001.parquet: missing; the 6 jobs of commit 1 are missing (j0001, j0002, j0003, j0004, j0005 and 1 more)") {
			t.Errorf("%s: exit %d, want %d; %s:\n%s", tc.args[0], code, tc.code, tc.out, text)
		}
	}
	jobs := csvColumn(t, filepath.Join(dir, "csv", "jobs.csv"), "job_id")
	for _, table := range []string{"nd_stats", "buffer_stats", "ecn_pfc_stats"} {
		if rows := csvColumn(t, filepath.Join(dir, "csv", table+".csv"), "job_id"); !maps(rows, jobs) {
			t.Errorf("%s.csv holds the rows of jobs %v, jobs.csv lists %v", table, keys(rows), keys(jobs))
		}
	}
	if len(jobs) != 6 || jobs["j0001"] {
		t.Errorf("jobs.csv lists %v, want the 6 jobs of commit 2", keys(jobs))
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil || !strings.Contains(string(page), "the 6 jobs of commit 1 are missing") {
		t.Errorf("report.html does not name the missing jobs (%v)", err)
	}
}

func maps(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
