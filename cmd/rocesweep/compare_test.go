package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/internal/results/resultstest"
)

func TestCompareCommand(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base")
	if err := resultstest.Write(base, resultstest.Grid([]float64{0.5, 1}, []float64{200e3, 700e3}, 2, false)); err != nil {
		t.Fatal(err)
	}
	perturbed := filepath.Join(t.TempDir(), "new")
	// Copy through the real writer with job j0006's fct_p99_usec moved by 1e-6 relative.
	err := resultstest.Copy(base, perturbed, func(tb *results.Table) {
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
			[]string{"BenchmarkSweep/j0006/fct_p99_usec 1 480.0104800099999 usec"}, nil, nil},
		{"bench one dir", []string{base, "--bench", "--metric", "drops_total"}, 0,
			[]string{"BenchmarkSweep/j0001/drops_total 1 50 drops_total"}, nil, nil},
		{"one dir", []string{base}, 2, nil, []string{"want BASE_DIR NEW_DIR"}, nil},
		{"negative rtol", []string{base, base, "--rtol", "-1"}, 2, nil, []string{"--rtol"}, nil},
		{"unknown metric", []string{base, base, "--metric", "fct"}, 1, nil, []string{"--metric fct"}, nil},
		{"missing dir", []string{base, filepath.Join(base, "nope")}, 1, nil, []string{"nope"}, nil},
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
