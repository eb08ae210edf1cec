package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An edit of the manifest's spec text or objective (issue 38: status --verify said "no
// problem", and report showed the edited spec and question) is found by its checksum:
// status names it and the directory is not complete, report warns, run refuses the
// directory, and --force writes the manifest anew, after which it verifies clean.
func TestManifestEditFound(t *testing.T) {
	t.Parallel()
	spec := writeSpec(t, crashSpec)
	for _, edit := range []struct{ name, old, new string }{
		{"spec", `replicates: 3`, `replicates: 4`},
		{"objective", `"goal": "min"`, `"goal": "max"`},
	} {
		t.Run(edit.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir); code != 0 {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			name := filepath.Join(dir, "manifest.json")
			data, _ := os.ReadFile(name)
			if !strings.Contains(string(data), edit.old) {
				t.Fatalf("manifest.json lacks %q", edit.old)
			}
			os.WriteFile(name, []byte(strings.Replace(string(data), edit.old, edit.new, 1)), 0o644)
			text, complete := verifyStatus(t, dir)
			if complete || !strings.Contains(text, "damaged: manifest.json: checksum ") {
				t.Errorf("status --verify: complete %v, want the manifest named as damaged:\n%s", complete, text)
			}
			if code, _, stderr, _ := runMain(t, "report", dir); code != 0 || !strings.Contains(stderr, "manifest.json: checksum ") {
				t.Errorf("report: exit %d, want 0 with a warning naming the manifest:\n%s", code, stderr)
			}
			if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--resume"); code != 2 || !strings.Contains(stderr, "manifest.json: checksum ") {
				t.Errorf("run --resume: exit %d, want 2 naming the manifest:\n%s", code, stderr)
			}
			if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "--resume", "--force"); code != 0 {
				t.Fatalf("run --resume --force: exit %d\n%s", code, stderr)
			}
			if text, complete := verifyStatus(t, dir); !complete || !strings.Contains(text, "checked: no problem") {
				t.Errorf("status --verify after --force:\n%s", text)
			}
		})
	}
}
