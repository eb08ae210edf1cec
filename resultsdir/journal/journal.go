// Package journal is the journal of a results directory (docs/results.md §5): the format
// of its lines (job, closing and void lines, each sealed by a checksum), reading a journal
// back forgivingly (Parse), checking the files its commits name (CheckCommit, Verify), and
// the names of the part files a commit may name (ParsePartName). Package sink writes
// journals through it (Seal, AppendCommit, AppendVoid); package resultsdir reads them
// through it. It knows the format, not Parquet or Arrow.
//
// # Closing lines
//
// A commit's closing line names its files and each file's size and CRC-32C (Castagnoli)
// checksum:
//
//	{"commit":3,"jobs":2,"files":["jobs/part-1of1-000003.parquet"],"sums":[{"size":5120,"crc32c":"9a3b00c1"}],"crc":"…"}
//
// # Line checksums
//
// Every line the sink writes (job, closing and void lines) carries a checksum of its own
// content as its last member, "crc": the CRC-32C (Castagnoli) of the line as it is
// without that member, as 8 lowercase hex digits. To check a line (docs/results.md §5):
// it ends with `,"crc":"` + 8 hex digits + `"}`; drop those 18 bytes, put back the `}`,
// and the CRC-32C of that text must equal the digits. So one changed character of a line
// (a job id's digit) makes the line damaged rather than a record of another job.
//
// A journal written before line checksums has none. Such a journal is read as it is
// (report and status accept its lines and count them as unverifiable), except by the
// sink's Open(Resume) (ParseOptions.Strict), which treats every line without a checksum as damaged: their commits
// do not count and their jobs run again. In a journal that has any line with a
// checksum, a line without one is damaged for every reader.
//
// # Damage
//
// Reading is line by line and forgiving of damage: a line that does not parse, whose
// checksum does not match, or a job line with a status that is not one of Statuses, is
// skipped and costs only its own commit — the jobs written together with it, whose rows
// share its files — never the commits around it. A commit whose job lines do not add up
// to its closing line's count is not complete: its files are debris and its jobs run
// again; so is a commit whose closing line names a file that is not one of its own
// (TABLE/part-SHARD-NNNNNN.EXT with this journal's shard and the commit's number). A
// {"void":C} line withdraws commit C (the sink's Open(Resume) appends one when C's files are
// missing or damaged), so its jobs count as not done and its files as debris.
package journal

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
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// JobStatus is how a job ended, as its journal line and the jobs table's status column
// record it (docs/results.md §2). It reads and writes as its text, in JSON too.
type JobStatus string

const (
	StatusOK      JobStatus = "ok"      // the simulation ran to its end
	StatusFailed  JobStatus = "failed"  // the simulation returned an error
	StatusTimeout JobStatus = "timeout" // it ran longer than --max-wall-per-job
	StatusInvalid JobStatus = "invalid" // the point breaks a validation rule, recorded by --skip-invalid
)

// Statuses are the job statuses the journal may hold, in the order the docs list them.
var Statuses = []JobStatus{StatusOK, StatusFailed, StatusTimeout, StatusInvalid}

// Known reports whether s is one of Statuses.
func (s JobStatus) Known() bool { return slices.Contains(Statuses, s) }

// JobLine is a finished job as the journal records it.
type JobLine struct {
	ID     string    `json:"job_id"`
	Status JobStatus `json:"status"`
}

// FileSum is what the journal records of one committed file.
type FileSum struct {
	Size   int64  `json:"size"`
	CRC32C string `json:"crc32c,omitempty"` // 8 hex digits; "" when not known (older journals)
}

// Commit is a complete commit of a journal.
type Commit struct {
	N     int
	Jobs  []JobLine
	Lines []int     // 1-based journal line of each job, parallel to Jobs
	Files []string  // relative to the results directory, with /
	Sums  []FileSum // parallel to Files; nil in journals written before checksums
}

