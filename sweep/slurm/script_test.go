package slurm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every value in the generated sbatch script's header comments stays on its line: a
// spec file whose name holds a newline cannot add a command before the #SBATCH lines.
func TestSlurmScriptCommentsStayComments(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "injected")
	text := Script(Params{
		Name: "ok", Jobs: 3, N: 1, Exe: "/bin/true", Spec: "/d/slurm/spec.yaml",
		SpecFrom: "a\ntouch " + marker + "\n#", Dir: "/d", Cwd: "/", Written: time.Unix(0, 0),
	})
	lines := strings.Split(text, "\n")
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "set -eu") {
			break
		}
		if !strings.HasPrefix(l, "#") {
			t.Errorf("header line %q is not a comment:\n%s", l, text)
		}
	}
	if _, err := exec.LookPath("bash"); err == nil {
		script := filepath.Join(t.TempDir(), "s.sh")
		os.WriteFile(script, []byte(strings.Replace(text, "set -eu", "exit 0\nset -eu", 1)), 0o755)
		if out, err := exec.Command("bash", script).CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Error("the script ran the injected command")
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"/usr/bin/rocesweep":        "/usr/bin/rocesweep",
		"switch.LossyAlpha=2":       "switch.LossyAlpha=2",
		"nic.DataRate=[1, 2]":       "'nic.DataRate=[1, 2]'",
		"it's":                      `'it'\''s'`,
		"":                          "''",
		"$HOME":                     "'$HOME'",
		"workload.distribution=a b": "'workload.distribution=a b'",
	} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
