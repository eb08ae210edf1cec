package compare

import (
	"fmt"
	"io"

	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// StudyObjective is the objective manifest.json records in the first of dirs that has
// one (nil when none does): what makes a move better or worse.
func StudyObjective(dirs ...string) *question.Objective {
	for _, d := range dirs {
		if m, err := resultsdir.ReadManifest(d); err == nil && m.Objective != nil {
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

// ModelChange says, when two results directories ran different model versions, what
// compare does about it: job ids include the model version, so the jobs pair by their
// swept values and replicate (pairing p, chosen by the caller); "" when they ran the same.
func ModelChange(baseDir, newDir string, p Pairing) string {
	b, n := ModelVersions(baseDir, newDir)
	if b == n {
		return ""
	}
	how := "job ids include the model version, so the jobs are paired by their swept values and replicate (--by params)"
	if p == PairByJob {
		how = "job ids include the model version, and --by job_id pairs none across it: use --by params"
	}
	return fmt.Sprintf("the model changed: %s ran model_version %s, %s ran %s; %s. What moved may come from the model, not only from the change under test",
		baseDir, orUnknown(b), newDir, orUnknown(n), how)
}

// DefaultMetricsOnBothSides is DefaultMetrics less the metrics one of the two jobs
// tables lacks (a newer model's columns), and those it left out. compare uses it across
// model versions, where new columns are expected rather than a failure.
func DefaultMetricsOnBothSides(baseDir, newDir string) (both, left []string, err error) {
	_, bj, err := resultsdir.ReadJobs(baseDir)
	if err != nil {
		return nil, nil, err
	}
	_, nj, err := resultsdir.ReadJobs(newDir)
	if err != nil {
		return nil, nil, err
	}
	for _, m := range DefaultMetrics() {
		if bj.Col(m) == nil || nj.Col(m) == nil {
			left = append(left, m)
			continue
		}
		both = append(both, m)
	}
	return both, left, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "(not recorded)"
	}
	return s
}

// Bench is one results directory's jobs as WriteBench prints them (compare --bench).
type Bench struct {
	jobs    *resultsdir.Table
	axes    []string
	metrics []string
}

// ReadBench reads dir's jobs table for WriteBench. Without metrics, the study's
// objective names them: its metric and the ones it shows beside it.
func ReadBench(dir string, metrics []string) (*Bench, error) {
	m, jobs, err := resultsdir.ReadJobs(dir)
	if err != nil {
		return nil, err
	}
	if metrics == nil && m.Objective != nil {
		metrics = append([]string{m.Objective.Metric}, m.Objective.Also...)
	}
	return &Bench{jobs: jobs, axes: resultsdir.Axes(m, jobs), metrics: metrics}, nil
}

// Write prints the benchmark lines (WriteBench).
func (b *Bench) Write(w io.Writer) error { return WriteBench(w, b.jobs, b.axes, b.metrics) }
