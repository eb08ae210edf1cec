package resultsdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// VerifyReport is what `status --verify` finds beyond the committed files' sizes and
// checksums (docs/results.md §5, §6, §9).
type VerifyReport struct {
	// Lines are journal lines that do not count or should not: damaged (checksum, parse,
	// a commit that is not complete), a job id that is not a job of the plan, a job
	// committed more than once.
	Lines []LineProblem `json:"lines,omitempty"`
	// Unverifiable counts, per journal, the lines without a checksum of a journal written
	// before line checksums: read as they are, but not verified.
	Unverifiable map[string]int `json:"unverifiable,omitempty"`
	// Strays are the entries of the table folders (relative, with /) that no commit names
	// and that are not a running shard's work in progress: rocesweep's readers skip them,
	// a glob reader does not; run --resume removes them (folders excepted).
	Strays []string `json:"strays,omitempty"`
	// Foreign are the entries of the table folders (relative, with /; a folder ends with
	// /) whose names are not rocesweep's: a file of no shard ("jobs/extra.parquet", a
	// user's "jobs/part-00000-my-spark-output.parquet"), a part of a shard without a
	// journal here, a folder. rocesweep's readers skip them and run --resume leaves them
	// (they are not its to remove); a glob reader reads them. A note, not a problem.
	Foreign []string `json:"foreign,omitempty"`
	// Links are paths of the directory that are symbolic links where rocesweep writes.
	Links []string `json:"links,omitempty"`
	// PlanNote says why job ids were not checked against the plan, when they were not.
	PlanNote string `json:"plan_note,omitempty"`
	// ManifestUnsealed is true for a manifest.json without a checksum (written before
	// manifests had one): read as it is, but its spec and objective cannot be verified.
	ManifestUnsealed bool `json:"manifest_unsealed,omitempty"`
}

// LineProblem is one journal line found wanting.
type LineProblem struct {
	Journal string `json:"journal"` // file name in DIR
	Line    int    `json:"line"`    // 1-based
	JobID   string `json:"job_id,omitempty"`
	Problem string `json:"problem"`
}

// problems counts what makes a directory fail verification (unverifiable lines do not).
func (v *VerifyReport) Problems() int { return len(v.Lines) + len(v.Strays) + len(v.Links) }

// JournalCheck is one journal as VerifyJournal read it.
type JournalCheck struct {
	Name  string // file name in DIR
	Shard string // "2of3"
	Check *journal.ShardCheck
}

