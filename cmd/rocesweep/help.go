package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/buildinfo"
	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/model/config"
)

// helpRequested is what a command returns for -h or --help: main prints the command's
// help from the flag set it parsed (exit 0).
type helpRequested struct{ flags *pflag.FlagSet }

func (helpRequested) Error() string { return "help requested" }

// flagError turns the error of a command's fl.Parse into a help request (-h, --help) or
// a usage error naming the command (exit 2).
func flagError(cmd string, fl *pflag.FlagSet, err error) error {
	if errors.Is(err, pflag.ErrHelp) {
		return helpRequested{fl}
	}
	return usagef("%s: %v", cmd, err)
}

func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// suggestCommand returns " (did you mean X?)" for the command nearest to name, or "".
func suggestCommand(name string) string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return config.Suggest(name, names)
}

// cmdHelp is `rocesweep help [CMD]`.
func cmdHelp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch len(args) {
	case 0:
		printUsage(stdout)
		return 0
	case 1:
	default:
		fmt.Fprintf(stderr, "rocesweep: help: one command at most, got %q\nusage: rocesweep help [COMMAND]\n", args)
		return 2
	}
	c := lookupCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "rocesweep: help: unknown command %q%s\nrun 'rocesweep help' for the list of commands\n", args[0], suggestCommand(args[0]))
		return 2
	}
	// The command builds its flag set and stops at --help, before doing anything.
	var h helpRequested
	if err := c.run(ctx, []string{"--help"}, io.Discard, io.Discard); !errors.As(err, &h) {
		fmt.Fprintf(stderr, "rocesweep: help: %s did not stop at --help (%v)\n", c.name, err)
		return 1
	}
	printHelp(stdout, c, h.flags)
	return 0
}

// printHelp writes one command's help: usage line, what it does, every flag with its
// default (from the flag set the command parses, so it cannot drift), examples.
func printHelp(w io.Writer, c *command, fl *pflag.FlagSet) {
	fmt.Fprintf(w, "usage: rocesweep %s\n\n%s\n", c.usage, c.long)
	if fl != nil && fl.HasFlags() {
		fmt.Fprintf(w, "\nflags:\n%s", fl.FlagUsages())
	}
	if c.example != "" {
		fmt.Fprintf(w, "\nexample:\n")
		for _, line := range strings.Split(c.example, "\n") {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "rocesweep runs parameter sweeps over a packet-level RoCEv2 fabric model.")
	fmt.Fprintln(w, "\nusage: rocesweep COMMAND [arguments]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.short)
	}
	fmt.Fprintln(w, "\nrun 'rocesweep help COMMAND' (or 'rocesweep COMMAND -h') for its flags and an example.")
	fmt.Fprintln(w, "First command: 'rocesweep run' runs the quickstart sweep into results/quickstart.")
}

// cmdVersion prints the binary's build: module version, VCS revision and time (stamped
// by go build/install in a clone), Go version and model.Version.
func cmdVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	if err := fl.Parse(args); err != nil {
		return flagError("version", fl, err)
	}
	if fl.NArg() > 0 {
		return usagef("version: no arguments expected, got %q", fl.Args())
	}
	b := buildinfo.Read()
	module, version, rev := cmp.Or(b.Module, "github.com/rocesweep/rocesweep"), cmp.Or(b.Version, "unknown"), cmp.Or(b.Revision, "unknown (not stamped: built by go run, go test or with -buildvcs=false)")
	if b.Modified {
		rev += " (with uncommitted changes)"
	}
	fmt.Fprintf(stdout, "rocesweep %s\n  module    %s\n  revision  %s\n", version, module, rev)
	if b.Time != "" {
		fmt.Fprintf(stdout, "  time      %s\n", b.Time)
	}
	fmt.Fprintf(stdout, "  go        %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "  model     %s\n", model.Version)
	return nil
}
