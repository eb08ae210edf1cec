package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// From the command line: -j is bounded, and run -o D, then
// --shard 1/2, then --shard 2/3 into D are refused after the first (they exited 0 and
// wrote 22 job rows for 12 jobs).
func TestRunBoundsAndShardCounts(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	if code, _, stderr, _ := runMain(t, "run", spec, "-j", "1000000000"); code != 2 || !strings.Contains(stderr, "want 1 to 1024 parallel jobs") {
		t.Errorf("-j 1e9: exit %d\n%s", code, stderr)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	for _, sh := range []string{"1/2", "2/3"} {
		code, _, stderr, jobs := runMain(t, "run", spec, "-o", dir, "--shard", sh, "--resume")
		if code != 2 || jobs != 0 || !strings.Contains(stderr, "holds an unsharded sweep") {
			t.Errorf("--shard %s: exit %d after %d jobs\n%s", sh, code, jobs, stderr)
		}
	}
	if st := statusJSON(t, dir); !st.Complete || st.Total.OK != st.PlanSize || st.Duplicates != 0 {
		t.Errorf("status: %+v", st)
	}
}
