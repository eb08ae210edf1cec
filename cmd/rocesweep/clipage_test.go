package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// cliPage is the command-line reference, generated from the command table and each
// command's help; relative to the repository root.
const cliPage = "docs/cli.md"

var updateCLIPage = flag.Bool("update-cli", false, "rewrite "+cliPage+" from the command table and rocesweep help")

// renderCLIPage is docs/cli.md: the list of commands from the command table, then, per
// command, the output of `rocesweep help CMD` as main prints it. The one default that
// depends on the machine, --jobs (the CPU count), is written as such.
func renderCLIPage(t *testing.T) string {
	help := func(args ...string) string {
		var stdout, stderr bytes.Buffer
		if code := mainWithArgs(context.Background(), args, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
		out := stdout.String()
		machine := fmt.Sprintf("jobs run in parallel (default %d)", runtime.NumCPU())
		return strings.ReplaceAll(out, machine, "jobs run in parallel (default: this machine's CPU count)")
	}
	var b strings.Builder
	b.WriteString(`# Command-line reference

<!-- Generated: go test ./cmd/rocesweep -run TestCLIPage -update-cli
     (from the command table in cmd/rocesweep/main.go and each command's help; the test
     fails when this page differs from what rocesweep help prints). Do not edit. -->

Every command and every flag of ` + "`rocesweep`" + `, as ` + "`rocesweep help CMD`" + ` prints them
(` + "`rocesweep CMD -h`" + ` prints the same). A test regenerates this page from the command
table and each command's flag set and fails when it differs, so a command or flag added
without regenerating it fails ` + "`go test ./cmd/rocesweep`" + `. The one default that depends on
the machine, ` + "`--jobs`" + `, is written as "this machine's CPU count". Exit status, for every
command: 0 success, 1 a job failed or a comparison found a difference, 2 a mistake in
the command line or the spec (nothing was run), 3 a selection's shard stopped before the
decision ([studies.md](studies.md#selecting-the-best-point-run---select)), 130 stopped
by a signal.

| command | what it does |
|---|---|
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s |\n", c.name, c.name, strings.ReplaceAll(c.short, "|", `\|`))
	}
	b.WriteString("\n```text\n$ rocesweep help\n" + help("help") + "```\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n```text\n$ rocesweep help %s\n%s```\n", c.name, upperFirst(c.short), c.name, help("help", c.name))
	}
	return b.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// TestCLIPage: docs/cli.md is what renderCLIPage makes of the command table and the
// help of every command. After adding or changing a command or a flag, run
// go test ./cmd/rocesweep -run TestCLIPage -update-cli and review the diff.
func TestCLIPage(t *testing.T) {
	want := renderCLIPage(t)
	path := filepath.Join("../..", cliPage)
	got, err := os.ReadFile(path)
	if *updateCLIPage {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v: generate it: go test ./cmd/rocesweep -run TestCLIPage -update-cli", err)
	}
	if string(got) != want {
		g, w := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		line := 0
		for line < len(g) && line < len(w) && g[line] == w[line] {
			line++
		}
		at := func(l []string) string {
			if line < len(l) {
				return l[line]
			}
			return "(end of page)"
		}
		t.Errorf("%s is out of date with the commands' help (first difference at line %d:\n  page: %s\n  help: %s)\nrun: go test ./cmd/rocesweep -run TestCLIPage -update-cli, and review the diff",
			cliPage, line+1, at(g), at(w))
	}
	// Every command and flag is on the page by its name (what a reader searches for).
	for _, c := range commands {
		if !strings.Contains(want, "\n## "+c.name+"\n") {
			t.Errorf("%s: no section for command %s", cliPage, c.name)
		}
	}
}
