package main

import (
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// sealed is a journal line (JSON, no newline) with its checksum member, made by the rule
// docs/results.md §5 gives, and a newline.
func sealed(line string) string {
	sum := crc32.Checksum([]byte(line), crc32.MakeTable(crc32.Castagnoli))
	return fmt.Sprintf(`%s,"crc":"%08x"}`, strings.TrimSuffix(line, "}"), sum) + "\n"
}

// editJournal rewrites DIR/journal.jsonl line by line.
func editJournal(t *testing.T, dir string, edit func(i int, line string) string) {
	t.Helper()
	path := filepath.Join(dir, "journal.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = edit(i+1, l)
		}
	}
	os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
}

// verifyStatus runs `status DIR --verify` as text and as JSON; the exit status is 0
// whatever it finds.
func verifyStatus(t *testing.T, dir string) (text string, complete bool) {
	t.Helper()
	code, out, stderr, _ := runMain(t, "status", dir, "--verify")
	if code != 0 {
		t.Fatalf("status --verify: exit %d\n%s", code, stderr)
	}
	code, js, stderr, _ := runMain(t, "status", dir, "--verify", "--json")
	var st struct {
		Complete bool `json:"complete"`
	}
	if code != 0 || json.Unmarshal([]byte(js), &st) != nil {
		t.Fatalf("status --verify --json: exit %d\n%s%s", code, js, stderr)
	}
	return out, st.Complete
}

// jobRowsPerID counts the rows of table per job_id, as rocesweep's readers read them.
func jobRowsPerID(t *testing.T, dir, table string) map[string]int {
	t.Helper()
	type idRow struct {
		ID string `parquet:"job_id"`
	}
	rows, err := resultsdir.ReadRows[idRow](dir, table)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, r := range rows {
		n[r.ID]++
	}
	return n
}

var jobIDRE = regexp.MustCompile(`"job_id":"([0-9a-f]+)"`)

