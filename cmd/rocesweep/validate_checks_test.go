package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep/launch"
)

// validate names each job that breaks a rule fabric.Validate checks (model/fabric tests
// the rules), refuses a job too large for the machine, and prints the largest job's
// estimate in plain numbers; exit 2 on a refusal.
func TestValidateChecksWhatJobsNeed(t *testing.T) {
	spec := writeSpec(t, "name: t\nduration: 100us\ntopology: {kind: star, hosts: 8}\nworkload: {kind: incast, senders: 7, message_size: 64KB}\n")
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" = valid
	}{
		{"valid", nil, ""},
		{"data_tc without an egress pool", []string{"--set", "workload.data_tc=2"},
			"job 0: workload.data_tc: data TC 2 has no NIC egress pool (nic.NetworkInterface.EgressBufferManager.PoolAllocationVector [0.9, 0.1, 0, 0, 0, 0, 0, 0]"},
		{"unknown distribution", []string{"--set", "workload.kind=load", "--set", "workload.load=0.5", "--set", "workload.distribution=nope"},
			`job 0: workload.distribution: unknown distribution "nope" (known: alistorage2019`},
		{"report every picosecond", []string{"--set", "global.NDStatsReportInterval=1ps"}, "need more memory than this machine's memory"},
	} {
		if tc.name == "report every picosecond" && launch.MachineMemory() == 0 {
			continue // no machine memory to compare with (not Linux)
		}
		code, out, stderr := runCmd(t, append([]string{"validate", spec}, tc.sets...)...)
		if tc.want == "" {
			if code != 0 || !strings.Contains(out, "largest job: job 0: ~") || !strings.Contains(out, " 7 messages, ") || strings.Contains(out, "e+") {
				t.Errorf("%s: exit %d\n%s%s", tc.name, code, out, stderr)
			}
			continue
		}
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, want 2 and %q in:\n%s", tc.name, code, tc.want, stderr)
		}
	}
}

// Estimate before running, as validate does: run refuses the points estimated above
// --max-mem-per-job before any job starts, naming each with its estimate (exit 2); with
// --skip-invalid it records them as invalid and runs the others.
func TestRunRefusesJobsAboveTheLimit(t *testing.T) {
	spec := writeSpec(t, "name: t\nduration: 100us\ntopology: {kind: star, hosts: 8}\nworkload: {kind: incast, senders: 7, message_size: 64KB}\n"+
		"sweep: {grid: {workload.messages: [1, 200000]}}\n")
	dir := filepath.Join(t.TempDir(), "out")
	code, _, stderr, jobs := runMain(t, "run", spec, "-o", dir, "--isolate=true", "--max-mem-per-job", "200MB")
	if code != 2 || jobs != 0 {
		t.Errorf("exit %d, %d jobs ran; want 2 and none", code, jobs)
	}
	want := "job 1 (workload.messages=200000): estimated at "
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, "above the limit per job (--max-mem-per-job) (200 MB)") {
		t.Errorf("stderr lacks %q and the limit:\n%s", want, stderr)
	}
	out, err := child(1000, "run", spec, "-o", dir, "--max-mem-per-job", "200MB", "--skip-invalid").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "2 jobs: 1 ok, 1 invalid") {
		t.Errorf("--skip-invalid: %v; want the one job run and the other recorded invalid\n%s", err, out)
	}
}
