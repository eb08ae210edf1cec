package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
)

// verifyReport is what `status --verify` finds beyond the committed files' sizes and
// checksums (docs/results.md §5, §6, §9).
type verifyReport struct {
	// Lines are journal lines that do not count or should not: damaged (checksum, parse,
	// a commit that is not complete), a job id that is not a job of the plan, a job
	// committed more than once.
	Lines []lineProblem `json:"lines,omitempty"`
	// Unverifiable counts, per journal, the lines without a checksum of a journal written
	// before line checksums: read as they are, but not verified.
	Unverifiable map[string]int `json:"unverifiable,omitempty"`
	// Strays are the entries of the table folders (relative, with /) that no commit names
	// and that are not a running shard's work in progress: rocesweep's readers skip them,
	// a glob reader does not; run --resume removes them (folders excepted).
	Strays []string `json:"strays,omitempty"`
	// Links are paths of the directory that are symbolic links where rocesweep writes.
	Links []string `json:"links,omitempty"`
	// PlanNote says why job ids were not checked against the plan, when they were not.
	PlanNote string `json:"plan_note,omitempty"`
}

// lineProblem is one journal line found wanting.
type lineProblem struct {
	Journal string `json:"journal"` // file name in DIR
	Line    int    `json:"line"`    // 1-based
	JobID   string `json:"job_id,omitempty"`
	Problem string `json:"problem"`
}

// problems counts what makes a directory fail verification (unverifiable lines do not).
func (v *verifyReport) problems() int { return len(v.Lines) + len(v.Strays) + len(v.Links) }

// journalCheck is one journal as VerifyJournal read it.
type journalCheck struct {
	name  string // file name in DIR
	shard string // "2of3"
	check *sink.ShardCheck
}