// LineProblem is a journal line that does not count, or a commit that is not complete,
// and why.
type LineProblem struct {
	Line int `json:"line"` // 1-based
	// JobID is the id the line names, when it names one (as written: a damaged line's id
	// is not to be trusted).
	JobID   string `json:"job_id,omitempty"`
	Problem string `json:"problem"`
}

// State is a journal read back.
type State struct {
	Commits  []*Commit       // complete, not void, in commit order
	Complete map[int]*Commit // the same, by number
	Valid    int64           // bytes of the prefix that ends with the last complete commit or void line
	Last     int             // highest commit number seen
	Damaged  []int           // 1-based numbers of lines skipped as damaged
	Problems []LineProblem   // the damaged lines and the incomplete commits, with the reason
	Unsealed []int           // lines without a checksum, accepted (a journal written before checksums)
	Broken   map[int]bool    // commits with a closing line whose job lines do not add up
	Voided   map[int]bool    // commits withdrawn by a void line

	pending  map[int][]JobLine // job lines of commits without a closing line
	pendLine map[int][]int     // their line numbers
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type journalEntry struct {
	JobID  string    `json:"job_id"`
	Status JobStatus `json:"status"`
	Commit *int      `json:"commit"`
	Jobs   *int      `json:"jobs"`
	Files  []string  `json:"files"`
	Sums   []FileSum `json:"sums"`
	Void   *int      `json:"void"`
}

// crcMember is the start of a line's checksum member; a sealed line ends with it, 8 hex
// digits and `"}`.
const crcMember = `,"crc":"`

// crcTail is the length of a line's checksum member with the closing brace.
const crcTail = len(crcMember) + 8 + len(`"}`)

// AppendCommit appends the journal lines of commit n to buf: a job line per job, then
// the closing line, each with its checksum.
func AppendCommit(buf *bytes.Buffer, n int, jobs []JobLine, files []string, sums []FileSum) {
	for _, j := range jobs {
		line, _ := json.Marshal(struct {
			JobLine
			Commit int `json:"commit"`
		}{j, n})
		buf.Write(Seal(line))
		buf.WriteByte('\n')
	}
	marker, _ := json.Marshal(struct {
		Commit int       `json:"commit"`
		Jobs   int       `json:"jobs"`
		Files  []string  `json:"files"`
		Sums   []FileSum `json:"sums"`
	}{n, len(jobs), files, sums})
	buf.Write(Seal(marker))
	buf.WriteByte('\n')
}

// AppendVoid appends to buf the void line that withdraws commit n, with its checksum.
func AppendVoid(buf *bytes.Buffer, n int) {
	buf.Write(Seal(fmt.Appendf(nil, `{"void":%d}`, n)))
	buf.WriteByte('\n')
}

// Seal returns line, one JSON object as json.Marshal writes it, with its checksum
// member ("crc", the CRC-32C of line) added last.
func Seal(line []byte) []byte {
	out := make([]byte, 0, len(line)+crcTail-1)
	out = append(out, line[:len(line)-1]...)
	return fmt.Appendf(out, `%s%08x"}`, crcMember, crc32.Checksum(line, castagnoli))
}

// unsealLine splits a journal line into the object as it was checksummed (the line
// without its checksum member) and the checksum it records; sealed is false for a line
// that does not end with a checksum member.
func unsealLine(text []byte) (body []byte, sum string, sealed bool) {
	n := len(text)
	if n < crcTail+1 || string(text[n-crcTail:n-crcTail+len(crcMember)]) != crcMember || string(text[n-2:]) != `"}` {
		return nil, "", false
	}
	sum = string(text[n-10 : n-2])
	for _, c := range sum {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return nil, "", false
		}
	}
	body = append(append(make([]byte, 0, n-crcTail+1), text[:n-crcTail]...), '}')
	return body, sum, true
}

// ParseOptions says how strictly Parse reads.
type ParseOptions struct {
	// Shard is the journal's shard ("2of3"): a closing line may name only files of that
	// shard and of its own commit number. "" checks no names.
	Shard string
	// Strict makes a line without a checksum damaged even in a journal that has none
	// (the sink's Open(Resume): results written before line checksums cannot be
	// verified, so their jobs run again).
	Strict bool
}

