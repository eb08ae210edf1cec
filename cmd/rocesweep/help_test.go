package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model"
)

// zeroDefault reports whether pflag leaves "(default ...)" out for this flag's default.
func zeroDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]", "0s":
		return true
	}
	return false
}

// Every subcommand's -h, --help and `help CMD` print, on stdout with exit 0, a paragraph,
// every flag of the flag set the command parses (with its default) and an example.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, c := range commands {
		var h helpRequested
		if err := c.run(context.Background(), []string{"--help"}, &bytes.Buffer{}, &bytes.Buffer{}); !errors.As(err, &h) {
			t.Fatalf("%s --help: got %v, want a help request", c.name, err)
		}
		if c.long == "" || c.example == "" || c.short == "" {
			t.Errorf("%s: want short, long and example help", c.name)
		}
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			var stdout, stderr bytes.Buffer
			if code := mainWithArgs(context.Background(), args, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
				t.Errorf("%q: exit %d, stderr %q; want 0 and nothing", args, code, stderr.String())
			}
			out := stdout.String()
			for _, want := range []string{"usage: rocesweep " + c.usage + "\n", c.long, "example:\n  rocesweep " + c.name} {
				if !strings.Contains(out, want) {
					t.Errorf("%q: help lacks %q:\n%s", args, want, out)
				}
			}
			n := 0
			h.flags.VisitAll(func(f *pflag.Flag) {
				n++
				name := "--" + f.Name
				if f.Shorthand != "" {
					name = "-" + f.Shorthand + ", --" + f.Name
				}
				line := ""
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), name+" ") || strings.HasPrefix(strings.TrimSpace(l), name+"[") {
						line = l
					}
				}
				switch {
				case line == "":
					t.Errorf("%q: help lacks flag %s", args, name)
				case !strings.Contains(line, f.Usage):
					t.Errorf("%q: flag %s without its description: %q", args, name, line)
				case !zeroDefault(f) && !strings.Contains(line, "(default "):
					t.Errorf("%q: flag %s without its default %s: %q", args, name, f.DefValue, line)
				}
			})
			if n > 0 && !strings.Contains(out, "\nflags:\n") {
				t.Errorf("%q: no flags section", args)
			}
		}
	}
}

// Mistakes of use: the problem and the usage line on stderr, exit 2; nothing on stdout.
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string // lines of stderr, in order (prefixes)
	}{
		{nil, []string{"rocesweep runs parameter sweeps", "", "usage: rocesweep COMMAND [arguments]"}},
		{[]string{"reprot"}, []string{`rocesweep: unknown command "reprot" (did you mean report?)`, "run 'rocesweep help'"}},
		{[]string{"help", "valdate"}, []string{`rocesweep: help: unknown command "valdate" (did you mean validate?)`}},
		{[]string{"run", "--bogus"}, []string{"rocesweep: run: unknown flag: --bogus", "usage: rocesweep run [SPEC]", "run 'rocesweep help run' for details"}},
		{[]string{"report"}, []string{"rocesweep: report: want one results DIR, got 0 arguments", "usage: rocesweep report DIR"}},
		{[]string{"version", "x"}, []string{`rocesweep: version: no arguments expected, got ["x"]`, "usage: rocesweep version"}},
		// A directory that is not a results directory is the command line's mistake for
		// every command that reads one.
		{[]string{"report", "../../configs"}, []string{"rocesweep: report: ../../configs is not a results directory", "usage: rocesweep report DIR"}},
		{[]string{"export", "../../configs"}, []string{"rocesweep: export: ../../configs is not a results directory", "usage: rocesweep export DIR"}},
		{[]string{"status", "../../configs"}, []string{"rocesweep: status: ../../configs is not a results directory", "usage: rocesweep status DIR"}},
		{[]string{"plan", "../../configs/ci.yaml", "--grid", "switch.LossyAlpha=1,fast"}, []string{`rocesweep: --grid switch.LossyAlpha=1,fast: value "fast": switch.LossyAlpha: not a number`, "usage: rocesweep plan SPEC"}},
		{[]string{"plan", "../../configs/ci.yaml", "--set", "sweep.replicates=1"}, []string{"rocesweep: --set sweep.replicates=1: replicates is a key of the spec's top level, not of sweep: --set replicates=1", "usage: rocesweep plan SPEC"}},
	} {
		var stdout, stderr bytes.Buffer
		code := mainWithArgs(context.Background(), tc.args, &stdout, &stderr)
		if code != 2 || stdout.Len() > 0 {
			t.Errorf("%q: exit %d, stdout %q; want 2 and nothing", tc.args, code, stdout.String())
		}
		lines := strings.Split(stderr.String(), "\n")
		for i, w := range tc.want {
			if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
				t.Errorf("%q: stderr line %d: want prefix %q in\n%s", tc.args, i+1, w, stderr.String())
			}
		}
	}
}

func TestHelpAndVersionOnStdout(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "  report    write a self-contained HTML report"},
		{[]string{"-h"}, "usage: rocesweep COMMAND [arguments]"},
		{[]string{"--help"}, "run 'rocesweep help COMMAND'"},
		{[]string{"version"}, "  model     " + model.Version + "\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := mainWithArgs(context.Background(), tc.args, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), tc.want) {
			t.Errorf("%q: want %q in\n%s", tc.args, tc.want, stdout.String())
		}
	}
}
