// Command rocesweep runs parameter sweeps over a packet-level model of RoCEv2 NICs and
// shared-buffer switches and writes Parquet results (design.md "Commands users type").
//
// main is a thin shell: each command is a value in the commands slice with its usage and
// help, dispatched by name; help is rendered from the same slice so it cannot drift.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one subcommand. run gets the arguments after the command name.
type command struct {
	name  string
	usage string // "run [SPEC] [-o DIR] ..."
	short string // one line
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the ordered list of subcommands; each run function lives in its own file.
var commands = []*command{
	{name: "run", usage: "run [SPEC] [-o DIR] [-j N] [--resume] [--shard K/N] [--set path=value]... [--format parquet|arrow]", short: "run a sweep (the embedded quickstart without SPEC)", run: cmdRun},
	{name: "plan", usage: "plan SPEC [--set path=value]... [--json]", short: "list the jobs a sweep expands to; nothing runs", run: cmdPlan},
	{name: "validate", usage: "validate SPEC [--set path=value]...", short: "check every job against every rule; nothing runs", run: cmdValidate},
	{name: "sim", usage: "sim [SPEC] [--set path=value]... -o DIR", short: "run one job (no axes) and print its summary", run: cmdSim},
	{name: "explain", usage: "explain [SPEC] [--set path=value]... [--json]", short: "derived numbers: pools, thresholds, limits, pause times", run: cmdExplain},
	{name: "defaults", usage: "defaults [--json]", short: "every attribute with its path, type, unit and default", run: cmdDefaults},
	{name: "compare", usage: "compare BASE_DIR NEW_DIR [--metric M]... [--rtol X] [--atol Y] [--json] [--bench]", short: "compare two results directories (CI regression check)", run: cmdCompare},
	{name: "report", usage: "report DIR [-o FILE.html] [--job ID]... [--png DIR]", short: "write a self-contained HTML report with charts", run: cmdReport},
	{name: "slurm", usage: "slurm SPEC -o DIR [--array-size N] [--partition P] [--time T] [--cpus-per-task C] [--set path=value]... [--format F] [--max-wall-per-job D] [--commit-interval D] [--submit]", short: "write (and with --submit, submit) a Slurm job array that runs the sweep in N shards", run: cmdSlurm},
	{name: "status", usage: "status DIR [--json]", short: "progress of a results directory per shard: planned, ok, failed, missing", run: cmdStatus},
}

// usageError is a mistake in the command line or the spec: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usagef returns a usageError (exit status 2).
func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error to the process exit status: 0 ok, 2 bad input, 1 failure.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	var ex exitError
	if errors.As(err, &ex) {
		return ex.code
	}
	return 1
}

// exitError carries an explicit exit status (e.g. compare's 1 for "moved beyond tolerance").
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(mainWithArgs(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// mainWithArgs runs one command line; tests call it with buffers.
func mainWithArgs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			for _, c := range commands {
				if c.name == args[1] {
					fmt.Fprintf(stdout, "usage: rocesweep %s\n\n%s\n", c.usage, c.short)
					return 0
				}
			}
		}
		printUsage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name == args[0] {
			err := c.run(ctx, args[1:], stdout, stderr)
			if err != nil && !errors.Is(err, errSilent) {
				msg := err.Error()
				if !strings.HasPrefix(msg, "rocesweep:") {
					msg = "rocesweep: " + msg
				}
				fmt.Fprintln(stderr, msg)
				if exitCode(err) == 2 {
					fmt.Fprintf(stderr, "usage: rocesweep %s\n", c.usage)
				}
			}
			return exitCode(err)
		}
	}
	fmt.Fprintf(stderr, "rocesweep: unknown command %q\nrun 'rocesweep help' for the list of commands\n", args[0])
	return 2
}

// errSilent marks an error already reported to the user; only the exit status remains.
var errSilent = errors.New("silent")

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "rocesweep runs parameter sweeps over a packet-level RoCEv2 fabric model.")
	fmt.Fprintln(w, "\nusage:")
	for _, c := range commands {
		fmt.Fprintf(w, "  rocesweep %s\n        %s\n", c.usage, c.short)
	}
}
