package sink

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// # The journal, read back
//
// A commit's closing line names its files and, since issue 14, each file's size and
// CRC-32C (Castagnoli) checksum:
//
//	{"commit":3,"jobs":2,"files":["jobs/part-1of1-000003.parquet"],"sums":[{"size":5120,"crc32c":"9a3b00c1"}]}
//
// Reading is line by line and forgiving of damage (issue 14 item 7): a line that does not
// parse, or a job line with a status that is not one of Statuses, is skipped and costs
// only its own commit — the jobs written together with it, whose rows share its files —
// never the commits around it. A commit whose job lines do not add up to its closing
// line's count is not complete: its files are debris and its jobs run again. A
// {"void":C} line withdraws commit C (Open(Resume) appends one when C's files are
// missing or damaged), so its jobs count as not done and its files as debris.

// Statuses are the job statuses the journal may hold (design.md "Results directory").
var Statuses = []string{"ok", "failed", "timeout", "invalid"}

// FileSum is what the journal records of one committed file.
type FileSum struct {
	Size   int64  `json:"size"`
	CRC32C string `json:"crc32c,omitempty"` // 8 hex digits; "" when not known (older journals)
}

// commitInfo is a complete commit of a journal.
type commitInfo struct {
	n     int
	jobs  []JobLine
	files []string  // relative to the results directory, with /
	sums  []FileSum // parallel to files; nil in journals written before checksums
}

// journalState is a journal read back.
type journalState struct {
	commits  []*commitInfo       // complete, not void, in commit order
	complete map[int]*commitInfo // the same, by number
	valid    int64               // bytes of the prefix that ends with the last complete commit or void line
	last     int                 // highest commit number seen
	damaged  []int               // 1-based numbers of lines skipped as damaged
	broken   map[int]bool        // commits with a closing line whose job lines do not add up
	voided   map[int]bool        // commits withdrawn by a void line
	pending  map[int][]JobLine   // job lines of commits without a closing line
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type journalEntry struct {
	JobID  string    `json:"job_id"`
	Status string    `json:"status"`
	Commit *int      `json:"commit"`
	Jobs   *int      `json:"jobs"`
	Files  []string  `json:"files"`
	Sums   []FileSum `json:"sums"`
	Void   *int      `json:"void"`
}

func knownStatus(s string) bool {
	for _, x := range Statuses {
		if x == s {
			return true
		}
	}
	return false
}

// parseJournal reads a journal (see above). A last line without a newline is a torn
// write, not damage: it is ignored, and valid ends before it.
func parseJournal(data []byte) *journalState {
	st := &journalState{complete: map[int]*commitInfo{}, broken: map[int]bool{}, voided: map[int]bool{},
		pending: map[int][]JobLine{}}
	bad := map[int]bool{} // commits with a damaged job line
	var off int64
	for line := 1; len(data) > 0; line++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn last line
		}
		text := data[:i]
		data = data[i+1:]
		off += int64(i + 1)
		var e journalEntry
		if json.Unmarshal(text, &e) != nil {
			st.damaged = append(st.damaged, line)
			continue
		}
		switch {
		case e.Void != nil:
			st.voided[*e.Void] = true
			delete(st.complete, *e.Void)
			st.valid = off
		case e.Commit == nil:
			st.damaged = append(st.damaged, line)
		case e.JobID != "":
			st.last = max(st.last, *e.Commit)
			if !knownStatus(e.Status) {
				st.damaged = append(st.damaged, line)
				bad[*e.Commit] = true
				continue
			}
			st.pending[*e.Commit] = append(st.pending[*e.Commit], JobLine{ID: e.JobID, Status: e.Status})
		case e.Jobs != nil:
			n := *e.Commit
			st.last = max(st.last, n)
			jobs := st.pending[n]
			delete(st.pending, n)
			if *e.Jobs != len(jobs) || bad[n] || st.complete[n] != nil || e.Sums != nil && len(e.Sums) != len(e.Files) {
				st.broken[n] = true
				delete(st.complete, n)
				continue
			}
			st.complete[n] = &commitInfo{n: n, jobs: jobs, files: e.Files, sums: e.Sums}
			st.valid = off
		default:
			st.damaged = append(st.damaged, line)
		}
	}
	for n := range st.voided {
		delete(st.complete, n)
	}
	for _, c := range st.complete {
		st.commits = append(st.commits, c)
	}
	sort.Slice(st.commits, func(i, j int) bool { return st.commits[i].n < st.commits[j].n })
	return st
}

