package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A name that would inject a line into the sbatch script or
// lead results/<name> out of results/ is refused by every command, before anything is
// written.
func TestNameInjectionAndTraversalRefused(t *testing.T) {
	wd, _ := os.Getwd()
	cwd := t.TempDir()
	if err := os.Chdir(cwd); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	marker := filepath.Join(cwd, "x")
	for _, name := range []string{"inj\ntouch " + marker + "\n#", "../../escaped", "..", ".", "", "a/b", ".hidden"} {
		spec := writeSpec(t, "name: \""+strings.ReplaceAll(name, "\n", `\n`)+"\"\nduration: 10us\ntopology: {kind: star, hosts: 2}\nworkload: {kind: incast, senders: 1, message_size: 4KB}\n")
		for _, args := range [][]string{
			{"run", spec}, {"sim", spec}, {"plan", spec}, {"validate", spec},
			{"slurm", spec, "-o", filepath.Join(cwd, "out")},
		} {
			code, out, stderr := runCmd(t, args...)
			if code != 2 || !strings.Contains(stderr, "want letters, digits") {
				t.Errorf("%q %s: exit %d, stderr %q, stdout %q", name, args[0], code, stderr, out)
			}
		}
	}
	if code, _, stderr := runCmd(t, "run", "--set", "name=../../escaped"); code != 2 || !strings.Contains(stderr, "want letters, digits") {
		t.Errorf("--set name=../../escaped: exit %d %s", code, stderr)
	}
	entries, _ := os.ReadDir(cwd)
	for _, e := range entries {
		t.Errorf("%s written", e.Name())
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(cwd)), "escaped")); err == nil {
		t.Error("../../escaped written")
	}
}

// From the command line: -j is bounded, and run -o D, then
// --shard 1/2, then --shard 2/3 into D are refused after the first (they exited 0 and
// wrote 22 job rows for 12 jobs).
func TestRunBoundsAndShardCounts(t *testing.T) {
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
