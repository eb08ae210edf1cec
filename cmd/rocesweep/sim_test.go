package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Re-running sim into the same directory (the tweak-and-rerun loop) replaces the earlier
// sim's results once the new ones are complete, leaving nothing else behind; a sweep's
// results, or a directory of other files, are refused and left untouched.
func TestSimReplacesOnlyAnEarlierSim(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	spec := "../../configs/bench/incast-8to1-1MiB.yaml"
	dataPackets := func() int64 {
		rows := readRows[struct {
			DataPackets *int64 `parquet:"data_packets,optional"`
		}](t, dir, "jobs")
		if len(rows) != 1 || rows[0].DataPackets == nil {
			t.Fatalf("jobs holds %d rows, want 1 with data_packets", len(rows))
		}
		return *rows[0].DataPackets
	}
	for _, tc := range []struct {
		size string
		want int64
	}{{"1MiB", 2048}, {"64KiB", 128}} {
		if code, _, stderr, _ := runMain(t, "sim", spec, "-o", dir, "--set", "workload.message_size="+tc.size); code != 0 {
			t.Fatalf("sim with %s messages: exit %d\n%s", tc.size, code, stderr)
		}
		if got := dataPackets(); got != tc.want {
			t.Errorf("after sim with %s messages: %d data packets in jobs, want %d", tc.size, got, tc.want)
		}
		if got := names(t, parent); len(got) != 1 || got[0] != "out" {
			t.Errorf("beside the results: %v", got)
		}
	}

	sweepDir := filepath.Join(parent, "sweep")
	if code, _, stderr, _ := runMain(t, "run", writeSpec(t, crashSpec), "-o", sweepDir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	before := names(t, filepath.Join(sweepDir, "jobs"))
	code, _, stderr, _ := runMain(t, "sim", spec, "-o", sweepDir)
	if code != 2 || !strings.Contains(stderr, "holds the results of a sweep (crash, 36 jobs); sim never overwrites them") {
		t.Errorf("sim into a sweep's results: exit %d, want 2\n%s", code, stderr)
	}
	if after := names(t, filepath.Join(sweepDir, "jobs")); !slices.Equal(before, after) {
		t.Errorf("the sweep's jobs files changed: %v -> %v", before, after)
	}
	other := filepath.Join(parent, "notes")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "todo.txt"), []byte("x"), 0o644)
	if code, _, stderr, _ := runMain(t, "sim", spec, "-o", other); code != 2 || !strings.Contains(stderr, "holds no rocesweep results") {
		t.Errorf("sim into a directory of other files: exit %d, want 2\n%s", code, stderr)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// BenchmarkSimProcess runs `rocesweep sim` of the reference jobs in-process, one whole
// command per iteration (spec, plan, results directory, simulation, Parquet, commit):
// what a one-job process does after Go's start-up and package initialisation.
// Under cachegrind with -test.benchtime 1x it counts the instructions of one such run
// (a small job's cost beyond the simulation).
func BenchmarkSimProcess(b *testing.B) {
	for _, job := range []string{"incast-8to1-1MiB", "leaf-spine-128-permutation-1MiB"} {
		b.Run(job, func(b *testing.B) {
			spec := "../../configs/bench/" + job + ".yaml"
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				dir := filepath.Join(b.TempDir(), "out")
				var out, errb bytes.Buffer
				if code := mainWithArgs(context.Background(), []string{"sim", spec, "-o", dir}, &out, &errb); code != 0 {
					b.Fatalf("exit %d: %s", code, errb.String())
				}
			}
		})
	}
}
