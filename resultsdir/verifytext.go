package resultsdir

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Findings are the lines status --verify prints for v, one problem a line: damaged
// journal lines, journals without checksums, stray files, symbolic links, and why job ids
// were not checked against the plan.
func (v *VerifyReport) Findings() []string {
	var out []string
	for _, p := range v.Lines {
		id := ""
		if p.JobID != "" && !strings.Contains(p.Problem, p.JobID) {
			id = " (job " + p.JobID + ")"
		}
		out = append(out, fmt.Sprintf("verify: %s line %d%s: %s", p.Journal, p.Line, id, p.Problem))
	}
	for _, j := range slices.Sorted(maps.Keys(v.Unverifiable)) {
		out = append(out, fmt.Sprintf("verify: %s: %d lines have no checksum (written before journal lines had checksums): they are read as they are but cannot be verified; run --resume runs their jobs again", j, v.Unverifiable[j]))
	}
	for _, s := range v.Strays {
		out = append(out, fmt.Sprintf("verify: stray %s: no complete commit names it; rocesweep's readers skip it, a glob reader does not (run --resume removes stray files)", s))
	}
	for _, f := range v.Foreign {
		out = append(out, fmt.Sprintf("note: foreign %s: not a name rocesweep writes (or of a shard without a journal here); its readers skip it and run --resume leaves it, a glob reader reads it: move it out of the results if it is not one", f))
	}
	for _, l := range v.Links {
		out = append(out, fmt.Sprintf("verify: %s is a symbolic link; rocesweep never writes through links: remove it", l))
	}
	if v.ManifestUnsealed {
		out = append(out, "note: manifest.json has no checksum (written before manifests had one): read as it is, its spec and objective cannot be verified")
	}
	if v.PlanNote != "" {
		out = append(out, fmt.Sprintf("note: %s", v.PlanNote))
	}
	return out
}
