package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// exampleSetup makes a results directory that an example reads and no earlier example
// of its file writes (the quickstart's results, which the tutorial and the how-to pages
// read; compare's baseline from main; the A/B pair of docs/ci.md), run before the first
// example that names it.
var exampleSetup = map[string]string{
	"results/quickstart": "rocesweep run",
	"results/ci-main":    "rocesweep run configs/ci.yaml -o results/ci-main",
	"results/a":          "rocesweep run configs/ci.yaml -o results/a --set replicates=5",
	"results/b":          "rocesweep run configs/ci.yaml -o results/b --set replicates=5 --set switch.TotalSharedBufferSize=8MB",
}

// sharedRuns are the example command lines (exampleCommand) that several sequences run,
// each into an output directory that does not exist yet, reading nothing but configs/
// (the quickstart, and docs/ci.md's A/B pair that compare's help example reads too), with
// the directory each writes. Such a line runs once, in a directory of its own and checked as
// any example is; a sequence that reaches it with the directory still absent gets a copy
// of that output (the same rows: the same spec and binary, and a sweep is deterministic).
var sharedRuns = map[string]string{
	"rocesweep run":           "results/quickstart",
	exampleSetup["results/a"]: "results/a",
	exampleSetup["results/b"]: "results/b",
}

// sharedReads are example lines that read the directory of a shared run (sharedRuns) and
// write only into it (report.html), with that directory. When a sequence reaches one
// with the directory as the shared run left it (the same files, the same sizes), the
// line runs once, on a copy of its own, and each such sequence gets the directory as the
// line left it: the same command on the same rows writes the same files. (The tutorial
// and report's help both report the quickstart.)
var sharedReads = map[string]string{
	"rocesweep report results/quickstart": "results/quickstart",
}

// sameTree reports whether directories a and b hold the same files with the same sizes.
func sameTree(a, b string) bool {
	list := func(root string) map[string]int64 {
		out := map[string]int64{}
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			out[rel] = info.Size()
			if d.IsDir() {
				out[rel] = -1
			}
			return nil
		})
		if err != nil {
			return nil
		}
		return out
	}
	la, lb := list(a), list(b)
	if la == nil || lb == nil || len(la) != len(lb) {
		return false
	}
	for k, v := range la {
		if w, ok := lb[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// sharedRun is one line of sharedRuns: its directory once run, or why it failed.
type sharedRun struct {
	once sync.Once
	root string
	err  string
	do   func() // runs the line once (the first call), returns when it has run
}

// exampleExit is the exit status of the examples that do not exit 0, and why.
var exampleExit = map[string]int{
	// The doubled buffer removes lossy drops at three points: compare's exit 1 is the
	// answer the A/B example of docs/ci.md shows.
	"rocesweep compare results/a results/b --by params --metric fct_p99_usec_lossless,drops_lossy --rtol 0.02": 1,
	"rocesweep compare results/a results/b --by params --metric fct_p99_usec --rtol 0.02":                      1,
}

// helpExamples are the example lines of every command's help.
func helpExamples() []string {
	var out []string
	for _, c := range commands {
		for _, line := range strings.Split(c.example, "\n") {
			if line = strings.TrimSpace(line); line != "" {
				out = append(out, line)
			}
		}
	}
	return out
}

// docFiles are the markdown files whose examples run: README.md, then every page under
// docs/ in path order, relative to the repository root. docs/cli.md is left out: it is
// generated from the commands' help, and its example lines are the help examples that
// the "help" sequence runs.
func docFiles(t *testing.T) []string {
	files := []string{"README.md"}
	err := filepath.WalkDir("../../docs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
			return err
		}
		rel, _ := filepath.Rel("../..", path)
		if rel = filepath.ToSlash(rel); rel != cliPage {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// skipMarker, on the line before a code block (blank lines between allowed), keeps the
// block's command lines from running; the rest of the comment says why ("<!-- examples:
// skip: 28,800 jobs, the truth of statistics.md §5 -->"). TestExamplesRun logs each.
const skipMarker = "<!-- examples: skip"

// docExamples are the lines of a markdown file's fenced code blocks that start with
// "rocesweep " or "go run ./cmd/rocesweep ", as rocesweep command lines, with their line
// numbers: the examples a reader copies. Not run: blocks tagged text (output shown,
// a synopsis) and blocks after skipMarker, returned as skipped.
func docExamples(t *testing.T, file string) (lines []string, at []int, skipped []string) {
	data, err := os.ReadFile(filepath.Join("../..", file))
	if err != nil {
		t.Fatal(err)
	}
	fenced, run, skip := false, false, false
	prev := "" // the last non-blank line outside a block
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") {
			if fenced = !fenced; fenced {
				info := strings.TrimSpace(strings.TrimPrefix(line, "```"))
				skip = strings.HasPrefix(prev, skipMarker)
				run = info != "text"
			}
			continue
		}
		if !fenced && line != "" {
			prev = line
		}
		if rest, ok := strings.CutPrefix(line, "go run ./cmd/rocesweep "); ok {
			line = "rocesweep " + rest
		}
		if !fenced || !run || !strings.HasPrefix(line, "rocesweep ") {
			continue
		}
		if skip {
			why := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(prev, skipMarker), ":"), "-->"))
			skipped = append(skipped, fmt.Sprintf("%s:%d: %s (%s)", file, i+1, line, why))
			continue
		}
		lines, at = append(lines, line), append(at, i+1)
	}
	return lines, at, skipped
}

