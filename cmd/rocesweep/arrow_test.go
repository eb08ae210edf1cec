package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A sweep run with --format arrow is read by report, compare and export exactly as the
// same sweep run with --format parquet: the same report page, the same compare output
// under both pairings, the same CSV files (but for the start time and wall-clock
// figures, which differ between any two runs).
func TestArrowResultsRead(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	type outputs struct {
		report   []byte
		compare  map[string]string
		csv      map[string][]byte
		next     string
		exported string
	}
	got := map[string]*outputs{}
	dirs := map[string]string{}
	for _, format := range []string{"parquet", "arrow"} {
		root := filepath.Join(t.TempDir(), format)
		a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
		code, stdout, stderr, _ := runMain(t, "run", spec, "-o", a, "-j", "1", "--format", format)
		if code != 0 {
			t.Fatalf("%s: run a: exit %d\n%s", format, code, stderr)
		}
		checkWrittenFormat(t, a, format)
		o := &outputs{compare: map[string]string{}, csv: map[string][]byte{}}
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(l, "next:") || strings.HasPrefix(l, "      ") {
				o.next += strings.ReplaceAll(l, root, "ROOT") + "\n"
			}
		}
		if code, _, stderr, _ := runMain(t, "run", spec, "-o", b, "-j", "1", "--format", format, "--set", "duration=200us"); code != 0 {
			t.Fatalf("%s: run b: exit %d\n%s", format, code, stderr)
		}
		html := filepath.Join(root, "report.html")
		if code, _, stderr, _ := runMain(t, "report", a, "-o", html); code != 0 {
			t.Fatalf("%s: report: exit %d\n%s", format, code, stderr)
		}
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		page = bytes.ReplaceAll(page, []byte(root), []byte("ROOT"))
		page = started.ReplaceAll(page, []byte("started START"))
		page = wallTime.ReplaceAll(page, []byte("WALL"))
		o.report = wallRow.ReplaceAll(page, []byte("WALL ROW"))
		for _, by := range []string{"job_id", "params"} {
			code, stdout, stderr, _ := runMain(t, "compare", a, b, "--by", by, "--metric", "sim_time_sec,msgs_completed")
			o.compare[by] = strings.ReplaceAll(stdout+stderr, root, "ROOT")
			// b's --set changes every job id: by job_id nothing pairs (exit 2); by params
			// sim_time_sec moved (exit 1).
			if want := map[string]int{"job_id": 2, "params": 1}[by]; code != want {
				t.Errorf("%s: compare --by %s: exit %d, want %d\n%s", format, by, code, want, o.compare[by])
			}
		}
		code, stdout, stderr, _ = runMain(t, "export", a)
		if code != 0 {
			t.Fatalf("%s: export: exit %d\n%s", format, code, stderr)
		}
		o.exported = strings.ReplaceAll(stdout, root, "ROOT")
		files, _ := filepath.Glob(filepath.Join(a, "csv", "*.csv"))
		if len(files) < 5 {
			t.Fatalf("%s: export wrote %d CSV files: %s", format, len(files), stdout)
		}
		for _, f := range files {
			o.csv[filepath.Base(f)] = withoutWallClock(t, f)
		}
		got[format], dirs[format] = o, a
	}
	// A Parquet directory compares with an Arrow one of the same sweep: every job paired,
	// nothing moved.
	if code, stdout, stderr, _ := runMain(t, "compare", dirs["parquet"], dirs["arrow"]); code != 0 || !strings.Contains(stdout, "compared 36 jobs") {
		t.Errorf("compare parquet arrow: exit %d, want 0 with 36 jobs compared\n%s%s", code, stdout, stderr)
	}
	p, a := got["parquet"], got["arrow"]
	if !bytes.Equal(a.report, p.report) {
		t.Errorf("report pages differ:\n%s", firstDiff(string(a.report), string(p.report)))
	}
	for by, want := range p.compare {
		if a.compare[by] != want {
			t.Errorf("compare --by %s differs:\narrow:\n%s\nparquet:\n%s", by, a.compare[by], want)
		}
	}
	if a.exported != p.exported || len(a.csv) != len(p.csv) {
		t.Errorf("export differs:\narrow:\n%s\nparquet:\n%s", a.exported, p.exported)
	}
	for name, want := range p.csv {
		if !bytes.Equal(a.csv[name], want) {
			t.Errorf("%s differs:\n%s", name, firstDiff(string(a.csv[name]), string(want)))
		}
	}
	// Both point to report; Arrow's also to export, the CSV that DuckDB reads.
	report := "next: rocesweep report ROOT/a   (charts and answers in ROOT/a/report.html)\n"
	if want := report + "      rocesweep export ROOT/a   (CSV in ROOT/a/csv for DuckDB and pandas)\n"; p.next != report || a.next != want {
		t.Errorf("next lines: parquet %q, arrow %q; want %q and %q", p.next, a.next, report, want)
	}
}

