package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep"
	"github.com/rocesweep/rocesweep/sweep/slurm"
	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// slurm refuses a --time sbatch would refuse, passes --grid on to every task, and
// writes --mem from the plan's largest job: one per CPU at once, plus the runner.
func TestSlurmGridTimeMem(t *testing.T) {
	t.Parallel()
	spec := "../../configs/ci.yaml"
	for _, bad := range []string{"30min", "1:75", "2-24:00"} {
		code, _, stderr := runCmd(t, "slurm", spec, "-o", filepath.Join(t.TempDir(), "out"), "--time", bad)
		if code != 2 || !strings.Contains(stderr, `--time "`+bad+`"`) || !strings.Contains(stderr, slurm.TimeForms) || !strings.Contains(stderr, "usage: rocesweep slurm") {
			t.Errorf("--time %s: exit %d\n%s\nwant 2, naming the flag, its value and the forms, with the usage line", bad, code, stderr)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	grid := "switch.LossyAlpha=0.5,1,2"
	code, out, stderr := runCmd(t, "slurm", spec, "-o", dir, "--time", "1-12", "--cpus-per-task", "3", "--grid", grid)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "rocesweep: notice: --grid "+grid+" replaces the axis switch.LossyAlpha") {
		t.Errorf("stderr %q: want the notice that --grid replaced the spec's axis", stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "slurm", "rocesweep-array.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := loadPlan("slurm", []string{spec}, &specfile.Overrides{Grids: []string{grid}}, false)
	if err != nil {
		t.Fatal(err)
	}
	_, largest := sweep.Estimates(p)
	mem := (3*largest.MemBytes + slurm.RunnerMem + 1<<20 - 1) >> 20
	for _, want := range []string{"#SBATCH --time=1-12\n", "#SBATCH --mem=" + strconv.FormatInt(mem, 10) + "M\n", " --grid " + grid} {
		if !strings.Contains(string(data), want) {
			t.Errorf("script lacks %q:\n%s", want, data)
		}
	}
}