// VerifyDir checks what `status --verify` adds to the journals' file checks: every
// line's checksum (VerifyJournal reports the bad ones), every committed job id against
// the plan (member; nil: not checked, memberNote says why), that each job is committed once across all journals, that
// the table folders hold no file that no commit names, and that nothing rocesweep
// writes is a link. st's shards say which writers run now: their files in flight are
// not strays.
func VerifyDir(dir string, st *Status, checks []JournalCheck, member func(id string) bool, memberNote string) *VerifyReport {
	v := &VerifyReport{}
	if m := st.Manifest(); m != nil && !m.Sealed {
		v.ManifestUnsealed = true
	}
	if member == nil && memberNote != "" {
		v.PlanNote = "job ids not checked against the plan: " + memberNote
	}
	type loc struct {
		journal string
		line    int
	}
	where := map[string][]loc{}
	var order []string
	committed := map[string]bool{}
	last := map[string]int{} // by the shard of each journal found
	journals := map[string]bool{}
	incomplete := map[string]bool{} // "2of3/4": commit 4 of shard 2of3 has a closing line but does not count
	for _, jc := range checks {
		for _, p := range jc.Check.Lines {
			v.Lines = append(v.Lines, LineProblem{Journal: jc.Name, Line: p.Line, JobID: p.JobID, Problem: p.Problem})
		}
		if n := len(jc.Check.Unsealed); n > 0 {
			if v.Unverifiable == nil {
				v.Unverifiable = map[string]int{}
			}
			v.Unverifiable[jc.Name] = n
		}
		for _, j := range jc.Check.Jobs {
			if member != nil && !member(j.ID) {
				v.Lines = append(v.Lines, LineProblem{Journal: jc.Name, Line: j.Line, JobID: j.ID,
					Problem: fmt.Sprintf("job %s (commit %d) is not a job of the plan in manifest.json", j.ID, j.Commit)})
			}
			if where[j.ID] == nil {
				order = append(order, j.ID)
			}
			where[j.ID] = append(where[j.ID], loc{jc.Name, j.Line})
		}
		for _, f := range jc.Check.Files {
			committed[f] = true
		}
		last[jc.Shard] = jc.Check.LastCommit
		journals[jc.Shard] = true
		for _, n := range jc.Check.Incomplete {
			incomplete[fmt.Sprintf("%s/%d", jc.Shard, n)] = true
		}
	}
	for _, id := range order {
		ls := where[id]
		if len(ls) < 2 {
			continue
		}
		var at []string
		for _, l := range ls {
			at = append(at, fmt.Sprintf("%s line %d", l.journal, l.line))
		}
		v.Lines = append(v.Lines, LineProblem{Journal: ls[1].journal, Line: ls[1].line, JobID: id,
			Problem: fmt.Sprintf("job %s is committed %d times (%s): its rows are in the tables more than once", id, len(ls), strings.Join(at, ", "))})
	}
	sort.SliceStable(v.Lines, func(a, b int) bool {
		if v.Lines[a].Journal != v.Lines[b].Journal {
			return v.Lines[a].Journal < v.Lines[b].Journal
		}
		return v.Lines[a].Line < v.Lines[b].Line
	})

	running := map[string]bool{}
	for _, s := range st.Shards {
		if s.Writer != "" {
			running[strings.Replace(s.Shard, "/", "of", 1)] = true
		}
	}
	isRunning := func(shard string) bool {
		if r, ok := running[shard]; ok {
			return r
		}
		_, r := dirfs.ShardWriter(dir, shard)
		running[shard] = r
		return r
	}
	for _, table := range tableFolders(dir, committed) {
		path := filepath.Join(dir, table)
		if err := dirfs.CheckNotLink(path); err != nil {
			v.Links = append(v.Links, path)
			continue
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			continue // no folder: a table without rows
		}
		for _, e := range entries {
			rel := table + "/" + e.Name()
			shard, n, temp, ok := journal.ParsePartName(e.Name())
			switch {
			case e.IsDir():
				v.Foreign = append(v.Foreign, rel+"/")
			case committed[rel]:
			case ok && !journals[shard]:
				v.Foreign = append(v.Foreign, rel) // no journal of its shard says it is rocesweep's
			case ok && !temp && incomplete[fmt.Sprintf("%s/%d", shard, n)]:
				// a file of a commit that does not count: reported with the commit
			case ok && isRunning(shard) && (temp || n > last[shard]):
				// a running shard's commit in progress: a temp file, or a part renamed
				// and not yet journalled
			case !ok && strings.HasPrefix(e.Name(), "."):
				// hidden and not rocesweep's: no reader sees it
			case !ok:
				v.Foreign = append(v.Foreign, rel)
			default:
				v.Strays = append(v.Strays, rel)
			}
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if e.Type()&fs.ModeSymlink == 0 {
			continue
		}
		_, _, journal := dirfs.ParseJournalName(name)
		if journal || name == ManifestFile || strings.HasPrefix(name, ".journal") || name == ".manifest.lock" || strings.HasPrefix(name, ".spill-") || name == CSVDir {
			v.Links = append(v.Links, filepath.Join(dir, name))
		}
	}
	return v
}

// tableFolders lists the names of the table folders of dir: the tables the manifest
// lists, the tables rocesweep writes, and any folder a commit names a file in.
func tableFolders(dir string, committed map[string]bool) []string {
	names := append([]string{JobsTable}, Tables...)
	if m, err := ReadManifest(dir); err == nil {
		names = append(names, m.Tables...)
	}
	for f := range committed {
		t, _, _ := strings.Cut(f, "/")
		names = append(names, t)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
