package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rocesweep/rocesweep/model"
)

// scriptCommand is the name under which the scripts run this test binary as the command
// (TestMain, childMain).
const scriptCommand = "rocesweep"

// TestScript runs the command-line tests of testdata/script, each a txtar file: a script
// of rocesweep command lines with the exit status, output and files they must give
// (github.com/rogpeppe/go-internal/testscript, the style of cmd/go's script tests). Each
// runs in a work directory of its own, all at once, rocesweep being this test binary in a
// process of its own (childMain). The scripts' rocesweep runs the fake job of 1000
// messages (sweeptest.Job) in its own process, as runMain does, unless the script sets
// ROCESWEEP_TEST_REAL=1 (the simulation). Each work directory holds crash.yaml
// (crashSpec, 36 jobs); $CONFIGS is the repository's configs/ and $MODEL_VERSION the
// model version.
func TestScript(t *testing.T) {
	t.Parallel()
	configs, err := filepath.Abs("../../configs")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CONFIGS", configs)
			env.Setenv("MODEL_VERSION", model.Version)
			env.Setenv("ROCESWEEP_TEST_WORK", "1000")
			env.Setenv("ROCESWEEP_TEST_INPROCESS", "1")
			env.Setenv("GOMAXPROCS", "1")
			return os.WriteFile(filepath.Join(env.WorkDir, "crash.yaml"), []byte(crashSpec), 0o644)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// exitcode N PROGRAM [ARGS...]: exec PROGRAM, which must exit with status N
			// (rocesweep's 2 for bad input, 1 for a failure, 130 for an interrupt).
			"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exitcode N program [args...]")
				}
				want, err := strconv.Atoi(args[0])
				ts.Check(err)
				got := 0
				var ee *exec.ExitError
				if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
					got = ee.ExitCode()
				} else {
					ts.Check(err)
				}
				if got != want {
					ts.Fatalf("exit status %d, want %d", got, want)
				}
			},
			// isempty DIR: DIR has no entries (! isempty: it has some).
			"isempty": func(ts *testscript.TestScript, neg bool, args []string) {
				if len(args) != 1 {
					ts.Fatalf("usage: isempty DIR")
				}
				entries, err := os.ReadDir(ts.MkAbs(args[0]))
				ts.Check(err)
				if (len(entries) == 0) == neg {
					var names []string
					for _, e := range entries {
						names = append(names, e.Name())
					}
					ts.Fatalf("%s holds %q", args[0], names)
				}
			},
		},
	})
}