// done returns the jobs of the complete commits, id → status (a later commit wins).
func (st *journalState) done() map[string]string {
	out := map[string]string{}
	for _, c := range st.commits {
		for _, j := range c.jobs {
			out[j.ID] = j.Status
		}
	}
	return out
}

// FileProblem is a committed file that is missing or does not match its journal line.
type FileProblem struct {
	File    string   `json:"file"`    // relative to the results directory
	Problem string   `json:"problem"` // "missing", "size 10 B, journal says 12 B", "checksum ..."
	Commit  int      `json:"commit"`
	Jobs    []string `json:"jobs"` // the job ids whose rows the commit's files hold
}

// checkCommit checks c's files in dir: present, of the recorded size and, with full,
// of the recorded checksum (reading each file whole). It returns one problem per bad file.
func checkCommit(fsys FS, dir string, c *commitInfo, full bool) []FileProblem {
	var out []FileProblem
	for i, f := range c.files {
		var problem string
		name := filepath.Join(dir, filepath.FromSlash(f))
		size, err := fileSize(fsys, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problem = "missing"
		case err != nil:
			problem = err.Error()
		case c.sums == nil:
		case size != c.sums[i].Size:
			problem = fmt.Sprintf("size %d B, the journal says %d B", size, c.sums[i].Size)
		case full && c.sums[i].CRC32C != "":
			sum, err := fileCRC(fsys, name)
			if err != nil {
				problem = err.Error()
			} else if sum != c.sums[i].CRC32C {
				problem = fmt.Sprintf("checksum %s, the journal says %s (the file is damaged)", sum, c.sums[i].CRC32C)
			}
		}
		if problem == "" {
			continue
		}
		p := FileProblem{File: f, Problem: problem, Commit: c.n}
		for _, j := range c.jobs {
			p.Jobs = append(p.Jobs, j.ID)
		}
		out = append(out, p)
	}
	return out
}

// fileSize and fileCRC read through the OS unless fsys can stat and open files itself.
func fileSize(fsys FS, name string) (int64, error) {
	if s, ok := fsys.(interface{ Size(string) (int64, error) }); ok {
		return s.Size(name)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

func fileCRC(fsys FS, name string) (string, error) {
	if _, ok := fsys.(OS); !ok && fsys != nil {
		data, err := fsys.ReadFile(name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%08x", crc32.Checksum(data, castagnoli)), nil
	}
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return fmt.Sprintf("%08x", h.Sum32()), nil
}

// ShardCheck is what VerifyJournal found in one shard's journal.
type ShardCheck struct {
	Done map[string]string // jobs of complete commits whose files are all sound, id → status
	// Problems lists the bad files; their commits' jobs are not in Done.
	Problems []FileProblem
	// DamagedLines are the 1-based numbers of journal lines that did not parse (each
	// costs its commit at most).
	DamagedLines []int
}

// VerifyJournal reads the journal at path (of a results directory dir) and checks every
// committed file: present and of its recorded size, and with full also of its recorded
// checksum (every file read whole). It only reads. `rocesweep status` uses it.
func VerifyJournal(fsys FS, dir, path string, full bool) (*ShardCheck, error) {
	if fsys == nil {
		fsys = OS{}
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := parseJournal(data)
	out := &ShardCheck{Done: map[string]string{}, DamagedLines: st.damaged}
	for _, c := range st.commits {
		probs := checkCommit(fsys, dir, c, full)
		out.Problems = append(out.Problems, probs...)
		if len(probs) > 0 {
			continue
		}
		for _, j := range c.jobs {
			out.Done[j.ID] = j.Status
		}
	}
	return out, nil
}

// describeProblems is the one-line account of bad files for messages.
func describeProblems(ps []FileProblem) string {
	parts := make([]string, 0, len(ps))
	for _, p := range ps {
		parts = append(parts, p.File+": "+p.Problem)
	}
	return strings.Join(parts, "; ")
}
