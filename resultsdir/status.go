package resultsdir

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/resultsdir/journal"
)

// ShardStatus is one shard's progress (or the total) as its journal records it.
type ShardStatus struct {
	Shard   string `json:"shard"`   // "2/3"; "total" for the total
	Journal string `json:"journal"` // file name in DIR; "" when the shard has not started
	Planned int    `json:"planned"`
	OK      int    `json:"ok"`
	Failed  int    `json:"failed"`
	Timeout int    `json:"timeout"`
	Invalid int    `json:"invalid"`
	Missing int    `json:"missing"` // planned, not in a complete commit of the journal
	// Updated is the journal's modification time (RFC 3339, UTC): the last commit, or the
	// shard's start. "" when the shard has not started.
	Updated string `json:"updated,omitempty"`
	// Writer is the process writing the shard now, in its own words ("pid 4711 on
	// node7, since 2026-11-30T01:02:03Z"); "" when none is (dirfs.ShardWriter).
	Writer string        `json:"writer,omitempty"`
	Age    time.Duration `json:"-"` // since Updated
	K, N   int           `json:"-"` // the shard, K of N
}

// Status is where a results directory stands: its shards' journals, the files they
// name, and (StatusOptions) the study's decision and a full verification.
type Status struct {
	Dir      string `json:"dir"`
	Name     string `json:"name"`
	PlanSize int    `json:"plan_size"`
	// Started is false for a directory that holds only the array script (`rocesweep
	// slurm` wrote it, no task has run yet); Shards is then empty.
	Started bool          `json:"started"`
	Shards  []ShardStatus `json:"shards"`
	Total   ShardStatus   `json:"total"` // jobs counted once, whichever shard recorded them
	// Duplicates counts job ids recorded by more than one journal (shards of different
	// counts in one directory); their rows are in the tables more than once.
	Duplicates int `json:"duplicates"`
	// Damaged lists committed files that are missing or do not match the journal (size;
	// with verification, checksum), each with the jobs whose rows it held: those jobs
	// count as missing, and `run --resume` runs them again.
	Damaged []journal.FileProblem `json:"damaged,omitempty"`
	// DamagedLines counts journal lines that did not parse (each costs its commit).
	DamagedLines int `json:"damaged_lines,omitempty"`
	// ManifestDamage says why manifest.json's checksum does not match (Manifest.Damage):
	// its spec and objective may not be what ran. Not complete while it is set.
	ManifestDamage string   `json:"manifest_damage,omitempty"`
	Complete       bool     `json:"complete"` // every planned job is recorded, every file sound
	Notes          []string `json:"notes,omitempty"`
	// Verify is what verification found beyond the files' checksums (verify.go); nil
	// without it. Any problem in it makes Complete false.
	Verify *VerifyReport `json:"verify,omitempty"`
	// Objective is the study's question (manifest.json). Selection is where a sequential
	// selection (run --select) stands, or, for a fixed design of 2 or more replicates,
	// what its results decide; nil when there is nothing to decide.
	Objective *question.Objective `json:"objective,omitempty"`
	Selection *SelectionStatus    `json:"selection,omitempty"`
	// Bisection is where a bisection (an objective of smallest: or largest:) stands.
	Bisection *BisectionStatus `json:"bisection,omitempty"`
	// StuckPause lists the jobs whose stuck_pause_ports is above 0: a switch port stayed
	// paused for more than half the run with its pool at or below Xon, the trap of
	// switch.md §4.6 condition 3, not congestion.
	StuckPause []string `json:"stuck_pause_jobs,omitempty"`
	// Tables are the rows of each table in the committed files (CountRows): what a
	// reader of exactly those files gets. Only with StatusOptions.Rows (`status`).
	Tables []TableRows `json:"tables,omitempty"`

	manifest *Manifest
}

// Manifest is the directory's manifest; nil when it has none yet.
func (st *Status) Manifest() *Manifest { return st.manifest }

