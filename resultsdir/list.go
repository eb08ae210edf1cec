package resultsdir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/rocesweep/rocesweep/question"
)

// The states List gives a directory.
const (
	StateComplete   = "complete"    // every planned job recorded, every file sound (a selection: decided)
	StatePartial    = "partial"     // jobs missing, no process writing: run --resume
	StateRunning    = "running"     // a process writes a shard now
	StateSubmitted  = "submitted"   // only a Slurm array script: no task has started
	StateEmpty      = "empty"       // nothing, or only rocesweep's hidden files
	StateNotResults = "not results" // files no rocesweep command writes
	StateUnreadable = "unreadable"  // a manifest or journal that does not read (Note says why)
)

// Run is one results directory as List finds it.
type Run struct {
	Name  string `json:"name"` // the directory's name
	Dir   string `json:"dir"`
	State string `json:"state"`
	Study string `json:"study,omitempty"` // the spec's name
	Spec  string `json:"spec,omitempty"`  // the spec file run was given
	Sim   bool   `json:"sim,omitempty"`   // written by `rocesweep sim`
	// OK counts the jobs recorded ok; Planned the plan's jobs (a selection's: those
	// recorded and those it needs next).
	OK        int                 `json:"ok"`
	Planned   int                 `json:"planned"`
	Objective *question.Objective `json:"objective,omitempty"`
	Select    *question.Config    `json:"select,omitempty"`
	// Decision is the state of the study's decision (running, decided, budget,
	// infeasible) when one was replayed.
	Decision     string `json:"decision,omitempty"`
	ModelVersion string `json:"model_version,omitempty"`
	Started      string `json:"started,omitempty"` // RFC 3339, UTC, as manifest.json records it
	Bytes        int64  `json:"bytes"`             // every file under the directory
	Note         string `json:"note,omitempty"`
}

// List returns the results directories under dir, in name order: each folder of dir
// (hidden ones excepted) with its state, or dir alone when it is a results directory
// itself. Folders that hold no results are listed too, as empty or not results. o is
// what ReadStatus needs (no verification).
func List(dir string, now time.Time, o StatusOptions) ([]Run, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPathError(err))
	}
	o.Verify = false
	if HasResults(entries) {
		return []Run{listOne(dir, entries, now, o)}, nil
	}
	out := []Run{}
	for _, e := range entries {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		subEntries, err := os.ReadDir(sub)
		if err != nil {
			out = append(out, Run{Name: e.Name(), Dir: sub, State: StateUnreadable, Note: unwrapPathError(err).Error()})
			continue
		}
		out = append(out, listOne(sub, subEntries, now, o))
	}
	return out, nil
}

// listOne is the Run of directory dir, whose listing is entries.
func listOne(dir string, entries []fs.DirEntry, now time.Time, o StatusOptions) Run {
	r := Run{Name: filepath.Base(dir), Dir: dir, Bytes: dirBytes(dir)}
	if !HasResults(entries) {
		switch {
		case len(Foreign(dir, entries)) > 0:
			r.State = StateNotResults
		case o.SlurmScript != "" && exists(filepath.Join(dir, SlurmDir, o.SlurmScript)):
			r.State = StateSubmitted
		default:
			r.State = StateEmpty
		}
		return r
	}
	st, err := ReadStatus(dir, now, o)
	if err != nil {
		r.State, r.Note = StateUnreadable, err.Error()
		return r
	}
	if m := st.Manifest(); m != nil {
		r.Study, r.Spec, r.Sim = m.Name, m.SpecFile, m.IsSim()
		r.Objective, r.Select = m.Objective, m.Select
		r.ModelVersion, r.Started = m.ModelVersion, m.Start
	}
	r.OK, r.Planned = st.Total.OK, st.PlanSize
	if st.Selection != nil {
		r.Decision = st.Selection.State
	}
	if b := st.Bisection; b != nil {
		r.Decision = "bisection " + b.State
	}
	r.State = StatePartial
	for _, s := range st.Shards {
		if s.Writer != "" {
			r.State = StateRunning
		}
	}
	if st.Complete && r.State != StateRunning {
		r.State = StateComplete
	}
	if len(st.Notes) > 0 {
		r.Note = st.Notes[0]
	}
	return r
}

// dirBytes is the size of every regular file under dir.
func dirBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
