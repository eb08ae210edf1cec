package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/sweep"
)

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
func printVerify(w io.Writer, v *results.VerifyReport) {
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
	switch n := v.Problems(); {
	case n > 0:
		fmt.Fprintf(w, "verify: %s; run the sweep again with --resume: it withdraws damaged commits, runs their jobs again and removes stray files\n", plural(n, "problem"))
	case len(v.Unverifiable) == 0:
		fmt.Fprintln(w, "verify: every journal line's checksum, job id and commit, and every table folder, checked: no problem")
	}
}