// SelectionStatus is a decision (selection.Decision) with each point named by its swept
// values.
type SelectionStatus struct {
	// Sequential is true for a selection (run --select), false for a fixed design's
	// replicates read as a first stage.
	Sequential bool   `json:"sequential"`
	State      string `json:"state"` // running, decided, budget, infeasible
	Why        string `json:"why"`
	Round      int    `json:"round"` // rounds after the first stage
	// Best is the selected point (decided), or the best so far; nil when none.
	Best       *PointStatus   `json:"best"`
	Survivors  []PointStatus  `json:"survivors"`
	Eliminated []EliminatedPt `json:"eliminated"`
	Jobs       int            `json:"jobs"`       // jobs the procedure used
	NeedJobs   int            `json:"need_jobs"`  // jobs it waits for (state running)
	FixedJobs  int            `json:"fixed_jobs"` // jobs a fixed design of equal confidence would run
	Confidence float64        `json:"confidence"`
	// Indifference is in the objective metric's unit (Unit); resolved from a percent
	// when the objective states one.
	Indifference float64 `json:"indifference"`
	Unit         string  `json:"unit,omitempty"`
	// FirstStage is the first stage's replicates per point (extended past select.initial
	// when the paired differences looked heavy-tailed).
	FirstStage int `json:"first_stage,omitempty"`
	// Rare is the rare-event resolution (select.rare); RareRuns the replicates a pair with
	// equal results, or a point mass, waits before it counts.
	Rare     float64 `json:"rare,omitempty"`
	RareRuns int     `json:"rare_runs,omitempty"`
	// Split is how 1 − confidence is divided between the procedure's statements.
	Split *SplitStatus `json:"split,omitempty"`
	// Conditions is the combined answer of a study whose axes are settings and
	// conditions (objective.combine); nil otherwise. With it, best is null: the answer
	// is here, and survivors and eliminated list the points (cells) in contention.
	Conditions *ConditionsStatus `json:"conditions,omitempty"`
}

// ConditionsStatus is a study's combined answer over its conditions
// (selection.ConditionsDecision; studies.md "Settings and conditions").
type ConditionsStatus struct {
	Combine string   `json:"combine"` // each, mean or worst
	Axes    []string `json:"axes"`    // the jobs columns that are conditions
	// Conditions in plan order; with combine each, each with its own decision.
	Conditions []CombinedCondition `json:"conditions"`
	Weights    []float64           `json:"weights,omitempty"` // mean: normalised to sum 1
	// ConfidenceEach is each condition's confidence with combine each: 1 − α/m.
	ConfidenceEach float64 `json:"confidence_each,omitempty"`
	// Mean and worst: Selected is the selected setting (decided) or the best so far;
	// Settings every setting, the selected first, then by their combined value.
	Selected *SettingStatus  `json:"selected,omitempty"`
	Settings []SettingStatus `json:"settings,omitempty"`
	// Pairs is the number of comparisons the screening's and the rare-event rule's
	// shares of α are spread over: k − 1 settings for mean, (k − 1)·m cell pairs for
	// worst.
	Pairs int `json:"pairs,omitempty"`
}

// CombinedCondition is one condition of a study with conditions (ConditionsStatus):
// its values and, with combine each, its decision.
type CombinedCondition struct {
	Label  string            `json:"label"`
	Values map[string]string `json:"values"` // condition column → value as the spec writes it
	// Each only: the condition's decision.
	State        string       `json:"state,omitempty"`
	Why          string       `json:"why,omitempty"`
	Best         *PointStatus `json:"best,omitempty"` // its selected point (setting at this condition)
	Indifference float64      `json:"indifference,omitempty"`
	Jobs         int          `json:"jobs,omitempty"`
}

// SettingStatus is one setting of a mean or worst decision.
type SettingStatus struct {
	Label  string            `json:"label"`
	Values map[string]string `json:"values"` // setting column → value
	// Means are the setting's mean at each condition (ConditionsStatus.Conditions'
	// order) over the replicates used; Combined its weighted mean or worst case.
	Means    []*float64 `json:"means"`
	Combined *float64   `json:"combined"`
	WorstAt  string     `json:"worst_at,omitempty"` // worst: the condition of its worst case
	// Replicates of each condition used; each costs one job per condition.
	Replicates int    `json:"replicates"`
	State      string `json:"state"` // selected, in contention, eliminated
	Reason     string `json:"reason,omitempty"`
	Round      int    `json:"round,omitempty"` // eliminated: the round it left
}

// SplitStatus is selection.Split for status --json: the error each part may make.
type SplitStatus struct {
	Feasibility float64 `json:"feasibility"`
	PerTest     float64 `json:"per_test"`
	Tests       int     `json:"tests_per_point"`
	Screening   float64 `json:"screening"`
	Rare        float64 `json:"rare_events"`
	PerPair     float64 `json:"per_pair"`
}

// PointStatus is one grid point of a decision.
type PointStatus struct {
	Label      string            `json:"label"`
	Values     map[string]string `json:"values"` // jobs column → value as the spec writes it
	Mean       *float64          `json:"mean"`   // the objective over the replicates used
	Replicates int               `json:"replicates"`
}

// EliminatedPt is a point a decision eliminated.
type EliminatedPt struct {
	PointStatus
	Round  int    `json:"round"` // 0: right after the first stage
	Reason string `json:"reason"`
}

// Decided is a study's decision as ReadStatus needs it (the sweep package replays it).
type Decided struct {
	Selection *SelectionStatus
	Bisection *BisectionStatus
	// Need are the plan indices of the jobs the decision waits for (a selection's next
	// round); they are the shards' missing jobs.
	Need []int
	// Going is true while a selection or a bisection goes on (state running): not
	// complete.
	Going bool
}

