package sink

import (
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// The line checksum rule as docs/results.md §5 states it, checked from outside the
// package's own code: every line ends with `,"crc":"` + 8 hex digits + `"}`, and those
// digits are the CRC-32C of the line without that member (its `}` put back). Job,
// closing and void lines all carry one.
func TestJournalLinesCarryChecksums(t *testing.T) {
	if got, want := string(journal.Seal([]byte(`{"job_id":"4f0c2a9e1b7d3c55","status":"ok","commit":3}`))),
		`{"job_id":"4f0c2a9e1b7d3c55","status":"ok","commit":3,"crc":"d79b14e3"}`; got != want {
		t.Errorf("sealLine = %s, want the example of docs/results.md %s", got, want)
	}
	dir := t.TempDir()
	writeCommits(t, dir, 3)
	os.Remove(filepath.Join(dir, "jobs", "part-1of1-000002.parquet"))
	w, err := Open(Options{Dir: dir, Resume: true}, testTables()) // withdraws commit 2: a void line
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	data, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	rule := regexp.MustCompile(`^(.*),"crc":"([0-9a-f]{8})"\}$`)
	kinds := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m := rule.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("line %d has no checksum member: %s", i+1, line)
		}
		want, _ := strconv.ParseUint(m[2], 16, 32)
		if got := crc32.Checksum([]byte(m[1]+"}"), crc32.MakeTable(crc32.Castagnoli)); uint64(got) != want {
			t.Errorf("line %d: CRC-32C %08x, the line says %s: %s", i+1, got, m[2], line)
		}
		switch {
		case strings.HasPrefix(line, `{"job_id"`):
			kinds["job"] = true
		case strings.HasPrefix(line, `{"commit"`):
			kinds["closing"] = true
		case strings.HasPrefix(line, `{"void"`):
			kinds["void"] = true
		}
	}
	if len(kinds) != 3 {
		t.Errorf("line kinds seen: %v, want job, closing and void", kinds)
	}
}

