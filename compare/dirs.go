package compare

import (
	"fmt"
	"io"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/selection"
)

// StudyObjective is the objective manifest.json records in the first of dirs that has
// one (nil when none does): what makes a move better or worse.
func StudyObjective(dirs ...string) *selection.Objective {
	for _, d := range dirs {
		if m, err := results.ReadManifest(d); err == nil && m.Objective != nil {
			return m.Objective
		}
	}
	return nil
}

// ModelVersionWarning says, when two results directories ran different model versions,
// that their differences may come from the model; "" when they ran the same.
func ModelVersionWarning(baseDir, newDir string) string {
	b, n := ModelVersions(baseDir, newDir)
	if b == n {
		return ""
	}
	return fmt.Sprintf("%s ran model_version %s, %s ran %s: differences may come from the model, not the change under test",
		baseDir, orUnknown(b), newDir, orUnknown(n))
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

// Bench is one results directory's jobs as WriteBench prints them (compare --bench).
type Bench struct {
	jobs    *results.Table
	axes    []string
	metrics []string
}

// ReadBench reads dir's jobs table for WriteBench. Without metrics, the study's
// objective names them: its metric and the ones it shows beside it.
func ReadBench(dir string, metrics []string) (*Bench, error) {
	m, jobs, err := results.ReadJobs(dir)
	if err != nil {
		return nil, err
	}
	if metrics == nil && m.Objective != nil {
		metrics = append([]string{m.Objective.Metric}, m.Objective.Also...)
	}
	return &Bench{jobs: jobs, axes: results.Axes(m, jobs), metrics: metrics}, nil
}

// Write prints the benchmark lines (WriteBench).
func (b *Bench) Write(w io.Writer) error { return WriteBench(w, b.jobs, b.axes, b.metrics) }