// committedRE is the form of a file a closing line names: TABLE/part-SHARD-NNNNNN.EXT.
var committedRE = regexp.MustCompile(`^([A-Za-z0-9_]+)/part-([0-9]+of[0-9]+)-([0-9]+)\.(parquet|arrow)$`)

// ownFile reports whether name may be a file of commit n of shard (any shard for "").
func ownFile(name, shard string, n int) bool {
	m := committedRE.FindStringSubmatch(name)
	if m == nil || shard != "" && m[2] != shard {
		return false
	}
	k, ok := commitNumber(m[3])
	return ok && k == n
}

// hasSealedLine reports whether any complete line of data ends with a checksum member.
func hasSealedLine(data []byte) bool {
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return false
		}
		if _, _, ok := unsealLine(bytes.TrimSuffix(data[:i], []byte("\r"))); ok {
			return true
		}
		data = data[i+1:]
	}
	return false
}

// jobIDOf is the job id a line names, if it parses at all (for messages only).
func jobIDOf(text []byte) string {
	var e struct {
		JobID string `json:"job_id"`
	}
	_ = json.Unmarshal(text, &e)
	return e.JobID
}

// Parse reads a journal (see above). A last line without a newline is a torn
// write, not damage: it is ignored, and valid ends before it. A line ending in CR LF
// (a journal converted to Windows line ends) is read without its CR: its checksum is
// that of its content.
func Parse(data []byte, opts ParseOptions) *State {
	st := &State{Complete: map[int]*Commit{}, Broken: map[int]bool{}, Voided: map[int]bool{},
		pending: map[int][]JobLine{}, pendLine: map[int][]int{}}
	anySealed := hasSealedLine(data)
	bad := map[int]bool{}    // commits with a damaged job line
	closed := map[int]bool{} // commits whose closing line has been read
	var off int64
	for line := 1; len(data) > 0; line++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break // torn last line
		}
		text := bytes.TrimSuffix(data[:i], []byte("\r")) // a journal converted to CRLF reads as written
		data = data[i+1:]
		off += int64(i + 1)
		damage := func(problem string) {
			st.Damaged = append(st.Damaged, line)
			st.Problems = append(st.Problems, LineProblem{Line: line, JobID: jobIDOf(text), Problem: problem})
		}
		body, sum, sealed := unsealLine(text)
		switch {
		case sealed:
			if got := fmt.Sprintf("%08x", crc32.Checksum(body, castagnoli)); got != sum {
				damage(fmt.Sprintf("checksum %s, the line says %s: the line was changed or damaged", got, sum))
				continue
			}
		case anySealed:
			damage("no checksum, while other lines of the journal have one")
			continue
		case opts.Strict:
			damage("no checksum: written before journal lines had checksums, so it cannot be verified")
			continue
		default:
			body = text
			st.Unsealed = append(st.Unsealed, line)
		}
		var e journalEntry
		if json.Unmarshal(body, &e) != nil {
			damage("not a journal line: it does not parse as JSON")
			continue
		}
		switch {
		case e.Void != nil && (*e.Void < 1 || *e.Void > MaxCommit):
			damage(fmt.Sprintf("void line of commit %d: commit numbers are 1 to %d", *e.Void, MaxCommit))
		case e.Commit != nil && (*e.Commit < 1 || *e.Commit > MaxCommit):
			damage(fmt.Sprintf("commit number %d: commit numbers are 1 to %d", *e.Commit, MaxCommit))
		case e.Void != nil:
			st.Voided[*e.Void] = true
			delete(st.Complete, *e.Void)
			st.Valid = off
		case e.Commit == nil:
			damage("not a journal line: no commit number")
		case e.JobID != "":
			st.Last = max(st.Last, *e.Commit)
			if closed[*e.Commit] {
				// A commit's job lines all precede its closing line (one append): this one
				// was appended again or edited; the commit it names stands as closed.
				damage(fmt.Sprintf("a job line of commit %d after that commit's closing line: appended again or edited", *e.Commit))
				continue
			}
			if !e.Status.Known() {
				damage(fmt.Sprintf("unknown status %q", e.Status))
				bad[*e.Commit] = true
				continue
			}
			st.pending[*e.Commit] = append(st.pending[*e.Commit], JobLine{ID: e.JobID, Status: e.Status})
			st.pendLine[*e.Commit] = append(st.pendLine[*e.Commit], line)
		case e.Jobs != nil:
			n := *e.Commit
			st.Last = max(st.Last, n)
			closed[n] = true
			jobs, lines := st.pending[n], st.pendLine[n]
			delete(st.pending, n)
			delete(st.pendLine, n)
			why := ""
			switch {
			case bad[n]:
				why = fmt.Sprintf("commit %d has a damaged job line", n)
			case *e.Jobs != len(jobs):
				why = fmt.Sprintf("commit %d: the closing line counts %d jobs, %d job lines of it precede it (a job line is damaged, missing or extra)", n, *e.Jobs, len(jobs))
			case st.Complete[n] != nil:
				why = fmt.Sprintf("commit %d is closed twice", n)
			case e.Sums != nil && len(e.Sums) != len(e.Files):
				why = fmt.Sprintf("commit %d: %d files, %d sums", n, len(e.Files), len(e.Sums))
			}
			for _, f := range e.Files {
				if why == "" && !ownFile(f, opts.Shard, n) {
					why = fmt.Sprintf("commit %d names %q, which is not a file of commit %d of this journal's shard", n, f, n)
				}
			}
			if why != "" {
				st.Problems = append(st.Problems, LineProblem{Line: line, Problem: why + ": the commit does not count; run --resume removes its files and runs its jobs again"})
				st.Broken[n] = true
				delete(st.Complete, n)
				continue
			}
			st.Complete[n] = &Commit{N: n, Jobs: jobs, Lines: lines, Files: e.Files, Sums: e.Sums}
			st.Valid = off
		default:
			damage("not a journal line: neither a job, a commit nor a void line")
		}
	}
	for n := range st.Voided {
		delete(st.Complete, n)
	}
	for _, c := range st.Complete {
		st.Commits = append(st.Commits, c)
	}
	sort.Slice(st.Commits, func(i, j int) bool { return st.Commits[i].N < st.Commits[j].N })
	return st
}