// verifyDir checks what `status --verify` adds to the journals' file checks: every
// line's checksum (VerifyJournal reports the bad ones), every committed job id against
// the plan (planMember), that each job is committed once across all journals, that
// the table folders hold no file that no commit names, and that nothing rocesweep
// writes is a link. st's shards say which writers run now: their files in flight are
// not strays.
func verifyDir(dir string, st *statusReport, checks []journalCheck) *verifyReport {
	v := &verifyReport{}
	member, err := planMember(dir)
	if err != nil {
		v.PlanNote = "job ids not checked against the plan: " + err.Error()
	}
	type loc struct {
		journal string
		line    int
	}
	where := map[string][]loc{}
	var order []string
	committed := map[string]bool{}
	last := map[string]int{}
	incomplete := map[string]bool{} // "2of3/4": commit 4 of shard 2of3 has a closing line but does not count
	for _, jc := range checks {
		for _, p := range jc.check.Lines {
			v.Lines = append(v.Lines, lineProblem{Journal: jc.name, Line: p.Line, JobID: p.JobID, Problem: p.Problem})
		}
		if n := len(jc.check.Unsealed); n > 0 {
			if v.Unverifiable == nil {
				v.Unverifiable = map[string]int{}
			}
			v.Unverifiable[jc.name] = n
		}
		for _, j := range jc.check.Jobs {
			if member != nil && !member(j.ID) {
				v.Lines = append(v.Lines, lineProblem{Journal: jc.name, Line: j.Line, JobID: j.ID,
					Problem: fmt.Sprintf("job %s (commit %d) is not a job of the plan in manifest.json", j.ID, j.Commit)})
			}
			if where[j.ID] == nil {
				order = append(order, j.ID)
			}
			where[j.ID] = append(where[j.ID], loc{jc.name, j.Line})
		}
		for _, f := range jc.check.Files {
			committed[f] = true
		}
		last[jc.shard] = jc.check.LastCommit
		for _, n := range jc.check.Incomplete {
			incomplete[fmt.Sprintf("%s/%d", jc.shard, n)] = true
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
		v.Lines = append(v.Lines, lineProblem{Journal: ls[1].journal, Line: ls[1].line, JobID: id,
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
		_, r := sink.ShardWriter(dir, shard)
		running[shard] = r
		return r
	}
	for _, table := range tableFolders(dir, committed) {
		path := filepath.Join(dir, table)
		if err := sink.CheckNotLink(path); err != nil {
			v.Links = append(v.Links, path)
			continue
		}
		entries, err := os.ReadDir(path)
		if err != nil {
			continue // no folder: a table without rows
		}
		for _, e := range entries {
			rel := table + "/" + e.Name()
			shard, n, temp, ok := sink.ParsePartName(e.Name())
			switch {
			case e.IsDir():
				v.Strays = append(v.Strays, rel+"/")
			case committed[rel]:
			case ok && !temp && incomplete[fmt.Sprintf("%s/%d", shard, n)]:
				// a file of a commit that does not count: reported with the commit
			case ok && isRunning(shard) && (temp || n > last[shard]):
				// a running shard's commit in progress: a temp file, or a part renamed
				// and not yet journalled
			case !ok && strings.HasPrefix(e.Name(), "."):
				// hidden and not rocesweep's: no reader sees it
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
		_, _, journal := sink.ParseJournalName(name)
		if journal || name == "manifest.json" || strings.HasPrefix(name, ".journal") || name == ".manifest.lock" || strings.HasPrefix(name, ".spill-") || name == "csv" {
			v.Links = append(v.Links, filepath.Join(dir, name))
		}
	}
	return v
}

// tableFolders lists the names of the table folders of dir: the tables the manifest
// lists, the tables rocesweep writes, and any folder a commit names a file in.
func tableFolders(dir string, committed map[string]bool) []string {
	names := append([]string{"jobs"}, sweep.RecordTables()...)
	if data, err := os.ReadFile(filepath.Join(dir, "manifest.json")); err == nil {
		var m struct {
			Tables []string `json:"tables"`
		}
		if json.Unmarshal(data, &m) == nil {
			names = append(names, m.Tables...)
		}
	}
	for f := range committed {
		t, _, _ := strings.Cut(f, "/")
		names = append(names, t)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// planMember returns whether a job id is one of the plan that DIR/manifest.json records.
// The plan is made again from the manifest's spec and --set values (sweep.Replan), as
// run --extend does, and must hash to the manifest's plan_hash: else it is not the plan
// that ran (another model version, or a spec that no longer expands the same) and ids
// are not checked. A sequential selection's later rounds add replicates beyond its
// first-stage plan (sweep.Plan.JobFor): their ids are those of every point's replicates
// up to the largest replicate the jobs table holds. An error says why the plan could not
// be made.
func planMember(dir string) (func(id string) bool, error) {
	p, m, err := sweep.Replan(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, errors.New("no manifest.json")
	case err != nil:
		return nil, err
	case m.Spec == "":
		return nil, errors.New("manifest.json records no spec")
	case m.ModelVersion != sweep.ModelVersion:
		return nil, fmt.Errorf("the results are of model %s, this binary plans %s", m.ModelVersion, sweep.ModelVersion)
	case m.PlanHash != "" && p.Hash() != m.PlanHash:
		return nil, fmt.Errorf("the plan made again from manifest.json has hash %s, the manifest records %s", p.Hash(), m.PlanHash)
	}
	ids := make(map[string]bool, len(p.Jobs))
	for _, j := range p.Jobs {
		ids[j.ID] = true
	}
	if m.Select != nil {
		reps := 0
		if jobs, err := results.ReadTable(dir, "jobs", nil); err == nil {
			if rc := jobs.Col("replicate"); rc != nil && !rc.IsString() {
				for r := range rc.Num {
					reps = max(reps, int(rc.Num[r])+1)
				}
			}
		}
		for i := 0; i < p.Points; i++ {
			for r := p.Spec.Replicates; r < reps; r++ {
				ids[p.JobFor(i, r).ID] = true
			}
		}
	}
	return func(id string) bool { return ids[id] }, nil
}

// printVerify prints what verifyDir found, one problem a line, and what to do.
func printVerify(w io.Writer, v *verifyReport) {
	for _, p := range v.Lines {
		id := ""
		if p.JobID != "" && !strings.Contains(p.Problem, p.JobID) {
			id = " (job " + p.JobID + ")"
		}
		fmt.Fprintf(w, "verify: %s line %d%s: %s\n", p.Journal, p.Line, id, p.Problem)
	}
	journals := make([]string, 0, len(v.Unverifiable))
	for j := range v.Unverifiable {
		journals = append(journals, j)
	}
	sort.Strings(journals)
	for _, j := range journals {
		fmt.Fprintf(w, "verify: %s: %d lines have no checksum (written before journal lines had checksums): they are read as they are but cannot be verified; run --resume runs their jobs again\n", j, v.Unverifiable[j])
	}
	for _, s := range v.Strays {
		fmt.Fprintf(w, "verify: stray %s: no complete commit names it; rocesweep's readers skip it, a glob reader does not (run --resume removes stray files)\n", s)
	}
	for _, l := range v.Links {
		fmt.Fprintf(w, "verify: %s is a symbolic link; rocesweep never writes through links: remove it\n", l)
	}
	if v.PlanNote != "" {
		fmt.Fprintf(w, "note: %s\n", v.PlanNote)
	}
	switch n := v.problems(); {
	case n > 0:
		fmt.Fprintf(w, "verify: %s; run the sweep again with --resume: it withdraws damaged commits, runs their jobs again and removes stray files\n", plural(n, "problem"))
	case len(v.Unverifiable) == 0:
		fmt.Fprintln(w, "verify: every journal line's checksum, job id and commit, and every table folder, checked: no problem")
	}
}
