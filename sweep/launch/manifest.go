package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// The manifest a run writes and the checks a run makes against the one it finds
// (docs/results.md; resultsdir.Manifest is the file's one type).

// manifestOf is the manifest a run of plan p with options o writes.
func manifestOf(p *sweep.Plan, o Options, start time.Time, tables []resultsdir.Schema) *resultsdir.Manifest {
	m := &resultsdir.Manifest{Name: p.Spec.Base.Name, SpecFile: p.Spec.File, Spec: string(p.Spec.Text), Sets: p.Spec.Sets, Grids: p.Spec.Grids,
		PlanSize: len(p.Jobs), PlanHash: p.Hash(), Replicates: p.Spec.Replicates, ModelVersion: model.Version,
		Version: o.ToolVersion, CommandLine: o.CommandLine, Start: start.UTC().Format(time.RFC3339), Format: string(o.Format), Shards: max(o.Shard.N, 1),
		Objective: p.Spec.Objective, Select: o.Selection}
	for _, a := range p.Axes {
		m.Axes = append(m.Axes, a.Path)
		m.AxisZip = append(m.AxisZip, a.Zip)
	}
	for _, t := range tables {
		m.Tables = append(m.Tables, t.Name)
	}
	return m
}

// CheckDir is the check Run makes before it writes into dir, without --force: nil when
// dir has no manifest.json, or one of the same plan, model version and format f; else an
// error naming dir and the difference. Launchers (rocesweep slurm) call it so that a
// mismatch is refused before any task is submitted rather than by every task.
func CheckDir(p *sweep.Plan, dir string, f resultsdir.Format) error {
	return checkManifest(p, Options{Dir: dir, Format: f})
}

// checkManifest refuses a directory whose manifest has another plan, model version or
// format, unless --force.
func checkManifest(p *sweep.Plan, o Options) error {
	m, err := resultsdir.ReadManifestFS(o.FS, o.Dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		if o.Force {
			return nil
		}
		return fmt.Errorf("output directory %s: %w (use --force to overwrite it)", o.Dir, err)
	}
	if m.Damage != "" && !o.Force {
		// What ran is known from the manifest alone (the spec, the question): one that
		// was edited or damaged is not built on.
		return fmt.Errorf("output directory %s: %s: %s; restore it, or use another -o (--force writes it anew from this run)", o.Dir, resultsdir.ManifestFile, m.Damage)
	}
	if m.ModelVersion == "" || m.PlanHash == "" {
		// JSON, but not rocesweep's: a directory is rocesweep's only if its manifest says
		// so, and no flag overwrites a user's file.
		return fmt.Errorf("output directory %s holds a manifest.json that rocesweep did not write (no model_version or plan_hash); use a new or empty directory", o.Dir)
	}
	var diffs []string
	if m.ModelVersion != model.Version {
		diffs = append(diffs, fmt.Sprintf("model version %s, this tool runs %s", m.ModelVersion, model.Version))
	}
	extends := m.PlanHash != p.Hash() && extendsPlan(m, p) == nil
	switch {
	case m.PlanHash == p.Hash() || o.Extend && extends:
	case o.Extend:
		diffs = append(diffs, extendsPlan(m, p).Error())
	default:
		diffs = append(diffs, fmt.Sprintf("a plan of %d jobs (%s) that differs from this one of %d jobs (%s)", m.PlanSize, m.PlanHash, len(p.Jobs), strings.Join(planDiff(m, p), "; ")))
	}
	if m.Format != "" && m.Format != string(o.Format) {
		diffs = append(diffs, fmt.Sprintf("format %s, not %s", m.Format, o.Format))
	}
	if len(diffs) > 0 && !o.Force {
		hint := "use another -o for this plan (--force adds its jobs to the other plan's results: one directory of two studies)"
		if len(diffs) == 1 && extends {
			hint = "use another -o, or --extend to run the jobs of this plan it lacks"
		}
		return fmt.Errorf("output directory %s holds results of %s; %s", o.Dir, strings.Join(diffs, " and "), hint)
	}
	return nil
}

// extendsPlan says why p does not extend the plan of manifest m, or nil when it does:
// p has the same swept columns (its rows have the same schema) and contains every job of
// m's plan, re-planned from the spec and --set values m records (so a changed base
// setting, which changes every job id, is not an extension).
func extendsPlan(m *resultsdir.Manifest, p *sweep.Plan) error {
	if !sameColumns(m.Axes, p.Axes) {
		return fmt.Errorf("swept columns %v, not this plan's %v (--extend adds points to the same axes)", columnsOf(m.Axes), axisColumns(p.Axes))
	}
	s, err := specfile.ParseOverrides(m.SpecFile, []byte(m.Spec), specfile.Overrides{Sets: m.Sets, Grids: m.Grids})
	if err != nil {
		return fmt.Errorf("a plan that cannot be re-planned from its manifest (%w)", err)
	}
	old, err := sweep.Expand(s, nil)
	if err != nil {
		return fmt.Errorf("a plan that cannot be re-planned from its manifest (%w)", err)
	}
	ids := map[string]bool{}
	for _, j := range p.Jobs {
		ids[j.ID] = true
	}
	n := 0
	for _, j := range old.Jobs {
		if !ids[j.ID] {
			n++
		}
	}
	if n > 0 {
		return fmt.Errorf("a plan with %d of its %d jobs not in this one (--extend only adds jobs: a changed base setting changes every job)", n, len(old.Jobs))
	}
	return nil
}

