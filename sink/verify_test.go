package sink

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// writeCommits writes jobs j0..j(n-1), one commit each, with rows in both tables.
func writeCommits(t *testing.T, dir string, n int) {
	t.Helper()
	w, err := Open(Options{Dir: dir, CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		id := "j" + string(rune('0'+i))
		w.Write("jobs", jobsRow(id, "ok", float64(i), nil))
		w.Write("nd_stats", portRows(id, 50))
		if err := w.JobDone(journal.JobLine{ID: id, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func jobIDs[T any](rows []T, id func(T) string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, id(r))
	}
	sort.Strings(out)
	return out
}

// Issue 14 item 7: a deleted part file, a damaged one (same size, other bytes) and a
// damaged journal line are found by VerifyJournal (status) and repaired by Open(Resume):
// exactly the jobs of the affected commits run again and no row of theirs is left behind.
func TestDamageDetectedAndRepaired(t *testing.T) {
	dir := t.TempDir()
	writeCommits(t, dir, 6)
	jpath := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(jpath)
	if !strings.Contains(string(data), `"sums":[{"size":`) || !strings.Contains(string(data), `"crc32c":"`) {
		t.Fatalf("journal records no sizes and checksums:\n%s", data)
	}

	// Job ji is commit i+1. j1: its jobs file deleted. j3: 64 bytes of its nd_stats
	// file flipped. j4: its job line garbled.
	if err := os.Remove(filepath.Join(dir, "jobs", "part-1of1-000002.parquet")); err != nil {
		t.Fatal(err)
	}
	nd := filepath.Join(dir, "nd_stats", "part-1of1-000004.parquet")
	b, _ := os.ReadFile(nd)
	for i := 100; i < 164; i++ {
		b[i] ^= 0xff
	}
	os.WriteFile(nd, b, 0o644)
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, `"job_id":"j4"`) {
			lines[i] = "{garbage\n"
		}
	}
	os.WriteFile(jpath, []byte(strings.Join(lines, "")), 0o644)

	// Cheap check: size only; the flipped file keeps its size.
	c, err := journal.Verify(nil, dir, jpath, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) != 1 || c.Problems[0].File != "jobs/part-1of1-000002.parquet" || c.Problems[0].Problem != "missing" ||
		!slices.Equal(c.Problems[0].Jobs, []string{"j1"}) {
		t.Errorf("problems = %+v", c.Problems)
	}
	if len(c.DamagedLines) != 1 || len(c.Done) != 4 { // j0 j2 j3 j5
		t.Errorf("damaged lines %v, done %v", c.DamagedLines, c.Done)
	}
	// Full check: the checksum finds the flipped bytes.
	c, _ = journal.Verify(nil, dir, jpath, true)
	if len(c.Problems) != 2 || c.Problems[1].File != "nd_stats/part-1of1-000004.parquet" || !strings.Contains(c.Problems[1].Problem, "checksum") {
		t.Errorf("problems = %+v", c.Problems)
	}
	if _, ok := c.Done["j3"]; ok || len(c.Done) != 3 {
		t.Errorf("done = %v", c.Done)
	}

	// Resume: the commits of j1 and j3 withdrawn, j4's was never complete; their files go.
	w, err := Open(Options{Dir: dir, Resume: true, CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	rec := w.Recovery()
	if len(rec.Damaged) != 2 || rec.Done != 3 || len(rec.DamagedLines) != 1 {
		t.Errorf("recovery = %+v", rec)
	}
	var rerun []string
	for _, id := range []string{"j0", "j1", "j2", "j3", "j4", "j5"} {
		if w.Done()[id] == "" {
			rerun = append(rerun, id)
		}
	}
	if !slices.Equal(rerun, []string{"j1", "j3", "j4"}) {
		t.Errorf("jobs to run again: %v, want j1 j3 j4", rerun)
	}
	for _, id := range rerun {
		w.Write("jobs", jobsRow(id, "ok", 9, nil))
		w.Write("nd_stats", portRows(id, 50))
		w.JobDone(journal.JobLine{ID: id, Status: "ok"})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Every job once in each table, every file sound, nothing left to repair.
	jobs := jobIDs(readParquet[struct {
		ID string `parquet:"job_id"`
	}](t, dir, "jobs"), func(r struct {
		ID string `parquet:"job_id"`
	}) string {
		return r.ID
	})
	if !slices.Equal(jobs, []string{"j0", "j1", "j2", "j3", "j4", "j5"}) {
		t.Errorf("jobs rows: %v", jobs)
	}
	if n := len(readParquet[portRow](t, dir, "nd_stats")); n != 6*50 {
		t.Errorf("%d nd_stats rows, want 300 (no orphans)", n)
	}
	c, _ = journal.Verify(nil, dir, jpath, true)
	if len(c.Problems) != 0 || len(c.Done) != 6 {
		t.Errorf("after repair: problems %+v, done %v", c.Problems, c.Done)
	}
}

// A journal line with an unknown status ("xk") or an extra job line, each with a good
// checksum, costs its commit, never more jobs than the commit held, and never counts as ok.
func TestJournalOddLines(t *testing.T) {
	dir := t.TempDir()
	writeCommits(t, dir, 3)
	jpath := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(jpath)
	var out []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, `{"job_id":"j0",`):
			l = seal(`{"job_id":"j0","status":"xk","commit":1}`)
		case strings.HasPrefix(l, `{"job_id":"j1",`):
			l += seal(`{"job_id":"zz","status":"ok","commit":2}`)
		}
		out = append(out, l)
	}
	os.WriteFile(jpath, []byte(strings.Join(out, "")), 0o644)
	done, err := journal.Read(nil, jpath)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 1 || done["j2"] != "ok" {
		t.Errorf("done = %v, want only j2", done)
	}
}

// seal returns a journal line (JSON without newline) as the sink writes it: with its
// checksum member, and a newline.
func seal(line string) string { return string(journal.Seal([]byte(line))) + "\n" }

// A job line appended again after its commit's closing line is a damaged line that verify
// names; the commit it repeats stands, and its job counts once.
func TestJobLineAfterItsCommit(t *testing.T) {
	dir := t.TempDir()
	writeCommits(t, dir, 2)
	jpath := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(jpath)
	var first string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(l, `{"job_id":"j0",`) {
			first = l
		}
	}
	os.WriteFile(jpath, append(data, first...), 0o644)
	check, err := journal.Verify(nil, dir, jpath, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(check.Done) != 2 || check.Done["j0"] != "ok" {
		t.Errorf("done = %v, want j0 and j1", check.Done)
	}
	found := false
	for _, p := range check.Lines {
		found = found || strings.Contains(p.Problem, "after that commit's closing line")
	}
	if !found {
		t.Errorf("verify does not name the repeated line: %+v", check.Lines)
	}
}

// A journal converted to CRLF line ends (issue 38: it read as a journal written before
// checksums, and --resume ran every job again) reads as it was written: every line
// verifies, every commit stands, and a resume runs nothing and appends after it.
func TestJournalCRLF(t *testing.T) {
	dir := t.TempDir()
	writeCommits(t, dir, 3)
	jpath := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(jpath)
	os.WriteFile(jpath, []byte(strings.ReplaceAll(string(data), "\n", "\r\n")), 0o644)
	c, err := journal.Verify(nil, dir, jpath, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Done) != 3 || len(c.DamagedLines) != 0 || len(c.Unsealed) != 0 || len(c.Problems) != 0 {
		t.Fatalf("CRLF journal: %d done, damaged %v, unsealed %v, problems %v; want 3 done, nothing else", len(c.Done), c.DamagedLines, c.Unsealed, c.Problems)
	}
	w, err := Open(Options{Dir: dir, Resume: true}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	if rec := w.Recovery(); rec.Done != 3 || len(rec.DamagedLines) != 0 || rec.RemovedFiles != 0 || rec.TruncatedBytes != 0 {
		t.Errorf("resume of a CRLF journal: %+v, want 3 done and nothing repaired", rec)
	}
	w.Write("jobs", jobsRow("j3", "ok", 3, nil))
	w.JobDone(journal.JobLine{ID: "j3", Status: "ok"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if done, _ := journal.Read(nil, jpath); len(done) != 4 {
		t.Errorf("after a commit appended to the CRLF journal: %d jobs, want 4", len(done))
	}
}

// Commit numbers are 1 to journal.MaxCommit (issue 38: a stray part numbered 2^63-2 made the
// next commit number overflow): a journal line with another number is damaged, and
// costs no other commit.
func TestCommitNumbersBounded(t *testing.T) {
	for _, line := range []string{
		`{"job_id":"x","status":"ok","commit":0}`,
		`{"job_id":"x","status":"ok","commit":-3}`,
		`{"job_id":"x","status":"ok","commit":1000000000}`,
		`{"commit":9223372036854775806,"jobs":0,"files":[],"sums":[]}`,
		`{"void":-1}`,
	} {
		dir := t.TempDir()
		writeCommits(t, dir, 2)
		jpath := filepath.Join(dir, "journal.jsonl")
		f, _ := os.OpenFile(jpath, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(seal(line))
		f.Close()
		c, err := journal.Verify(nil, dir, jpath, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Done) != 2 || len(c.DamagedLines) != 1 || !strings.Contains(c.Lines[0].Problem, "commit numbers are 1 to 999999999") {
			t.Errorf("%s: %d done, damaged lines %v (%v); want 2 done and the line damaged", line, len(c.Done), c.DamagedLines, c.Lines)
		}
		w, err := Open(Options{Dir: dir, Resume: true}, testTables())
		if err != nil {
			t.Fatal(err)
		}
		w.Write("jobs", jobsRow("j9", "ok", 9, nil))
		w.JobDone(journal.JobLine{ID: "j9", Status: "ok"})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "jobs", "part-1of1-000003.parquet")); err != nil {
			t.Errorf("%s: the next commit is not 3: %v", line, err)
		}
	}
}
