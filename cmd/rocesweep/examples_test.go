package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// exampleSetup makes a results directory that an example reads and no earlier example
// writes (compare's baseline from main, the README's A/B pair), run before the first
// example that names it.
var exampleSetup = map[string]string{
	"results/ci-main": "rocesweep run configs/ci.yaml -o results/ci-main",
	"results/a":       "rocesweep run configs/quickstart.yaml -o results/a",
	"results/b":       "rocesweep run configs/quickstart.yaml -o results/b --set switch.TotalSharedBufferSize=32MB",
}

// sharedRuns are the example command lines (exampleCommand) that both sequences run, each
// into an output directory that does not exist yet, reading nothing but configs/ (the
// quickstart, and the README's A/B pair that compare's help example reads too), with the
// directory each writes. Such a line runs once, in a directory of its own and checked as
// any example is; a sequence that reaches it with the directory still absent gets a copy
// of that output (the same rows: the same spec and binary, and a sweep is deterministic).
var sharedRuns = map[string]string{
	"rocesweep run":           "results/quickstart",
	exampleSetup["results/a"]: "results/a",
	exampleSetup["results/b"]: "results/b",
}

// sharedRun is one line of sharedRuns: its directory once run, or why it failed.
type sharedRun struct {
	once sync.Once
	root string
	err  string
}

// exampleExit is the exit status of the examples that do not exit 0, and why.
var exampleExit = map[string]int{
	// The doubled buffer removes lossy drops at three points: compare's exit 1 is the
	// answer the README's A/B example shows.
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

// readmeExamples are the lines of README.md's fenced code blocks that start with
// "rocesweep " or "go run ./cmd/rocesweep ", as rocesweep command lines, with their line
// numbers.
func readmeExamples(t *testing.T) (lines []string, at []int) {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if rest, ok := strings.CutPrefix(line, "go run ./cmd/rocesweep "); ok {
			line = "rocesweep " + rest
		}
		if fenced && strings.HasPrefix(line, "rocesweep ") {
			lines, at = append(lines, line), append(at, n)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines, at
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

// TestExamplesRun runs every rocesweep command line of README.md's code blocks, in order
// in one directory, and every example of every command's help in order in another, as
// written (the repository's configs beside them), each through mainWithArgs, the whole
// command line as main runs it: each must exit 0, or as exampleExit says. A fake sbatch
// takes the Slurm examples' --submit. Each command runs in this process, its jobs too
// (run's default here is --isolate=false): what an example shows is its command line and
// output; the processes of rocesweep (signals, worker processes, crashes) are the
// subject of run_test.go and isolate_test.go. (A process each cost nearly as much CPU
// to start as the examples' own work.)
// The test is sequential: it changes the working directory, which the parallel tests,
// started only after the sequential ones end, do not see change under them.
func TestExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every example (about half a minute)")
	}
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
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if defaultIsolate {
		t.Fatal("TestMain leaves --isolate's default on: the examples' jobs would each start a worker process")
	}
	lines, at := readmeExamples(t)
	if len(lines) < 5 {
		t.Fatalf("README.md: %d rocesweep lines in code blocks; the extraction is broken", len(lines))
	}
	newRoot := func(t *testing.T) string {
		root := t.TempDir()
		if err := os.Symlink(configs, filepath.Join(root, "configs")); err != nil {
			t.Fatal(err)
		}
		return root
	}
	shared := map[string]*sharedRun{}
	for line := range sharedRuns {
		shared[line] = &sharedRun{}
	}
	sharedBase := t.TempDir() // outlives both sequences
	var runLine func(t *testing.T, root, line string)
	// runArgs runs one example in root: "" if it exits as exampleExit says, else why not.
	runArgs := func(root, line string, args []string) string {
		var stdout, stderr bytes.Buffer
		if err := os.Chdir(root); err != nil {
			return fmt.Sprintf("%s: %v", line, err)
		}
		code := mainWithArgs(context.Background(), args, &stdout, &stderr)
		if err := os.Chdir(cwd); err != nil {
			panic(err) // every later test would run elsewhere
		}
		if want := exampleExit[line]; code != want {
			return fmt.Sprintf("%s\nexit %d, want %d\nstdout:\n%s\nstderr:\n%s", line, code, want, lastLines(stdout.String(), 10), lastLines(stderr.String(), 10))
		}
		return ""
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
				s.once.Do(func() {
					var err error
					if s.root, err = os.MkdirTemp(sharedBase, "shared"); err != nil {
						s.err = err.Error()
					} else if err := os.Symlink(configs, filepath.Join(s.root, "configs")); err != nil {
						s.err = err.Error()
					} else {
						s.err = runArgs(s.root, line, exampleArgs(t, line, s.root))
					}
				})
				if s.err != "" {
					t.Fatal(s.err)
				}
				if err := os.CopyFS(filepath.Join(root, out), os.DirFS(filepath.Join(s.root, out))); err != nil {
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
	t.Run("README", func(t *testing.T) {
		root := newRoot(t)
		for i, line := range lines {
			t.Run("README.md:"+strconv.Itoa(at[i]), func(t *testing.T) { runLine(t, root, line) })
		}
	})
	t.Run("help", func(t *testing.T) {
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