// One edited line of a journal: the line is damaged, its commit does not count
// (ReadJournal, VerifyJournal), and Open(Resume) withdraws it: its files go, exactly its
// job runs again, and afterwards every job is in the tables once and the journal is
// clean. Job ji is commit i+1; j1's lines are 3 (job) and 4 (closing).
func TestJournalLineEdits(t *testing.T) {
	for _, tc := range []struct {
		name string
		line int
		edit func(string) string
		want string // in the line's problem
	}{
		{"a digit of a job id", 3, func(l string) string { return strings.Replace(l, `"j1"`, `"j7"`, 1) }, "checksum"},
		{"a status", 3, func(l string) string { return strings.Replace(l, `"ok"`, `"failed"`, 1) }, "checksum"},
		{"a file's size", 4, func(l string) string { return strings.Replace(l, `"size":`, `"size":1`, 1) }, "checksum"},
		{"a checksum digit", 3, func(l string) string { return l[:len(l)-3] + string(l[len(l)-3]^1) + l[len(l)-2:] }, "checksum"},
		{"the checksum removed", 3, func(l string) string { return l[:len(l)-len(`,"crc":"00000000"}`)] + "}" }, "no checksum, while other lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeCommits(t, dir, 3)
			jpath := filepath.Join(dir, "journal.jsonl")
			data, _ := os.ReadFile(jpath)
			lines := strings.SplitAfter(string(data), "\n")
			lines[tc.line-1] = tc.edit(strings.TrimSuffix(lines[tc.line-1], "\n")) + "\n"
			os.WriteFile(jpath, []byte(strings.Join(lines, "")), 0o644)

			done, err := journal.Read(nil, jpath)
			if err != nil {
				t.Fatal(err)
			}
			if len(done) != 2 || done["j0"] != "ok" || done["j2"] != "ok" {
				t.Errorf("ReadJournal = %v, want j0 and j2 only", done)
			}
			c, err := journal.Verify(nil, dir, jpath, true)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.DamagedLines, []int{tc.line}) || len(c.Lines) == 0 || c.Lines[0].Line != tc.line ||
				!strings.Contains(c.Lines[0].Problem, tc.want) {
				t.Errorf("VerifyJournal: damaged %v, problems %+v; want line %d: %q", c.DamagedLines, c.Lines, tc.line, tc.want)
			}
			if _, ok := c.Done["j1"]; ok || len(c.Done) != 2 {
				t.Errorf("VerifyJournal done = %v", c.Done)
			}

			w, err := Open(Options{Dir: dir, Resume: true, CommitInterval: -1}, testTables())
			if err != nil {
				t.Fatal(err)
			}
			if rec := w.Recovery(); !slices.Equal(rec.DamagedLines, []int{tc.line}) || rec.Done != 2 || w.Done()["j1"] != "" {
				t.Errorf("recovery %+v, done %v", rec, w.Done())
			}
			for _, f := range []string{"jobs/part-1of1-000002.parquet", "nd_stats/part-1of1-000002.parquet"} {
				if _, err := os.Stat(filepath.Join(dir, f)); !os.IsNotExist(err) {
					t.Errorf("%s of the withdrawn commit: %v, want removed", f, err)
				}
			}
			w.Write("jobs", jobsRow("j1", "ok", 1, nil))
			w.Write("nd_stats", portRows("j1", 50))
			w.JobDone(journal.JobLine{ID: "j1", Status: "ok"})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			perJob := map[string]int{}
			for _, r := range readParquet[portRow](t, dir, "nd_stats") {
				perJob[r.JobID]++
			}
			if len(perJob) != 3 || perJob["j0"] != 50 || perJob["j1"] != 50 || perJob["j2"] != 50 {
				t.Errorf("nd_stats rows per job after the resume: %v, want 50 each of j0 j1 j2", perJob)
			}
			c, _ = journal.Verify(nil, dir, jpath, true)
			if len(c.DamagedLines) != 0 || len(c.Lines) != 0 || len(c.Problems) != 0 || len(c.Done) != 3 {
				t.Errorf("after the resume: %+v", c)
			}
		})
	}
}

