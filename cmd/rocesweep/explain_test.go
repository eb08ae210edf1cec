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

	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/sweep"
)

// runExplain runs `rocesweep explain ARGS... --json` and decodes its output.
func runExplain(t *testing.T, args ...string) explanation {
	t.Helper()
	var out, errb bytes.Buffer
	code := mainWithArgs(context.Background(), append(append([]string{"explain"}, args...), "--json"), &out, &errb)
	if code != 0 {
		t.Fatalf("explain %v: exit %d: %s", args, code, errb.String())
	}
	var ex explanation
	if err := json.Unmarshal(out.Bytes(), &ex); err != nil {
		t.Fatalf("explain %v: %v\n%s", args, err, out.String())
	}
	return ex
}

// TestExplainSpecFile: a sweep spec's job keys apply and its sweep section is ignored.
func TestExplainSpecFile(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "s.yaml")
	body := "name: x\nreplicates: 3\ntopology: {kind: star, hosts: 64}\nswitch: {LossyAlpha: 0}\nsweep:\n  grid:\n    switch.LossyAlpha: [0.25, 0.5]\n"
	if err := os.WriteFile(spec, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	// A spec that sweeps: job 0 (LossyAlpha 0.25: the dynamic form), and says so.
	ex := runExplain(t, spec, "--set", "switch.QueueDropThresholdEnable=true")
	if ex.Switch.ConnectedPorts != 64 || ex.Switch.EgressLimitForm != "dynamic" || ex.Switch.HeadroomTotal != 64*256_000 {
		t.Errorf("%+v", ex.Switch)
	}
	if ex.Job == nil || ex.Job.Index != 0 || ex.Job.Of != 6 || ex.Job.Label != "job 0 (switch.LossyAlpha=0.25, replicate 0)" {
		t.Errorf("job %+v, want job 0 of 6", ex.Job)
	}
	// --job by index and by id pick the same job.
	third := runExplain(t, spec, "--job", "3")
	if byID := runExplain(t, spec, "--job", third.Job.ID); third.Job.Label != "job 3 (switch.LossyAlpha=0.5, replicate 0)" || byID.Job.Index != 3 {
		t.Errorf("--job 3: %+v; by id: %+v", third.Job, byID.Job)
	}
	// Without the sweep, the base configuration (LossyAlpha 0: the fixed cap), no job.
	if err := os.WriteFile(spec, []byte(strings.Split(body, "sweep:")[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	ex = runExplain(t, spec, "--set", "switch.QueueDropThresholdEnable=true")
	if ex.Switch.EgressLimitForm != "fixed_cap" || ex.Job != nil {
		t.Errorf("no sweep: %+v, job %+v", ex.Switch, ex.Job)
	}
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"explain", spec, "--job", "1"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--job 1: the configuration has no sweep") {
		t.Errorf("--job without a sweep: exit %d, %s", code, errb.String())
	}
}

// validate warns of what explain warns, for every distinct point: the quickstart's
// lossless pools fail sizing condition 2 at some Xoff values (switch.md §4.6).
func TestValidateWarnsAsExplain(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"validate", "../../configs/quickstart.yaml"}, &out, &errb); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, errb.String())
	}
	ex := runExplain(t, "../../configs/quickstart.yaml", "--job", "2") // alpha 0.25, Xoff 700KB
	if len(ex.Warnings) == 0 {
		t.Fatal("explain: no warnings for the quickstart's job 2")
	}
	// Each of explain's warnings is printed, or one alike but for its numbers (another
	// Xoff of the grid) stands for it.
	printed := map[string]bool{}
	for _, line := range strings.Split(errb.String(), "\n") {
		if _, msg, ok := strings.Cut(line, " points): "); ok {
			printed[warningShape(msg)] = true
		} else if _, msg, ok := strings.Cut(line, " e.g.): "); ok {
			printed[warningShape(msg)] = true
		}
	}
	for _, w := range ex.Warnings {
		if !printed[warningShape(w)] {
			t.Errorf("validate lacks explain's warning %q:\n%s", w, errb.String())
		}
	}
	// The quickstart passes sizing conditions 1 and 2 and fails condition 3 on purpose
	// (its header says so): one line for the shared pool, none for the others.
	if n, m := strings.Count(errb.String(), "sizing condition 3"), strings.Count(errb.String(), "sizing condition 2"); n != 1 || m != 0 {
		t.Errorf("%d lines of sizing condition 3 and %d of condition 2, want 1 and 0:\n%s", n, m, errb.String())
	}
}

// The sheet and --json print model/explain's warnings, each once, and the sheet ends
// with a newline, so that stderr does not run onto its last line.
func TestExplainRendersWarnings(t *testing.T) {
	t.Parallel()
	sets := []string{"--set", "topology.hosts=128", "--set", "switch.StaticPoolXonThreshold=700KB"}
	cfg, err := sweep.SingleConfig("", nil, []string{"topology.hosts=128", "switch.StaticPoolXonThreshold=700KB"})
	if err != nil {
		t.Fatal(err)
	}
	_, ws, err := explain.Explain(&cfg)
	if err != nil || len(ws) != 2 {
		t.Fatalf("explain.Explain: %v, %d warnings, want 2: %+v", err, len(ws), ws)
	}
	if ex := runExplain(t, sets...); !slices.Equal(ex.Warnings, explain.Messages(ws)) {
		t.Errorf("--json warnings %q, want %q", ex.Warnings, explain.Messages(ws))
	}
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), append([]string{"explain"}, sets...), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	if !strings.HasSuffix(s, "\n") || errb.Len() != 0 {
		t.Errorf("sheet does not end with a newline, or stderr %q:\n%q", errb.String(), s[max(0, len(s)-80):])
	}
	_, tail, _ := strings.Cut(s, "\nwarnings:\n")
	var want string
	for _, w := range ws {
		want += "  ! " + w.Message + "\n"
	}
	if tail != want {
		t.Errorf("warnings section\n%s\nwant\n%s", tail, want)
	}
}

// sim warns of what explain warns (model/explain's list), not of a part of it.
func TestSimWarnsAsExplain(t *testing.T) {
	t.Parallel()
	sets := []string{"--set", "switch.StaticPoolXonThreshold=700KB", "--set", "switch.HeadRoomPerPortLimit=8KB", "--set", "duration=20us"}
	ex := runExplain(t, append([]string{"../../configs/bench/incast-8to1-1MiB.yaml"}, sets...)...)
	if len(ex.Warnings) < 2 {
		t.Fatalf("explain gives %d warnings, want the Xon and the condition 1 ones: %q", len(ex.Warnings), ex.Warnings)
	}
	var out, errb bytes.Buffer
	args := append([]string{"sim", "../../configs/bench/incast-8to1-1MiB.yaml", "-o", filepath.Join(t.TempDir(), "out")}, sets...)
	if code := mainWithArgs(context.Background(), args, &out, &errb); code != 0 {
		t.Fatalf("sim: exit %d: %s", code, errb.String())
	}
	var want string
	for _, w := range ex.Warnings {
		want += "rocesweep: warning: " + w + "\n"
	}
	if !strings.HasPrefix(errb.String(), want) {
		t.Errorf("sim's stderr\n%s\nwant it to start with\n%s", errb.String(), want)
	}
}