// status --verify finds each kind of tampering and damage, naming the journal, the line
// and the job; run --resume repairs what it can, after which verify finds nothing and
// every job is in the tables once.
func TestStatusVerifyFindsTampering(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	// One fresh run; each case tampers with its own copy of it.
	fresh := filepath.Join(t.TempDir(), "fresh")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", fresh, "-j", "2"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if text, complete := verifyStatus(t, fresh); !complete || !strings.Contains(text, "verify: every journal line's checksum") {
		t.Fatalf("status --verify of a fresh run:\n%s", text)
	}
	for _, tc := range []struct {
		name  string
		edit  func(t *testing.T, dir string)
		want  []string // in the text of status --verify
		clean bool     // run --resume leaves nothing to report
	}{
		{"an edited digit of a job id", func(t *testing.T, dir string) {
			editJournal(t, dir, func(i int, l string) string {
				if i == 3 {
					id := jobIDRE.FindStringSubmatch(l)[1]
					digit := map[bool]string{true: "1", false: "0"}[id[len(id)-1] == '0']
					return strings.Replace(l, id, id[:len(id)-1]+digit, 1)
				}
				return l
			})
		}, []string{"verify: journal.jsonl line 3 (job ", ": checksum ", "the line was changed or damaged", "2 problems; run the sweep again with --resume"}, true},
		{"a line without its checksum", func(t *testing.T, dir string) {
			editJournal(t, dir, func(i int, l string) string {
				if i == 3 {
					return regexp.MustCompile(`,"crc":"[0-9a-f]{8}"\}`).ReplaceAllString(l, "}")
				}
				return l
			})
		}, []string{"verify: journal.jsonl line 3 (job ", "no checksum, while other lines of the journal have one"}, true},
		{"a journal written before checksums", func(t *testing.T, dir string) {
			editJournal(t, dir, func(i int, l string) string {
				return regexp.MustCompile(`,"crc":"[0-9a-f]{8}"\}`).ReplaceAllString(l, "}")
			})
		}, []string{"verify: journal.jsonl: ", " lines have no checksum (written before journal lines had checksums)", "complete: all 36 jobs ok"}, true},
		{"a job id not of the plan, checksum recomputed", func(t *testing.T, dir string) {
			editJournal(t, dir, func(i int, l string) string {
				if i == 1 {
					id := jobIDRE.FindStringSubmatch(l)[1]
					body := regexp.MustCompile(`,"crc":"[0-9a-f]{8}"\}\n$`).ReplaceAllString(l, "}")
					return sealed(strings.Replace(body, id, "00000000deadbeef", 1))
				}
				return l
			})
		}, []string{"verify: journal.jsonl line 1: job 00000000deadbeef (commit 1) is not a job of the plan in manifest.json"}, false},
		{"a job committed twice", func(t *testing.T, dir string) {
			data, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
			id := jobIDRE.FindStringSubmatch(string(data))[1]
			f, _ := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(sealed(`{"job_id":"`+id+`","status":"ok","commit":900}`) + sealed(`{"commit":900,"jobs":1,"files":[],"sums":[]}`))
			f.Close()
		}, []string{"is committed 2 times (journal.jsonl line 1, journal.jsonl line "}, false},
		{"a damaged part file", func(t *testing.T, dir string) {
			files, _ := resultsdir.Files(dir, "jobs")
			data, _ := os.ReadFile(files[0])
			for i := 200; i < 260 && i < len(data); i++ {
				data[i] ^= 0xff
			}
			os.WriteFile(files[0], data, 0o644)
		}, []string{"damaged: jobs/", "the file is damaged", "checked: no problem beyond the damage above"}, true},
		{"strays in a table folder", func(t *testing.T, dir string) {
			files, _ := resultsdir.Files(dir, "jobs")
			data, _ := os.ReadFile(files[0])
			os.WriteFile(filepath.Join(dir, "jobs", "extra.parquet"), data, 0o644)
			os.WriteFile(filepath.Join(dir, "jobs", "part-2of2-000001.parquet"), data, 0o644)
			os.WriteFile(filepath.Join(dir, "nd_stats", "part-1of1-000777.parquet"), data, 0o644)
		}, []string{"note: foreign jobs/extra.parquet: not a name rocesweep writes", "note: foreign jobs/part-2of2-000001.parquet:",
			"verify: stray nd_stats/part-1of1-000777.parquet:", "1 problem"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := os.CopyFS(dir, os.DirFS(fresh)); err != nil {
				t.Fatal(err)
			}
			tc.edit(t, dir)
			text, complete := verifyStatus(t, dir)
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("status --verify lacks %q:\n%s", w, text)
				}
			}
			if wantComplete := tc.name == "a journal written before checksums"; complete != wantComplete {
				t.Errorf("complete = %v, want %v:\n%s", complete, wantComplete, text)
			}
			if !tc.clean {
				return
			}
			if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--resume"); code != 0 {
				t.Fatalf("resume: exit %d\n%s", code, stderr)
			}
			if text, complete := verifyStatus(t, dir); !complete || !strings.Contains(text, "verify: every journal line's checksum") {
				t.Errorf("status --verify after --resume:\n%s", text)
			}
			checkExactlyOnce(t, dir, expand(t, spec))
		})
	}
}

// A shard being written now (its lock held) has files no commit names yet: a temp file
// and a part renamed before its journal line. verify does not call them strays while it
// runs, and does once it has stopped.
func TestStatusVerifyRunningShardsFiles(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	for _, sh := range []string{"1/2", "2/2"} {
		if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--shard", sh); code != 0 {
			t.Fatalf("run shard %s: exit %d\n%s", sh, code, stderr)
		}
	}
	files, _ := resultsdir.Files(dir, "jobs")
	data, _ := os.ReadFile(files[0])
	os.WriteFile(filepath.Join(dir, "jobs", ".part-2of2-000099.parquet.tmp"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "jobs", "part-2of2-000099.parquet"), data, 0o644)
	unlock, err := dirfs.OS{}.Lock(dirfs.LockName(dir, "2of2"))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := verifyStatus(t, dir)
	if strings.Contains(text, "stray") {
		t.Errorf("status --verify calls a running shard's files strays:\n%s", text)
	}
	unlock()
	text, complete := verifyStatus(t, dir)
	for _, w := range []string{"verify: stray jobs/.part-2of2-000099.parquet.tmp:", "verify: stray jobs/part-2of2-000099.parquet:"} {
		if !strings.Contains(text, w) || complete {
			t.Errorf("status --verify once shard 2/2 stopped lacks %q (complete %v):\n%s", w, complete, text)
		}
	}
}