// StatusOptions are what ReadStatus needs from beyond the directory.
type StatusOptions struct {
	// ModelVersion is this binary's model version: results of another get a note.
	ModelVersion string
	// Decide replays the study's decision (sweep.DecideDir); nil: none. Called only for a
	// manifest with an objective or a selection; a nil *Decided is no decision.
	Decide func(dir string) (*Decided, error)
	// Verify reads every committed file whole and checks its checksum, and every journal
	// line (VerifyDir); Member says whether a job id is of the plan (nil: not checked,
	// MemberNote says why).
	Verify     bool
	Member     func(id string) bool
	MemberNote string
	// SlurmScript is the array script's name in SlurmDir: a directory holding only it
	// is an array not started yet.
	SlurmScript string
	// Rows counts each table's rows in its committed files (Status.Tables, CountRows):
	// a footer read per Parquet file, the whole file for Arrow IPC.
	Rows bool
}

// ReadStatus reads dir's manifest and journals. now dates the journals' ages. A path
// that is not a results directory is an error.
func ReadStatus(dir string, now time.Time, o StatusOptions) (*Status, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, unwrapPathError(err))
	}
	st := &Status{Dir: dir, Shards: []ShardStatus{}}
	type journalFile struct {
		k, n int
		name string
	}
	var journals []journalFile
	counts := map[int]bool{}
	for _, e := range entries {
		if k, n, ok := dirfs.ParseJournalName(e.Name()); ok && !e.IsDir() {
			journals = append(journals, journalFile{k, n, e.Name()})
			counts[n] = true
		}
	}
	m, err := ReadManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(journals) > 0:
		// run writes the manifest, under the directory lock, before any journal: a
		// journal without one is not rocesweep's.
		return nil, fmt.Errorf("%s is not a results directory: no manifest.json (its %s is not rocesweep's: run writes a manifest before any journal)", dir, journals[0].name)
	case errors.Is(err, fs.ErrNotExist):
		script := filepath.Join(dir, SlurmDir, o.SlurmScript)
		if _, serr := os.Stat(script); serr == nil && o.SlurmScript != "" {
			st.Notes = append(st.Notes, fmt.Sprintf("no task has started yet (the array script is %s; squeue lists its tasks)", script))
			return st, nil
		}
		if hasResultsBelow(dir, entries) {
			return nil, fmt.Errorf("%s is not a results directory: no manifest.json and no journal*.jsonl; it holds results directories (rocesweep ls %s lists them)", dir, dir)
		}
		return nil, fmt.Errorf("%s is not a results directory: no manifest.json and no journal*.jsonl", dir)
	case err != nil:
		return nil, err
	default:
		st.Name, st.PlanSize = m.Name, m.PlanSize
		st.ManifestDamage = m.Damage
		if v := m.ModelVersion; v != "" && o.ModelVersion != "" && v != o.ModelVersion {
			st.Notes = append(st.Notes, fmt.Sprintf("the results are of model %s; this binary runs %s (run --resume refuses to add to them)", v, o.ModelVersion))
		}
	}
	st.manifest = m
	st.Started = true
	selecting := m != nil && m.Select != nil // a selection's rounds run beyond its first stage

	// Every shard of every shard count found, started or not, in order.
	var ns []int
	for n := range counts {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	if len(ns) > 1 {
		var s []string
		for _, n := range ns {
			s = append(s, fmt.Sprint(n))
		}
		st.Notes = append(st.Notes, fmt.Sprintf("journals of %s shard counts: the shards overlap, jobs may be run twice", strings.Join(s, " and ")))
	}
	byShard := map[[2]int]journalFile{}
	for _, j := range journals {
		byShard[[2]int{j.k, j.n}] = j
	}
	var checks []JournalCheck                  // every journal read, for verification
	recordedBy := map[string]int{}             // job id -> journals that hold it
	statusOf := map[string]journal.JobStatus{} // job id -> its status (any one journal's)
	for _, n := range ns {
		for k := 1; k <= n; k++ {
			s := ShardStatus{Shard: fmt.Sprintf("%d/%d", k, n), Planned: ShardSize(st.PlanSize, k, n), K: k, N: n}
			if j, ok := byShard[[2]int{k, n}]; ok {
				path := filepath.Join(dir, j.name)
				check, err := journal.Verify(nil, dir, path, o.Verify)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", path, unwrapPathError(err))
				}
				checks = append(checks, JournalCheck{Name: j.name, Shard: ShardTag(k, n), Check: check})
				st.Damaged = append(st.Damaged, check.Problems...)
				st.DamagedLines += len(check.DamagedLines)
				if fi, err := os.Stat(path); err == nil {
					s.Updated = fi.ModTime().UTC().Format(time.RFC3339)
					s.Age = now.Sub(fi.ModTime())
				}
				s.Journal = j.name
				for id, status := range check.Done {
					s.count(status)
					recordedBy[id]++
					statusOf[id] = status
				}
			}
			if holder, running := dirfs.ShardWriter(dir, ShardTag(k, n)); running {
				s.Writer = cmp.Or(holder, "a process")
			}
			if !selecting {
				s.capAt(s.Planned)
			}
			st.Shards = append(st.Shards, s)
		}
	}
	var dec *Decided
	if m != nil {
		st.Objective = m.Objective
		if (m.Select != nil || m.Objective != nil) && o.Decide != nil {
			d, err := o.Decide(dir)
			switch {
			case err != nil:
				st.Notes = append(st.Notes, fmt.Sprintf("the study's decision cannot be replayed: %v", err))
			case d != nil:
				dec = d
				st.Selection, st.Bisection = d.Selection, d.Bisection
			}
		}
	}
	if dec != nil && selecting {
		// A selection's plan grows by rounds: planned = recorded + the jobs it needs next.
		for i := range st.Shards {
			s := &st.Shards[i]
			s.Missing = 0
			for _, idx := range dec.Need {
				if InShard(idx, s.K, s.N) {
					s.Missing++
				}
			}
			s.Planned = s.OK + s.Failed + s.Timeout + s.Invalid + s.Missing
		}
		st.PlanSize = len(statusOf) + len(dec.Need)
	}
	st.Total = ShardStatus{Shard: "total", Planned: st.PlanSize}
	for id, status := range statusOf {
		st.Total.count(status)
		if recordedBy[id] > 1 {
			st.Duplicates++
		}
	}
	if extra := len(statusOf) - st.PlanSize; extra > 0 && st.PlanSize > 0 && !selecting {
		st.Notes = append(st.Notes, fmt.Sprintf("the journals hold %d jobs more than the plan's %d (lines not of this plan); counts are capped at the plan", extra, st.PlanSize))
	}
	st.Total.capAt(st.PlanSize)
	if st.DamagedLines > 0 {
		st.Notes = append(st.Notes, fmt.Sprintf("%d journal lines are damaged; the jobs of their commits count as missing", st.DamagedLines))
	}
	st.Complete = st.PlanSize > 0 && st.Total.Missing == 0 && len(st.Damaged) == 0 && st.ManifestDamage == ""
	if dec != nil && selecting && dec.Going {
		st.Complete = false // the selection goes on: run --resume
	}
	if o.Verify {
		st.Verify = VerifyDir(dir, st, checks, o.Member, o.MemberNote)
		st.Complete = st.Complete && st.Verify.Problems() == 0
	}
	st.StuckPause = stuckPauseJobs(dir)
	if o.Rows {
		tables, err := CountRows(dir)
		if err != nil {
			st.Notes = append(st.Notes, fmt.Sprintf("rows not counted: %v", err))
		}
		st.Tables = tables
	}
	return st, nil
}

