package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/internal/results"
	"github.com/rocesweep/rocesweep/report"
)

// A sweep run as 3 shards into one directory is one dataset for every reader: the
// results reader, report and compare see the same jobs as in a run of the whole plan.
func TestShardsReadAsOneDataset(t *testing.T) {
	spec := writeSpec(t, crashSpec)
	p := expand(t, spec)
	whole := filepath.Join(t.TempDir(), "whole")
	sharded := filepath.Join(t.TempDir(), "sharded")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", whole, "-j", "2"); code != 0 {
		t.Fatalf("whole plan: exit %d\n%s", code, stderr)
	}
	for _, k := range []string{"1/3", "2/3", "3/3"} {
		if code, _, stderr, jobs := runMain(t, "run", spec, "-o", sharded, "--shard", k, "-j", "2"); code != 0 || jobs != 12 {
			t.Fatalf("shard %s: exit %d after %d jobs\n%s", k, code, jobs, stderr)
		}
	}

	for _, table := range []string{"jobs", "nd_stats", "messages", "topology"} {
		tab, err := results.ReadTable(sharded, table, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := results.ReadTable(whole, table, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int{}
		for _, id := range tab.Col("job_id").Str {
			ids[id]++
		}
		if tab.Rows != ref.Rows || len(ids) != len(p.Jobs) {
			t.Errorf("%s: %d rows of %d jobs across the shards, want %d rows of %d jobs", table, tab.Rows, len(ids), ref.Rows, len(p.Jobs))
		}
	}

	r, err := compare.Dirs(whole, sharded, compare.Options{RTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() || r.Common != len(p.Jobs) || len(r.OnlyBase)+len(r.OnlyNew) != 0 {
		t.Errorf("compare whole vs sharded: %d common, only base %v, only new %v, failed %v", r.Common, r.OnlyBase, r.OnlyNew, r.Failed())
	}

	rep, err := report.Build(sharded, report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.PlanSize != 36 || rep.Rows != 36 || rep.OK != 36 || strings.Join(rep.Axes, ",") != "switch.LossyAlpha,switch.StaticPoolXoffThreshold" {
		t.Errorf("report of the sharded directory: plan %d, %d rows, %d ok, axes %v", rep.PlanSize, rep.Rows, rep.OK, rep.Axes)
	}
}

// The tasks of an array start together: N processes open one fresh directory at once,
// each writing the manifest. Every one must start and finish, and the manifest must be
// whole (it is written through a temp file; two writers must not share that file).
func TestShardsStartTogether(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	t.Parallel() // waits on child processes
	// 1 job for 3 shards: the race is the manifest's, at the start, not the jobs'. Shards
	// 2/3 and 3/3 have no job; they claim the directory and write the manifest and their
	// journal as shard 1/3 does, and exit.
	spec := writeSpec(t, `name: together
seed: 5
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
`)
	p := expand(t, spec)
	// 6 rounds at once: each round's 3 processes start back to back on its own fresh
	// directory, so they reach the manifest within a few milliseconds of each other
	// (without the directory's lock, and with one temp file for every writer, about one
	// round in three fails). The jobs run in-process (--isolate=false).
	concurrently(t, seq(6), func(r int) string { return fmt.Sprintf("round %d", r) }, func(t *testing.T, round int) {
		dir := filepath.Join(t.TempDir(), "out")
		var cmds []*exec.Cmd
		var outs []*bytes.Buffer
		for k := 1; k <= 3; k++ {
			cmd := child(1000, "run", spec, "-o", dir, "--shard", fmt.Sprintf("%d/3", k), "--resume", "-j", "1", "--isolate=false")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, cmd), append(outs, &out)
		}
		for k, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d, shard %d/3: %v\n%s", round, k+1, err, outs[k])
			}
		}
		if _, err := results.ReadManifest(dir); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		checkExactlyOnce(t, dir, p)
	})
}
