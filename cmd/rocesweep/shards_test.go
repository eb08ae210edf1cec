package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/compare"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
)

// A sweep run as 3 shards into one directory is one dataset for every reader: the
// results reader, report and compare see the same jobs as in a run of the whole plan.
func TestShardsReadAsOneDataset(t *testing.T) {
	t.Parallel()
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
		tab, err := resultsdir.ReadTable(sharded, table, nil)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := resultsdir.ReadTable(whole, table, nil)
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

// Shards started together into one fresh directory are decided one after the other:
// each takes the directory's lock (dirfs.LockDir) before it reads the manifest and
// writes it when absent, so a later shard sees what an earlier one wrote, whatever the
// timing. Here the test is the earlier run: it holds the lock, shard 1/3 is started
// and must wait for it (seen in /proc/locks, not guessed with a sleep); while it waits
// the test writes the manifest of the same plan split into 2 shards, as a run of shard
// 1/2 would, and releases the lock. Shard 1/3 must then refuse the directory, before
// writing anything: mixing 2 and 3 shards runs jobs twice and misses others. Without the
// lock shard 1/3 reads no manifest, writes its own and runs while the lock is "held".
// (A second writer of one shard is refused by the shard lock:
// TestSecondWriterOfAShardRefused.)
func TestShardsClaimTheDirectoryInTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	if _, err := os.ReadFile("/proc/locks"); err != nil {
		t.Skipf("no /proc/locks to see a run wait for a lock: %v", err)
	}
	t.Parallel() // waits on a child process
	spec := writeSpec(t, `name: together
seed: 5
duration: 100us
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
`)
	// The manifest a run of shard 1/2 of this plan writes.
	first := filepath.Join(t.TempDir(), "first")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", first, "--shard", "1/2", "--isolate=false"); code != 0 {
		t.Fatalf("shard 1/2: exit %d\n%s", code, stderr)
	}
	manifest, err := os.ReadFile(filepath.Join(first, resultsdir.ManifestFile))
	if err != nil {
		t.Fatal(err)
	}

	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := dirfs.LockDir(nil, dir) // a run of shard 1/2 deciding the directory is its own
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	cmd := child(1000, "run", spec, "-o", dir, "--shard", "1/3", "--resume", "-j", "1", "--isolate=false")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if err := waitForLockWaiter(t, dirfs.DirLockName(dir), cmd.Process.Pid, exited); err != nil {
		t.Fatalf("shard 1/3 went on while another run held the directory's lock (%s): %v\n%s", dirfs.DirLockName(dir), err, &out)
	}
	if err := dirfs.WriteFileAtomic(dirfs.OS{}, filepath.Join(dir, resultsdir.ManifestFile), "1of2", manifest); err != nil {
		t.Fatal(err)
	}
	unlock()
	err = <-exited
	var ee *exec.ExitError
	want := "holds a sweep split into 2 shards (journal-1of2.jsonl ...); this run is shard 1of3: use --shard K/2, or another -o"
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(out.String(), want) {
		t.Fatalf("shard 1/3 after shard 1/2 claimed the directory: %v, want exit 2 and %q\n%s", err, want, &out)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != resultsdir.ManifestFile && n != ".manifest.lock" {
			t.Errorf("the refused shard 1/3 wrote %s", n)
		}
	}
}

// waitForLockWaiter returns nil once the process pid waits for the flock of the file
// name, as /proc/locks lists it ("-> FLOCK ... pid maj:min:inode"), or the error of the
// process if it exits first. It polls: the kernel tells no one that a lock is wanted.
func waitForLockWaiter(t *testing.T, name string, pid int, exited <-chan error) error {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	dev := uint64(st.Dev)
	major, minor := (dev>>8)&0xfff|(dev>>32)&^0xfff, dev&0xff|(dev>>12)&^0xff
	want := fmt.Sprintf("%d %02x:%02x:%d ", pid, major, minor, st.Ino)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return fmt.Errorf("exited (%v) instead of waiting", err)
		case <-tick.C:
		}
		locks, err := os.ReadFile("/proc/locks")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(locks), "\n") {
			if strings.Contains(line, " -> FLOCK ") && strings.Contains(line, want) {
				return nil
			}
		}
	}
}