// hasResultsBelow reports whether a folder of dir holds results (a parent of results
// directories, such as results/).
func hasResultsBelow(dir string, entries []fs.DirEntry) bool {
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if sub, err := os.ReadDir(filepath.Join(dir, e.Name())); err == nil && HasResults(sub) {
			return true
		}
	}
	return false
}

// stuckPauseJobs returns the ids of the jobs whose stuck_pause_ports is above 0, read
// from DIR/jobs; none when the table or the column is absent (older results).
func stuckPauseJobs(dir string) []string {
	if _, err := os.Stat(filepath.Join(dir, JobsTable)); err != nil {
		return nil
	}
	jobs, err := ReadTable(dir, JobsTable, nil)
	if err != nil {
		return nil
	}
	ids, stuck := jobs.Col("job_id"), jobs.Col("stuck_pause_ports")
	if ids == nil || stuck == nil || stuck.IsString() {
		return nil
	}
	var out []string
	for i := 0; i < jobs.Rows; i++ {
		if stuck.Num[i] > 0 {
			out = append(out, ids.Text(i))
		}
	}
	return out
}

// capAt makes the counts fit a plan of planned jobs (a journal with foreign lines must
// not report more jobs done than planned) and sets Missing.
func (s *ShardStatus) capAt(planned int) {
	for _, n := range []*int{&s.OK, &s.Failed, &s.Timeout, &s.Invalid} {
		*n = min(*n, planned)
		planned -= *n
	}
	s.Missing = planned
}

func (s *ShardStatus) count(status journal.JobStatus) {
	switch status {
	case journal.StatusOK:
		s.OK++
	case journal.StatusFailed:
		s.Failed++
	case journal.StatusTimeout:
		s.Timeout++
	case journal.StatusInvalid:
		s.Invalid++
	}
}

// unwrapPathError drops the path an *fs.PathError repeats (the message names it once).
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