// exampleArgs splits an example into rocesweep's arguments: a trailing "# comment" and a
// pipe into another program ("| grep -i xoff") are left out, and an absolute path
// (/scratch/alpha) moves under root so that nothing is written outside the test's
// directory.
func exampleArgs(t *testing.T, line, root string) []string {
	t.Helper()
	line = exampleCommand(line)
	if strings.ContainsAny(line, `'"$;&><`) {
		t.Fatalf("%q: an example is plain words (no quotes, variables or redirections), so that this test runs it as written", line)
	}
	args := strings.Fields(line)[1:]
	for i, a := range args {
		if filepath.IsAbs(a) {
			args[i] = filepath.Join(root, a)
		}
	}
	return args
}

// TestExamplesRun runs every rocesweep command line of the code blocks of README.md and
// of every page of docs/ (docExamples: what a reader copies), each file's in order in a
// directory of its own, and every example of every command's help in order in another,
// as written (the repository's configs beside them), each as a process of its own (this
// test binary as rocesweep, childMain, with the real simulation) started in that
// directory: each must exit 0, or as exampleExit says. A fake sbatch takes the Slurm
// examples' --submit. A command's jobs run in its process (ROCESWEEP_TEST_INPROCESS):
// what an example shows is its command line and output; worker processes, signals and
// crashes are the subject of run_test.go and isolate_test.go. The files' sequences run
// in parallel with each other and with the package's other tests: no command changes
// this process's working directory or state. A run that several sequences make
// (sharedRuns) runs once.
func TestExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example (about half a minute)")
	}
	t.Parallel()
	configs, err := filepath.Abs("../../configs")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sbatch"), []byte("#!/bin/sh\necho 4242\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	type docFile struct {
		name  string
		lines []string
		at    []int
	}
	var docs []docFile
	total := 0
	for _, f := range docFiles(t) {
		lines, at, skipped := docExamples(t, f)
		for _, s := range skipped {
			t.Logf("not run: %s", s)
		}
		if len(lines) > 0 {
			docs = append(docs, docFile{f, lines, at})
		}
		total += len(lines)
	}
	if len(docs) < 5 || total < 10 || docs[0].name != "README.md" {
		t.Fatalf("%d rocesweep lines in the code blocks of %d files (README.md first); the extraction is broken", total, len(docs))
	}
	newRoot := func(t *testing.T) string {
		root := t.TempDir()
		if err := os.Symlink(configs, filepath.Join(root, "configs")); err != nil {
			t.Fatal(err)
		}
		return root
	}
	sharedBase := t.TempDir() // outlives every sequence
	derived := map[string]*sharedRun{}
	for line := range sharedReads {
		derived[line] = &sharedRun{}
	}
	var runLine func(t *testing.T, root, line string)
	// runArgs runs one example in root: "" if it exits as exampleExit says, else why not.
	runArgs := func(root, line string, args []string) string {
		var stdout, stderr bytes.Buffer
		cmd := child(0, args...)
		cmd.Dir = root
		cmd.Env = append(cmd.Env, "PATH="+path, "ROCESWEEP_TEST_REAL=1", "ROCESWEEP_TEST_INPROCESS=1")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				return fmt.Sprintf("%s: %v", line, err)
			}
			code = ee.ExitCode()
		}
		if want := exampleExit[line]; code != want {
			return fmt.Sprintf("%s\nexit %d, want %d\nstdout:\n%s\nstderr:\n%s", line, code, want, lastLines(stdout.String(), 10), lastLines(stderr.String(), 10))
		}
		return ""
	}
	// The shared runs start at once, side by side, rather than when a sequence first
	// reaches one: each is a whole study, and the sequences that need one wait for it.
	shared := map[string]*sharedRun{}
	for line := range sharedRuns {
		s := &sharedRun{}
		var err error
		if s.root, err = os.MkdirTemp(sharedBase, "shared"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(configs, filepath.Join(s.root, "configs")); err != nil {
			t.Fatal(err)
		}
		args := exampleArgs(t, line, s.root)
		s.do = func() { s.once.Do(func() { s.err = runArgs(s.root, line, args) }) }
		shared[line] = s
		go s.do()
	}
	runLine = func(t *testing.T, root, line string) {
		t.Helper()
		args := exampleArgs(t, line, root)
		if slices.Contains(args, "--cpuprofile") && flag.Lookup("test.cpuprofile").Value.String() != "" {
			t.Skip("this process is being profiled (go test -cpuprofile): the example's profile cannot start in it")
		}
		if s, ok := shared[exampleCommand(line)]; ok {
			out := sharedRuns[exampleCommand(line)]
			if _, err := os.Stat(filepath.Join(root, out)); errors.Is(err, fs.ErrNotExist) {
				s.do()
				if s.err != "" {
					t.Fatal(s.err)
				}
				if err := os.CopyFS(filepath.Join(root, out), os.DirFS(filepath.Join(s.root, out))); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		if dir, ok := sharedReads[exampleCommand(line)]; ok {
			var from *sharedRun
			for l, out := range sharedRuns {
				if out == dir {
					from = shared[l]
				}
			}
			if from != nil {
				from.do()
			}
			if from != nil && from.err == "" && sameTree(filepath.Join(root, dir), filepath.Join(from.root, dir)) {
				s := derived[exampleCommand(line)]
				s.once.Do(func() {
					var err error
					if s.root, err = os.MkdirTemp(sharedBase, "read"); err != nil {
						s.err = err.Error()
					} else if err := os.Symlink(configs, filepath.Join(s.root, "configs")); err != nil {
						s.err = err.Error()
					} else if err := os.CopyFS(filepath.Join(s.root, dir), os.DirFS(filepath.Join(from.root, dir))); err != nil {
						s.err = err.Error()
					} else {
						s.err = runArgs(s.root, line, exampleArgs(t, line, s.root))
					}
				})
				if s.err != "" {
					t.Fatal(s.err)
				}
				if err := os.RemoveAll(filepath.Join(root, dir)); err != nil {
					t.Fatal(err)
				}
				if err := os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(s.root, dir))); err != nil {
					t.Fatal(err)
				}
				return
			}
		}
		if len(args) > 0 && (args[0] == "compare" || args[0] == "report" || args[0] == "export" || args[0] == "status") {
			for _, a := range args[1:] {
				setup, ok := exampleSetup[a]
				if _, err := os.Stat(filepath.Join(root, a)); ok && err != nil {
					runLine(t, root, setup)
				}
			}
		}
		if msg := runArgs(root, line, args); msg != "" {
			t.Fatal(msg)
		}
	}
	for _, d := range docs {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			root := newRoot(t)
			for i, line := range d.lines {
				t.Run(strconv.Itoa(d.at[i]), func(t *testing.T) { runLine(t, root, line) })
			}
		})
	}
	t.Run("help", func(t *testing.T) {
		t.Parallel()
		root := newRoot(t)
		for _, line := range helpExamples() {
			t.Run(line, func(t *testing.T) { runLine(t, root, line) })
		}
	})
}

// exampleCommand is an example line without its trailing "# comment" and pipe, its words
// one space apart: the rocesweep command line it runs.
func exampleCommand(line string) string {
	if i := strings.Index(line, " #"); i >= 0 {
		line = line[:i]
	}
	if i := strings.Index(line, " | "); i >= 0 {
		line = line[:i]
	}
	return strings.Join(strings.Fields(line), " ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Every example line is a rocesweep command line of a command that exists, so that the
// run above covers each command's help.
func TestHelpExamplesNameTheirCommand(t *testing.T) {
	for _, c := range commands {
		if c.example == "" {
			t.Errorf("%s: no example in its help", c.name)
		}
		for _, line := range strings.Split(c.example, "\n") {
			if f := strings.Fields(line); len(f) < 2 || f[0] != "rocesweep" || lookupCommand(f[1]) == nil {
				t.Errorf("%s: example %q is not a rocesweep command line", c.name, line)
			}
		}
	}
}
