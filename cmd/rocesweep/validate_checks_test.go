package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14 item 10: validate finds what used to fail only in the job — distribution
// files, sizes and counts the model cannot hold — and a job too large for the machine.
func TestValidateChecksWhatJobsNeed(t *testing.T) {
	d := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(d, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	nonMonotone := write("down.txt", "1000 10\n500 50\n2000 100\n")
	junk := write("junk.txt", "this is not a CDF\n")
	good := write("good.txt", "1000 50\n4000 100\n")
	spec := writeSpec(t, "name: t\nduration: 100us\ntopology: {kind: star, hosts: 8}\nworkload: {kind: incast, senders: 7, message_size: 64KB}\n")
	load := []string{"--set", "workload.kind=load", "--set", "workload.load=0.5"}
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" = valid
	}{
		{"message_size 1e18B", []string{"--set", "workload.message_size=1e18B"}, "workload.message_size: 1,000,000,000,000,000,000 B; at most 1,099,511,627,776 B"},
		{"message_size 0B", []string{"--set", "workload.message_size=0B"}, "workload.message_size: 0 B, want >= 1"},
		{"messages 1e9", []string{"--set", "workload.messages=1000000000"}, "7000000000 messages exceed the limit of 20000000"},
		{"missing distribution file", append(load, "--set", "workload.distribution="+filepath.Join(d, "nope.txt")), "nope.txt: no such file"},
		{"unknown distribution", append(load, "--set", "workload.distribution=nope"), `unknown distribution "nope" (known: alistorage2019`},
		{"non-monotone distribution", append(load, "--set", "workload.distribution="+nonMonotone), "down.txt:2: size 500 after 1000: sizes must not decrease"},
		{"junk distribution", append(load, "--set", "workload.distribution="+junk), "junk.txt:1: want"},
		{"good distribution", append(load, "--set", "workload.distribution="+good), ""},
		{"report every picosecond", []string{"--set", "global.NDStatsReportInterval=1ps"}, "need more memory than this machine's memory"},
		// nic.md §15 rule 8: a data class without a NIC egress pool used to pass, and every
		// job then failed "packet generation blocked for good".
		{"data_tc without an egress pool", []string{"--set", "workload.data_tc=2"},
			"job 0: workload.data_tc: data TC 2 has no NIC egress pool (nic.NetworkInterface.EgressBufferManager.PoolAllocationVector [0.9, 0.1, 0, 0, 0, 0, 0, 0]"},
		// README "Limits": estimated in closed form; the largest fat tree passes, a larger
		// one is refused by its size.
		{"fat tree k = 64", []string{"--set", "topology.kind=fat-tree", "--set", "topology.k=64", "--set", "workload.kind=permutation"}, ""},
		{"fat tree k = 100", []string{"--set", "topology.kind=fat-tree", "--set", "topology.k=100", "--set", "workload.kind=permutation"},
			`job 0: topology.k: a fat tree of k = 100 has 250,000 hosts; at most 65,536 (README "Limits")`},
	} {
		if tc.name == "fat tree k = 64" && machineMemory() > 0 && machineMemory() < 4<<30 {
			continue // its ~3 GB estimate is refused on a smaller machine
		}
		args := append([]string{"validate", spec}, tc.sets...)
		code, out, stderr := runCmd(t, args...)
		if tc.want == "" {
			if code != 0 || !strings.Contains(out, "largest job: job 0: ~") {
				t.Errorf("%s: exit %d\n%s%s", tc.name, code, out, stderr)
			}
			continue
		}
		if tc.name == "report every picosecond" && machineMemory() == 0 {
			continue // no machine memory to compare with (not Linux)
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
