package compare_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/question"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// setManifest rewrites dir's manifest with a model version and an objective.
func setManifest(t *testing.T, dir, version string, o *question.Objective) {
	t.Helper()
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.ModelVersion, m.Objective = version, o
	if err := os.WriteFile(filepath.Join(dir, resultsdir.ManifestFile), m.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDirsObjectiveVersionsBench(t *testing.T) {
	a, b, none := t.TempDir(), t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := resultstest.Write(d, resultstest.Grid([]float64{0.5, 1}, []float64{200e3}, 1, false)); err != nil {
			t.Fatal(err)
		}
	}
	obj := &question.Objective{Metric: "drops_total", Goal: question.Min, Also: []string{"fct_p99_usec"}}
	setManifest(t, a, "v1", obj)
	setManifest(t, b, "v2", nil)

	if got := compare.StudyObjective(b, none, a); got == nil || got.Metric != "drops_total" {
		t.Errorf("StudyObjective(b, none, a) = %+v, want a's", got)
	}
	if got := compare.StudyObjective(b, none); got != nil {
		t.Errorf("StudyObjective without one = %+v", got)
	}
	for _, tc := range []struct{ base, nw, want string }{
		{a, a, ""},
		{a, b, a + " ran model_version v1, " + b + " ran v2: differences may come from the model"},
		{a, none, a + " ran model_version v1, " + none + " ran (not recorded)"},
	} {
		if got := compare.ModelVersionWarning(tc.base, tc.nw); (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("ModelVersionWarning(%s, %s) = %q, want %q...", tc.base, tc.nw, got, tc.want)
		}
	}

	if _, err := compare.ReadBench(none, nil); err == nil || !strings.Contains(err.Error(), "is not a results directory") {
		t.Errorf("ReadBench of an empty directory: %v", err)
	}
	bench, err := compare.ReadBench(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := bench.Write(&out); err != nil {
		t.Fatal(err)
	}
	// Without --metric, the objective's metric and its also metrics, one line each per job.
	if n, d, f := strings.Count(out.String(), "\n"), strings.Count(out.String(), "/drops_total 1 "), strings.Count(out.String(), "/fct_p99_usec 1 "); n != 4 || d != 2 || f != 2 {
		t.Errorf("bench lines (%d, %d drops, %d fct):\n%s", n, d, f, out.String())
	}
}
