package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
)

func TestCompareCommand(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	base := filepath.Join(t.TempDir(), "base")
	if err := resultstest.Write(base, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, false)); err != nil {
		t.Fatal(err)
	}
	perturbed := filepath.Join(t.TempDir(), "new")
	// Copy through the real writer with job j0006's fct_p99_usec moved by 1e-6 relative.
	err := resultstest.Copy(base, perturbed, func(tb *resultsdir.Table) {
		if tb.Name == "jobs" {
			for i, id := range tb.Col("job_id").Str {
				if id == "j0006" {
					tb.Col("fct_p99_usec").Num[i] *= 1 + 1e-6
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	otherModel := filepath.Join(t.TempDir(), "other")
	if err := resultstest.Copy(base, otherModel, nil); err != nil {
		t.Fatal(err)
	}
	setManifest(t, otherModel, "model_version", "rocesweep-model/9.9.9")
	setManifest(t, base, "model_version", "rocesweep-model/0.1.0")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		stderr   []string
		noStdout []string
	}{
		{"itself", []string{base, base}, 0, []string{"compared 8 jobs", "fct_p99_usec"}, nil, []string{"BEYOND"}},
		{"perturbed", []string{base, perturbed}, 1, []string{"j0006", "fct_p99_usec", "BEYOND tolerance"},
			[]string{"job j0006 fct_p99_usec"}, nil},
		{"perturbed within rtol", []string{base, perturbed, "--rtol", "1e-5"}, 0, []string{"within tolerance"}, nil, nil},
		{"perturbed, metric not chosen", []string{base, perturbed, "--metric", "drops_total"}, 0, nil, nil, []string{"j0006"}},
		{"json", []string{base, perturbed, "--json"}, 1, []string{`"failed": true`, `"job_id": "j0006"`}, nil, nil},
		{"bench", []string{base, perturbed, "--bench", "--metric", "fct_p99_usec"}, 1,
			[]string{"BenchmarkSweep/LossyAlpha=1/StaticPoolXoffThreshold=200KB/fct_p99_usec 1 480.0104800099999 usec"}, nil, nil},
		{"bench one dir", []string{base, "--bench", "--metric", "drops_total"}, 0,
			[]string{"BenchmarkSweep/LossyAlpha=0.5/StaticPoolXoffThreshold=200KB/drops_total 1 50 drops_total"}, nil, nil},
		// One replicate differs: the paired interval over 2 replicates includes 0, so by
		// params it is beyond tolerance but has not moved.
		{"by params, noise", []string{base, perturbed, "--by", "params"}, 0,
			[]string{"compared 4 points (8 jobs paired", "beyond tolerance, within noise"}, nil, []string{"MOVED"}},
		{"by bogus", []string{base, base, "--by", "seed"}, 2, nil, []string{`--by "seed"`}, nil},
		{"NaN rtol", []string{base, base, "--rtol", "NaN"}, 2, nil, []string{"--rtol NaN"}, nil},
		{"NaN atol", []string{base, base, "--atol", "nan"}, 2, nil, []string{"--atol NaN"}, nil},
		{"model versions differ", []string{base, otherModel}, 0, nil, []string{"model_version rocesweep-model/0.1.0", "ran rocesweep-model/9.9.9"}, nil},
		{"one dir", []string{base}, 2, nil, []string{"want BASE_DIR NEW_DIR"}, nil},
		{"negative rtol", []string{base, base, "--rtol", "-1"}, 2, nil, []string{"--rtol"}, nil},
		{"unknown metric", []string{base, base, "--metric", "fct"}, 2, nil, []string{"--metric fct"}, nil},
		{"unknown metric by params", []string{base, base, "--by", "params", "--metric", "fct"}, 2, nil, []string{"--metric fct"}, nil},
		{"missing dir", []string{base, filepath.Join(base, "nope")}, 2, nil, []string{"nope"}, nil},
		{"missing dir by params", []string{filepath.Join(base, "nope"), base, "--by", "params"}, 2, nil, []string{"nope"}, nil},
		{"bench missing dir", []string{filepath.Join(base, "nope"), "--bench"}, 2, nil, []string{"nope"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := mainWithArgs(context.Background(), append([]string{"compare"}, tt.args...), &out, &errb)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, out.String(), errb.String())
			}
			for _, s := range tt.stdout {
				if !strings.Contains(out.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.noStdout {
				if strings.Contains(out.String(), s) {
					t.Errorf("stdout has %q:\n%s", s, out.String())
				}
			}
			for _, s := range tt.stderr {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
		})
	}
}

// setManifest sets one key of DIR/manifest.json.
func setManifest(t *testing.T, dir, key string, v any) {
	t.Helper()
	name := filepath.Join(dir, "manifest.json")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m[key] = v
	b, _ = json.Marshal(m)
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two runs of one spec that differ by a non-swept --set have different job ids, so by
// job_id nothing pairs (exit 2, naming --by params); --by params pairs all 36 jobs by point and replicate, and the
// changed setting's effect moves, with an interval of zero width.
func TestCompareByParamsNonSweptSet(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec) // 4 x 3 points x 3 replicates, duration 100us
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", a, "-j", "2"); code != 0 {
		t.Fatalf("run a: exit %d\n%s", code, stderr)
	}
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", b, "-j", "2", "--set", "duration=200us"); code != 0 {
		t.Fatalf("run b: exit %d\n%s", code, stderr)
	}
	for _, tt := range []struct {
		args   []string
		code   int
		stdout []string
	}{
		{[]string{"--metric", "sim_time_sec"}, 2, []string{"rocesweep: compare: no job of " + b + " has a job_id of " + a + " (36 and 36 jobs): nothing to compare; their job ids differ (a job id names its whole configuration): --by params pairs 36 jobs of 12 points by switch.LossyAlpha × switch.StaticPoolXoffThreshold and replicate"}},
		{[]string{"--by", "params", "--metric", "sim_time_sec"}, 1, []string{"compared 12 points (36 jobs paired by switch.LossyAlpha, switch.StaticPoolXoffThreshold and replicate)",
			"switch.LossyAlpha=0.25 switch.StaticPoolXoffThreshold=400KB  sim_time_sec  0.0001  0.0002  0.0001 ± 0      1    MOVED", "MOVED"}},
		{[]string{"--by", "params", "--metric", "msgs_completed,sim_time_sec", "--atol", "0.001"}, 0, []string{"msgs_completed  12      0"}},
	} {
		var out, errb bytes.Buffer
		code := mainWithArgs(context.Background(), append([]string{"compare", a, b}, tt.args...), &out, &errb)
		if code != tt.code {
			t.Errorf("%v: exit %d, want %d\n%s\n%s", tt.args, code, tt.code, out.String(), errb.String())
		}
		for _, s := range tt.stdout {
			if !strings.Contains(out.String()+errb.String(), s) {
				t.Errorf("%v: output lacks %q:\n%s%s", tt.args, s, out.String(), errb.String())
			}
		}
	}
}

// Across a model version, every job id differs (ids include the model version) and the
// new model may write new columns. Before, compare paired by job_id, paired nothing and
// exited 2 ("no job of NEW has a job_id of BASE"), which scripts/ci-track.sh reported as
// a sweep that failed to run. Now it pairs by swept values and replicate, says that the
// model changed, leaves the new model's extra columns out, and judges the answers: exit
// 0 when nothing moved, 1 (naming the model change) when something did.
func TestCompareAcrossModelVersions(t *testing.T) {
	t.Parallel()
	base := filepath.Join(t.TempDir(), "base")
	if err := resultstest.Write(base, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, false)); err != nil {
		t.Fatal(err)
	}
	older := func(edit func(tb *resultsdir.Table)) string {
		dir := filepath.Join(t.TempDir(), "old")
		err := resultstest.Copy(base, dir, func(tb *resultsdir.Table) {
			if tb.Name != "jobs" {
				return
			}
			ids := tb.Col("job_id").Str
			for i := range ids {
				ids[i] = "old-" + ids[i]
			}
			// The older model did not write msgs_started.
			tb.Columns = slices.DeleteFunc(tb.Columns, func(c *resultsdir.Column) bool { return c.Name == "msgs_started" })
			if edit != nil {
				edit(tb)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		setManifest(t, dir, "model_version", "rocesweep-model/0.8.0")
		return dir
	}
	setManifest(t, base, "model_version", "rocesweep-model/0.9.0")
	same := older(nil)
	moved := older(func(tb *resultsdir.Table) {
		c := tb.Col("fct_p99_usec_lossless")
		for i := range c.Num {
			c.Num[i] *= 0.9
		}
	})
	changed := "the model changed: " + same + " ran model_version rocesweep-model/0.8.0, " + base + " ran rocesweep-model/0.9.0; job ids include the model version, so the jobs are paired by their swept values and replicate (--by params)"
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"same answers", []string{same, base}, 0, []string{changed, "1 metrics only one model version writes are not compared: msgs_started"}},
		{"moved", []string{moved, base}, 1, []string{"the model changed", "(the model changed: rocesweep-model/0.8.0 -> rocesweep-model/0.9.0): ", "fct_p99_usec_lossless"}},
		{"--by job_id as asked", []string{same, base, "--by", "job_id"}, 2, []string{"--by job_id pairs none across it: use --by params", "no job of"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := mainWithArgs(context.Background(), append([]string{"compare"}, c.args...), &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out.String(), errb.String())
			}
			for _, s := range c.stderr {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
		})
	}
}