// A journal written before line checksums (none of its lines has one) is read as it is,
// its lines counted as unverifiable; Open(Resume) cannot verify it, so it treats every
// line as damaged and runs every job again, leaving each job once in the tables.
func TestJournalWithoutChecksums(t *testing.T) {
	dir := t.TempDir()
	writeCommits(t, dir, 3)
	jpath := filepath.Join(dir, "journal.jsonl")
	data, _ := os.ReadFile(jpath)
	old := regexp.MustCompile(`,"crc":"[0-9a-f]{8}"\}`).ReplaceAllString(string(data), "}")
	os.WriteFile(jpath, []byte(old), 0o644)

	if done, err := journal.Read(nil, jpath); err != nil || len(done) != 3 {
		t.Errorf("ReadJournal = %v, %v; want the 3 jobs", done, err)
	}
	c, err := journal.Verify(nil, dir, jpath, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Done) != 3 || len(c.DamagedLines) != 0 || !slices.Equal(c.Unsealed, []int{1, 2, 3, 4, 5, 6}) {
		t.Errorf("VerifyJournal: done %v, damaged %v, unsealed %v", c.Done, c.DamagedLines, c.Unsealed)
	}
	if files, _ := resultsdir.Files(dir, "jobs"); len(files) != 3 {
		t.Errorf("Files = %v, want the 3 committed", files)
	}

	w, err := Open(Options{Dir: dir, Resume: true, CommitInterval: -1}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	if rec := w.Recovery(); len(rec.DamagedLines) != 6 || rec.Done != 0 || rec.RemovedFiles != 6 {
		t.Errorf("recovery = %+v, want 6 damaged lines, nothing done, the 6 files removed", rec)
	}
	for _, id := range []string{"j0", "j1", "j2"} {
		w.Write("nd_stats", portRows(id, 50))
		w.JobDone(journal.JobLine{ID: id, Status: "ok"})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(readParquet[portRow](t, dir, "nd_stats")); n != 150 {
		t.Errorf("%d nd_stats rows, want 150", n)
	}
	if c, _ := journal.Verify(nil, dir, jpath, true); len(c.Unsealed) != 0 || len(c.DamagedLines) != 0 || len(c.Done) != 3 {
		t.Errorf("after the resume: %+v", c)
	}
}

// Files no commit names are not read (Files, ReadRows). Open(Resume) removes those
// whose names and journal say they are the sink's: a file of this shard of no commit,
// and one of the right commit number in the other format. It leaves every other (issue
// 38: --resume deleted a user's jobs/part-00000-my-spark-output.parquet as a leftover):
// a file of no shard, a part of a shard without a journal here (copied in), a part whose
// commit number is out of range, a user's note; it lists them as foreign.
func TestStraysNotReadAndRemoved(t *testing.T) {
	dir := t.TempDir()
	writeCommits(t, dir, 3)
	part := filepath.Join(dir, "jobs", "part-1of1-000001.parquet")
	strays := []string{"jobs/part-1of1-000009.parquet", "jobs/part-1of1-000002.arrow"}
	foreign := []string{"jobs/extra.parquet", "jobs/part-00000-my-spark-output.parquet", "jobs/part-1of1-9223372036854775806.parquet",
		"jobs/part-2of2-000001.parquet", "nd_stats/notes.txt"}
	for _, s := range append(append([]string(nil), strays...), foreign...) {
		copyFile(t, part, filepath.Join(dir, s))
	}
	os.WriteFile(filepath.Join(dir, "jobs", ".DS_Store"), []byte("hidden, not ours"), 0o644)

	files, err := resultsdir.Files(dir, "jobs")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if !slices.Equal(names, []string{"part-1of1-000001.parquet", "part-1of1-000002.parquet", "part-1of1-000003.parquet"}) {
		t.Errorf("resultsdir.Files(jobs) = %v, want the 3 committed", names)
	}
	type idRow struct {
		ID string `parquet:"job_id"`
	}
	rows, err := resultsdir.ReadRows[idRow](dir, "jobs")
	if err != nil || len(rows) != 3 {
		t.Errorf("ReadRows(jobs): %d rows (%v), want 3", len(rows), err)
	}

	w, err := Open(Options{Dir: dir, Resume: true}, testTables())
	if err != nil {
		t.Fatal(err)
	}
	// The next commit follows the journal's, not a foreign name's number.
	w.Write("jobs", jobsRow("d", "ok", 1, nil))
	w.JobDone(journal.JobLine{ID: "d", Status: "ok"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "jobs", "part-1of1-000010.parquet")); err != nil {
		t.Errorf("the next commit: %v, want part-1of1-000010.parquet (after the stray of commit 9)", err)
	}
	rec := w.Recovery()
	got := slices.Sorted(slices.Values(rec.Foreign))
	if want := slices.Sorted(slices.Values(foreign)); !slices.Equal(got, want) {
		t.Errorf("foreign files: %v, want %v", got, want)
	}
	if rec.RemovedFiles != len(strays) || rec.Done != 3 {
		t.Errorf("recovery = %+v, want %d files removed, 3 jobs done", rec, len(strays))
	}
	for _, s := range strays {
		if _, err := os.Stat(filepath.Join(dir, s)); !os.IsNotExist(err) {
			t.Errorf("stray %s: %v, want removed", s, err)
		}
	}
	for _, s := range foreign {
		if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
			t.Errorf("foreign %s: %v, want left where it is", s, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "jobs", ".DS_Store")); err != nil {
		t.Errorf("a hidden file that is not the sink's was removed: %v", err)
	}
}