// checkWrittenFormat checks that the jobs table of dir is written in format (its files' suffix)
// alone: without it, the tests that compare the two formats' outputs passed with --format
// arrow writing Parquet.
func checkWrittenFormat(t *testing.T, dir, format string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "jobs", "part-*"))
	for _, f := range files {
		if filepath.Ext(f) != "."+format {
			t.Errorf("--format %s wrote %s", format, f)
		}
	}
	if len(files) == 0 {
		t.Errorf("--format %s: no part of jobs in %s", format, dir)
	}
}

// started and wallTime match the report's start time and the wall-clock time its jobs
// took (report.duration), which differ from run to run.
var (
	started  = regexp.MustCompile(`started [0-9TZ:-]+`)
	wallTime = regexp.MustCompile(`[0-9.]+ (s|min|h)\b`)
	wallRow  = regexp.MustCompile(`(?m)^.*<code>(wall_sec|events_per_sec)</code>.*$`)
)

// withoutWallClock is the CSV file path without its wall-clock columns (wall_sec,
// events_per_sec: they differ from run to run), as CSV text.
func withoutWallClock(t *testing.T, path string) []byte {
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
	var drop []int
	for i, name := range recs[0] {
		if name == "wall_sec" || name == "events_per_sec" {
			drop = append(drop, i)
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, r := range recs {
		for k := len(drop) - 1; k >= 0; k-- {
			r = slices.Delete(r, drop[k], drop[k]+1)
		}
		w.Write(r)
	}
	w.Flush()
	return b.Bytes()
}

// firstDiff shows where a and b part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("at byte %d:\n", i) + a[lo:min(len(a), i+200)] + "\n---- want\n" + b[lo:min(len(b), i+200)]
}

// A sequential selection reads the jobs table back between rounds in either format: run
// --select --format arrow runs the same rounds and decides the same as with Parquet
// (configs/ci.yaml, real jobs: the output but for the wall-clock line and the next: lines).
// At a rare-event resolution of 20% (select.rare) the selection takes 122 jobs over 16
// rounds, with points leaving it, instead of 2,204 jobs over 536 rounds: the same reading
// back between rounds, a twentieth of the simulations. The two formats run at once.
func TestArrowSelect(t *testing.T) {
	t.Parallel()
	var out [2]string
	var wg sync.WaitGroup
	for i, format := range []string{"parquet", "arrow"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(t.TempDir(), "ci")
			var stdout, stderr bytes.Buffer
			if code := mainWithArgs(context.Background(), []string{"run", ciSpec, "-o", dir, "-j", "2", "--select", "--set", "select.rare=20%", "--format", format}, &stdout, &stderr); code != 0 {
				t.Errorf("%s: run --select: exit %d\n%s", format, code, stderr.String())
				return
			}
			checkWrittenFormat(t, dir, format)
			var keep []string
			for _, l := range strings.Split(strings.ReplaceAll(stdout.String(), dir, "DIR"), "\n") {
				if !strings.Contains(l, " jobs: ") && !strings.HasPrefix(l, "next:") && !strings.HasPrefix(l, "      rocesweep") {
					keep = append(keep, l)
				}
			}
			out[i] = strings.Join(keep, "\n")
			if !strings.Contains(stderr.String(), "selection round 16: ") {
				t.Errorf("%s: the selection did not go on to round 16:\n%s", format, stderr.String())
			}
		}()
	}
	wg.Wait()
	if out[1] != out[0] || !strings.Contains(out[0], "selected") {
		t.Errorf("run --select differs:\narrow:\n%s\nparquet:\n%s", out[1], out[0])
	}
}
