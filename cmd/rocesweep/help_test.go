package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/spf13/pflag"
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
	t.Parallel()
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