// sameColumns reports whether a manifest's axes (paths as a spec wrote them) make the
// same jobs columns as axes: an extended plan writes rows of the same schema.
func sameColumns(paths []string, axes []*specfile.Axis) bool {
	return slices.Equal(columnsOf(paths), axisColumns(axes))
}

func columnsOf(paths []string) []string {
	out := []string{}
	for _, p := range paths {
		out = append(out, resultsdir.ColumnOf(p))
	}
	return out
}

func axisColumns(axes []*specfile.Axis) []string {
	out := []string{}
	for _, a := range axes {
		out = append(out, a.Column)
	}
	return out
}

// writeManifest writes manifest.json when absent (the first shard to start writes it),
// or over an old one with --force or --extend (the extended plan), or when this run asks
// another question of the same plan (another objective, or a selection where a fixed
// design ran): readers must see what the results now answer.
func writeManifest(p *sweep.Plan, o Options, start time.Time, tables []resultsdir.Schema) error {
	name := filepath.Join(o.Dir, resultsdir.ManifestFile)
	if m, err := resultsdir.ReadManifestFS(o.FS, o.Dir); err == nil && !o.Force && !(o.Extend && m.PlanHash != p.Hash()) &&
		sameQuestion(m, p.Spec.Objective, o.Selection) {
		// another shard wrote it; a temp file this shard's killed run left goes
		dirfs.RemoveAtomicTemp(o.FS, name, o.Shard.Tag())
		return nil
	}
	return dirfs.WriteFileAtomic(o.FS, name, o.Shard.Tag(), manifestOf(p, o, start, tables).Marshal())
}

// sameQuestion reports whether manifest m records objective obj and selection sel.
func sameQuestion(m *resultsdir.Manifest, obj *question.Objective, sel *question.Config) bool {
	a, _ := json.Marshal(struct {
		O *question.Objective
		S *question.Config
	}{m.Objective, m.Select})
	b, _ := json.Marshal(struct {
		O *question.Objective
		S *question.Config
	}{obj, sel})
	return string(a) == string(b)
}

// planDiff names what differs between the plan manifest m records and p: the swept
// columns, replicates, --set values, an axis's values, or the base settings (which change
// every job id); the spec text when nothing else is found.
func planDiff(m *resultsdir.Manifest, p *sweep.Plan) []string {
	var d []string
	if !sameColumns(m.Axes, p.Axes) {
		d = append(d, fmt.Sprintf("swept columns %v, this plan's %v", columnsOf(m.Axes), axisColumns(p.Axes)))
	}
	if m.Replicates != p.Spec.Replicates {
		d = append(d, fmt.Sprintf("replicates %d, this plan's %d", m.Replicates, p.Spec.Replicates))
	}
	if !slices.Equal(m.Sets, p.Spec.Sets) {
		d = append(d, fmt.Sprintf("--set %v, this run's %v", m.Sets, p.Spec.Sets))
	}
	if !slices.Equal(m.Grids, p.Spec.Grids) {
		d = append(d, fmt.Sprintf("--grid %v, this run's %v", m.Grids, p.Spec.Grids))
	}
	s, err := specfile.ParseOverrides(m.SpecFile, []byte(m.Spec), specfile.Overrides{Sets: m.Sets, Grids: m.Grids})
	if err != nil {
		return append(d, fmt.Sprintf("its spec does not parse now: %v", err))
	}
	old := map[string]*specfile.Axis{}
	for _, a := range s.Axes {
		old[a.Column] = a
	}
	for _, a := range p.Axes {
		if b := old[a.Column]; b != nil && !slices.Equal(valueTexts(b), valueTexts(a)) {
			d = append(d, fmt.Sprintf("%s values %v, this plan's %v", a.Column, valueTexts(b), valueTexts(a)))
		}
	}
	for _, at := range config.Schema() {
		was, err1 := s.Base.Get(at.Path)
		now, err2 := p.Spec.Base.Get(at.Path)
		if err1 == nil && err2 == nil && was != now && at.Path != "name" {
			d = append(d, fmt.Sprintf("%s %s, this spec's %s", at.Path, was, now))
		}
	}
	if len(d) == 0 {
		d = append(d, fmt.Sprintf("spec text of %s differs", cmpOr(m.SpecFile, "manifest.json")))
	}
	if len(d) > 4 {
		d = append(d[:4], fmt.Sprintf("%d more", len(d)-4))
	}
	return d
}

// valueTexts is the values of axis a as the spec writes them.
func valueTexts(a *specfile.Axis) []string {
	out := []string{}
	for _, v := range a.Values {
		out = append(out, v.Text)
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