// Read returns the jobs of the complete commits of a journal file, id → status.
func Read(fsys dirfs.FS, path string) (map[string]JobStatus, error) {
	if fsys == nil {
		fsys = dirfs.OS{}
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, ParseOptions{Shard: ShardOf(path)}).Done(), nil
}

// Done returns the jobs of the complete commits, id → status (a later commit wins).
func (st *State) Done() map[string]JobStatus {
	out := map[string]JobStatus{}
	for _, c := range st.Commits {
		for _, j := range c.Jobs {
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

// CheckCommit checks c's files in dir: present, of the recorded size and, with full,
// of the recorded checksum (reading each file whole). It returns one problem per bad file.
func CheckCommit(fsys dirfs.FS, dir string, c *Commit, full bool) []FileProblem {
	var out []FileProblem
	for i, f := range c.Files {
		var problem string
		name := filepath.Join(dir, filepath.FromSlash(f))
		size, err := fileSize(fsys, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problem = "missing"
		case err != nil:
			problem = err.Error()
		case c.Sums == nil:
		case size != c.Sums[i].Size:
			problem = fmt.Sprintf("size %d B, the journal says %d B", size, c.Sums[i].Size)
		case full && c.Sums[i].CRC32C != "":
			sum, err := fileCRC(fsys, name)
			if err != nil {
				problem = err.Error()
			} else if sum != c.Sums[i].CRC32C {
				problem = fmt.Sprintf("checksum %s, the journal says %s (the file is damaged)", sum, c.Sums[i].CRC32C)
			}
		}
		if problem == "" {
			continue
		}
		p := FileProblem{File: f, Problem: problem, Commit: c.N}
		for _, j := range c.Jobs {
			p.Jobs = append(p.Jobs, j.ID)
		}
		out = append(out, p)
	}
	return out
}

// fileSize and fileCRC read through the OS unless fsys can stat and open files itself.
// A committed file is never a link (the sink writes none): one is a problem, and its
// size is not its target's.
func fileSize(fsys dirfs.FS, name string) (int64, error) {
	if s, ok := fsys.(interface{ Size(string) (int64, error) }); ok {
		return s.Size(name)
	}
	fi, err := os.Lstat(name)
	if err != nil {
		return 0, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return 0, errors.New("a symbolic link, not the file the commit wrote")
	}
	return fi.Size(), nil
}

func fileCRC(fsys dirfs.FS, name string) (string, error) {
	if _, ok := fsys.(dirfs.OS); !ok && fsys != nil {
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

// ShardCheck is what Verify found in one shard's journal.
type ShardCheck struct {
	Done map[string]JobStatus // jobs of complete commits whose files are all sound, id → status
	// Problems lists the bad files; their commits' jobs are not in Done.
	Problems []FileProblem
	// DamagedLines are the 1-based numbers of journal lines that did not parse or whose
	// checksum does not match (each costs its commit at most).
	DamagedLines []int
	// Lines says why each damaged line, and each commit that is not complete, does not
	// count.
	Lines []LineProblem
	// Unsealed are the lines without a checksum of a journal written before line
	// checksums: they count, but cannot be verified.
	Unsealed []int
	// Jobs are the jobs of the complete commits (sound files or not), in journal order,
	// with the line that records each: a job recorded by two commits is there twice.
	Jobs []JobRecord
	// Files are the files the complete commits name (relative, with /).
	Files []string
	// LastCommit is the highest commit number the journal mentions: a running writer's
	// next files have higher numbers.
	LastCommit int
	// Incomplete are the commits with a closing line that do not count (Lines says
	// why): their files are named by no complete commit.
	Incomplete []int
}

// JobRecord is a job line of a complete commit.
type JobRecord struct {
	JobLine
	Commit int
	Line   int
}

// Verify reads the journal at path (of a results directory dir) and checks every
// line's checksum and every committed file: present and of its recorded size, and with
// full also of its recorded checksum (every file read whole). It only reads. `rocesweep
// status` uses it.
func Verify(fsys dirfs.FS, dir, path string, full bool) (*ShardCheck, error) {
	if fsys == nil {
		fsys = dirfs.OS{}
	}
	data, err := fsys.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st := Parse(data, ParseOptions{Shard: ShardOf(path)})
	out := &ShardCheck{Done: map[string]JobStatus{}, DamagedLines: st.Damaged, Lines: st.Problems,
		Unsealed: st.Unsealed, LastCommit: st.Last}
	for n := range st.Broken {
		if st.Complete[n] == nil {
			out.Incomplete = append(out.Incomplete, n)
		}
	}
	slices.Sort(out.Incomplete)
	for _, c := range st.Commits {
		for i, j := range c.Jobs {
			out.Jobs = append(out.Jobs, JobRecord{JobLine: j, Commit: c.N, Line: c.Lines[i]})
		}
		out.Files = append(out.Files, c.Files...)
		probs := CheckCommit(fsys, dir, c, full)
		out.Problems = append(out.Problems, probs...)
		if len(probs) > 0 {
			continue
		}
		for _, j := range c.Jobs {
			out.Done[j.ID] = j.Status
		}
	}
	return out, nil
}

// ShardOf is the shard tag of a journal file ("2of3", "1of1"), or "" for a file
// whose name is not a journal's.
func ShardOf(path string) string {
	k, n, ok := dirfs.ParseJournalName(filepath.Base(path))
	if !ok {
		return ""
	}
	return strconv.Itoa(k) + "of" + strconv.Itoa(n)
}
