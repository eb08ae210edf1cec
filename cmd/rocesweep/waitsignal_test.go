package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep/sweeptest"
)

// A stop signal while a shard of a selection waits for the other shards' jobs (--wait)
// exits 130, as one while jobs run does (issue 38: it exited 1, which Slurm and scripts
// read as a failure).
func TestStopWhileWaitingExits130(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, sweeptestGrid2+"select: {initial: 2, max_jobs: 100}\n")
	dir := filepath.Join(t.TempDir(), "out")
	// Shard 2/2 runs its jobs of the first stage and, without --wait, returns (exit 3:
	// undecided).
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--shard", "2/2"); code != 3 || !strings.Contains(stderr, "has run its jobs of selection round") {
		t.Fatalf("shard 2/2: exit %d\n%s", code, stderr)
	}
	// Again with --wait: it waits for shard 1's jobs, and the stop signal comes.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := mainWithArgs(ctx, []string{"run", spec, "-o", dir, "--shard", "2/2", "--resume", "--wait"}, &stdout, &stderr)
	if code != 130 || !strings.Contains(stderr.String(), "interrupted while waiting") {
		t.Errorf("stop while waiting: exit %d, want 130\n%s", code, stderr.String())
	}
}

// sweeptestGrid2 is sweeptest.GridSpec of 12 points, 1 replicate.
var sweeptestGrid2 = sweeptest.GridSpec("wait", 3, 1, "100us")
