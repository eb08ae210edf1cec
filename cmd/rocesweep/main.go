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
	"runtime"
	"strings"
	"syscall"
)

// command is one subcommand. run gets the arguments after the command name; it builds
// its own pflag.FlagSet and hands any parse error to flagError, so `CMD -h`, `CMD --help`
// and `help CMD` all print the flags of the very set the command parses (help.go).
type command struct {
	name  string
	usage string // "run [SPEC] [-o DIR] ...": the usage line, after "rocesweep "
	short string // one line, in the list of commands
	long  string // what it does: a paragraph or two, shown by help CMD before the flags
	// example is one or more command lines shown at the end of help CMD.
	example string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// commands is the ordered list of subcommands; each run function lives in its own file.
var commands = []*command{
	{name: "run", usage: "run [SPEC] [-o DIR] [-j N] [--resume] [--shard K/N] [--set path=value]... [--grid path=v1,v2,...]... [--format parquet|arrow]", short: "run a sweep (the embedded quickstart without SPEC)", run: cmdRun,
		long: `Run expands SPEC (a YAML sweep: a base configuration and axes) into jobs, runs them
-j at a time and writes one results directory: the jobs table (one row per job with its
swept values, status and summary metrics), the record tables and a journal. Without SPEC
it runs the embedded quickstart sweep into results/quickstart. Every job is checked
before any runs: bad input exits 2 and nothing is written. A failed job is a row with
status failed and makes the exit status 1; the others still run. Ctrl-C stops taking
jobs, lets running ones finish and exits 130; --resume then runs only the missing jobs.
A selection's shard that stops before the decision because other shards' jobs are
missing exits 3 (with --wait: after --wait-limit without progress).
At the end it prints a table of --metric over the first two swept axes.`,
		example: "rocesweep run\nrocesweep run configs/ci.yaml -o results/ci -j 2\nrocesweep run configs/ci.yaml -o results/ci --resume"},
	{name: "plan", usage: "plan SPEC [--set path=value]... [--grid path=v1,v2,...]... [--json]", short: "list the jobs a sweep expands to; nothing runs", run: cmdPlan,
		long: `Plan expands SPEC into its jobs and lists each job's index, id and swept values;
nothing runs and nothing is written. The job id is a hash of the job's full
configuration, so the same point has the same id in every sweep that contains it.`,
		example: "rocesweep plan configs/lossyalpha-xoff.yaml\nrocesweep plan configs/ci.yaml --set replicates=1 --json\nrocesweep plan configs/ci.yaml --grid switch.LossyAlpha=0.5,1,2"},
	{name: "validate", usage: "validate SPEC [--set path=value]... [--grid path=v1,v2,...]...", short: "check every job against every rule; nothing runs", run: cmdValidate,
		long: `Validate checks every job of SPEC against every rule that would stop a simulation
and names each invalid grid point with the rule it breaks; nothing runs. It exits 2 when
a point is invalid, unless --skip-invalid (then run --skip-invalid records those points
as status invalid and runs the rest).`,
		example: "rocesweep validate configs/lossyalpha-xoff.yaml"},
	{name: "sim", usage: "sim [SPEC] [--set path=value]... -o DIR", short: "run one job (no axes) and print its summary", run: cmdSim,
		long: `Sim runs one job, a spec without axes (or, without SPEC, the built-in defaults: a star of
16 hosts, an incast of 15 senders x 1 MiB for 1 ms), through the same runner and sink as
run, and prints a short summary. Its results go to -o DIR (default results/<name>); run
again with another --set, the new results replace the earlier sim's once complete.`,
		example: "rocesweep sim --set switch.LossyAlpha=0.5 -o results/one\nrocesweep sim configs/bench/incast-8to1-1MiB.yaml --json --cpuprofile cpu.out"},
	{name: "explain", usage: "explain [SPEC] [--job ID|INDEX] [--set path=value]... [--json]", short: "derived numbers: pools, thresholds, limits, pause times", run: cmdExplain,
		long: `Explain prints the numbers the model derives from one configuration: the switch's
buffer pools, thresholds and limits, the pause time of each link kind, and the NIC's
pools, PFC thresholds and rates, followed by warnings about sizing that lets lossless
traffic drop. Without SPEC it explains the defaults; of a SPEC that sweeps, it explains
one job, job 0 or the one --job names (by id or index), and says which.`,
		example: "rocesweep explain --set switch.StaticPoolXoffThreshold=300KB\nrocesweep explain configs/quickstart.yaml --job 5"},
	{name: "defaults", usage: "defaults [--json]", short: "every attribute with its path, type, unit and default", run: cmdDefaults,
		long: `Defaults prints every attribute a spec or --set can give: its path, type, unit and
default value, as a table or, with --json, a JSON array.`,
		example: "rocesweep defaults | grep -i xoff"},
	{name: "compare", usage: "compare BASE_DIR NEW_DIR [--by job_id|params] [--metric M]... [--rtol X] [--atol Y] [--json] [--bench]", short: "compare two results directories (CI regression check, A/B of a change)", run: cmdCompare,
		long: `Compare matches the jobs of two results directories and prints, per summary metric,
the values that moved beyond tolerance (|new-base| > atol + rtol*|base|) and the jobs
found on one side only. By default jobs match by job id (same configuration: a CI
regression check). --by params matches them by their swept values and replicate, so two
runs of one spec that differ in a non-swept --set compare point by point: per point the
paired delta over the replicates with its 95% interval, and a failure only when a move
beyond tolerance has an interval that excludes zero. Directories of two model versions
share no job id: compare then pairs by params (unless --by job_id is given) and says
that the model changed. Exit 1 means a regression; 2 a bad flag, an unreadable
directory, an unknown metric or nothing to pair. --bench prints NEW_DIR's metrics as
Go benchmark lines named by parameters (benchstat -col /LossyAlpha).`,
		example: "rocesweep compare results/ci-main results/ci --metric drops_total\nrocesweep compare results/a results/b --by params --metric fct_p99_usec --rtol 0.02"},
	{name: "report", usage: "report DIR [-o FILE.html] [--job ID]... [--png DIR]", short: "write a self-contained HTML report with charts", run: cmdReport,
		long: `Report writes one self-contained HTML page for a results directory (DIR/report.html by
default; open it from disk, no network). The top answers: the best point of each main
metric (lossless p99 FCT first) with its 95% interval over the replicates, the paired
differences to its neighbours, and the Pareto front of drops vs the lossless p99 FCT.
Then failed jobs, the effective configuration (spec and --set, settings that differ from
the defaults), per metric a heat map with a colour bar and line charts with interval
bars, and a small table of simulator performance. --job adds time series of one job's
queues, pause time and send rate.`,
		example: "rocesweep report results/quickstart\nrocesweep report results/ci --png results/ci/png --width 800"},
	{name: "export", usage: "export DIR [-o OUTDIR] [--format csv] [--table T]...", short: "write a results directory's tables as CSV (DIR/csv/<table>.csv) for readers without Parquet", run: cmdExport,
		long: `Export writes the tables of a results directory as CSV files next to the Parquet,
DIR/csv/<table>.csv (all shards in one file, a header row of column names, values exact,
null cells empty), so that pandas reads them with pd.read_csv where no Parquet engine
(pyarrow, fastparquet, DuckDB) is installed. Without --table it writes jobs and every
record table that has rows. Each file appears only when complete.`,
		example: "rocesweep export results/quickstart\nrocesweep export results/quickstart --table jobs"},
	{name: "slurm", usage: "slurm SPEC -o DIR [--array-size N] [--partition P] [--time T] [--cpus-per-task C] [--set path=value]... [--grid path=v1,v2,...]... [--format F] [--max-wall-per-job D] [--commit-interval D] [--submit]", short: "write (and with --submit, submit) a Slurm job array that runs the sweep in N shards", run: cmdSlurm,
		long: `Slurm checks SPEC as validate does and writes DIR/slurm/, a job-array script whose task K
of N runs 'rocesweep run SPEC -o DIR --shard K/N --resume', so a requeued or preempted
task continues from its journal. With --submit it also submits the script with sbatch
and prints the array id. Follow the array with 'rocesweep status DIR'.`,
		example: "rocesweep slurm configs/lossyalpha-xoff.yaml -o /scratch/alpha --array-size 32 --time 4:00:00 --submit"},
	{name: "status", usage: "status DIR [--json]", short: "progress of a results directory per shard: planned, ok, failed, missing", run: cmdStatus,
		long: `Status reads a results directory's journals and prints, per shard, the planned jobs
and how many are ok, failed, timed out, invalid or missing. It only reads, so it is safe
on the directory of a running sweep or array. It exits 0 for any results directory.`,
		example: "rocesweep status results/ci"},
	{name: "ls", usage: "ls [DIR] [--json]", short: "list the results directories under DIR (default results/) with their state", run: cmdLs,
		long: `Ls lists the folders of DIR (default results/), or DIR alone when it is a results directory:
each with its spec, jobs ok of planned, state (complete, partial, running, submitted, empty,
not results, unreadable; a selection adds its decision), the study's question, the model
version, when it started and its size. It only reads.`,
		example: "rocesweep ls\nrocesweep ls results --json"},
	{name: "version", usage: "version", short: "the module version, VCS revision and time, Go version and model version", run: cmdVersion,
		long: `Version prints the build of this binary: the module version, the VCS revision and
time it was built from (when built with go build or go install in a clone), the Go
version, and the model version that results directories record.`,
		example: "rocesweep version"},
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

// stopSignals end a command early and cleanly: `run` commits every finished job at once,
// then stops taking jobs. SIGHUP (a closed terminal or ssh session) is one of them.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

func main() {
	// No allocation sampling unless --memprofile asks for it (profile.go): Go samples one
	// allocation per 512 KB by default whenever runtime/pprof is linked, and records each
	// sample's stack, which a short `sim` paid for in stack walks and profile buckets.
	runtime.MemProfileRate = 0
	ctx, stop := handleSignals()
	defer stop()
	os.Exit(mainWithArgs(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// handleSignals returns the context a stop signal cancels. A closed stdout or stderr
// (`rocesweep run ... | head -1`) must not kill a sweep: with SIGPIPE ignored a write to
// it fails with EPIPE, and progress goes quiet.
func handleSignals() (context.Context, context.CancelFunc) {
	signal.Ignore(syscall.SIGPIPE)
	return signal.NotifyContext(context.Background(), stopSignals...)
}

// mainWithArgs runs one command line; tests call it with buffers. Like the go command:
// bare `rocesweep` prints the usage on stderr (exit 2); `help`, `-h` and `--help` print it
// on stdout (exit 0); a mistake in the command line prints one line naming it and the
// usage line on stderr (exit 2).
func mainWithArgs(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		printUsage(stderr)
		return 2
	}
	if args[0] == workerCommand {
		return cmdWorker(stdout, stderr)
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		return cmdHelp(ctx, args[1:], stdout, stderr)
	}
	c := lookupCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "rocesweep: unknown command %q%s\nrun 'rocesweep help' for the list of commands\n", args[0], suggestCommand(args[0]))
		return 2
	}
	err := c.run(ctx, args[1:], stdout, stderr)
	var h helpRequested
	if errors.As(err, &h) {
		printHelp(stdout, c, h.flags)
		return 0
	}
	if err != nil && !errors.Is(err, errSilent) {
		msg := err.Error()
		if !strings.HasPrefix(msg, "rocesweep:") {
			msg = "rocesweep: " + msg
		}
		fmt.Fprintln(stderr, msg)
		if exitCode(err) == 2 {
			fmt.Fprintf(stderr, "usage: rocesweep %s\nrun 'rocesweep help %s' for details\n", c.usage, c.name)
		}
	}
	return exitCode(err)
}

// errSilent marks an error already reported to the user; only the exit status remains.
var errSilent = errors.New("silent")
