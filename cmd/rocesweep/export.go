package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/export"
)

// cmdExport writes a results directory's tables as CSV next to the Parquet
// (DIR/csv/<table>.csv), for pandas without a Parquet engine (notebooks/alpha_xoff.ipynb).
func cmdExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("export", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	format := fl.String("format", "csv", "output format (csv is the only one)")
	tables := fl.StringArray("table", nil, "table to export (repeatable; default: jobs and every record table that has rows)")
	out := fl.StringP("output", "o", "", "directory to write <table>.csv into (default DIR/csv)")
	if err := fl.Parse(args); err != nil {
		return flagError("export", fl, err)
	}
	if fl.NArg() != 1 {
		return usagef("export: want one results DIR, got %d arguments", fl.NArg())
	}
	if *format != "csv" {
		return usagef("export: --format %q: want csv", *format)
	}
	dir := fl.Arg(0)
	if _, err := os.Stat(dir); err != nil {
		return usagef("export: %v", err)
	}
	// An empty or foreign directory has no manifest: say so, as report does, rather than
	// export nothing and exit 0.
	if _, err := resultsdir.ReadManifest(dir); err != nil {
		return usagef("export: %s is not a results directory (%v); export reads the DIR of 'rocesweep run -o DIR'", dir, err)
	}
	all := append([]string{"jobs"}, resultsdir.Tables...)
	explicit := len(*tables) > 0
	if explicit {
		for _, t := range *tables {
			if !slices.Contains(all, t) {
				return usagef("export: --table %q: unknown table%s; the tables are %v", t, config.Suggest(t, all), all)
			}
		}
		all = *tables
	}
	if *out == "" {
		*out = filepath.Join(dir, export.Subdir)
	}
	wrote := 0
	for _, t := range all {
		path, n, err := export.CSVTo(dir, *out, t)
		if !explicit && (errors.Is(err, export.ErrNoParts) || errors.Is(err, fs.ErrNotExist)) {
			continue // a table this sweep wrote no rows to
		}
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s (%d rows)\n", path, n)
		wrote++
	}
	if wrote == 0 {
		return usagef("export: %s holds no committed rows yet: no job has finished ('rocesweep status %s' shows its progress)", dir, dir)
	}
	return damageError("export", dir, stderr)
}

// damageError names, on stderr, the damaged commits of dir that a reader (export,
// report) left out of every table, and makes the command exit 1: its output is
// consistent (no table holds rows of a job the jobs table does not list) but lacks
// those jobs. nil when there are none.
func damageError(cmd, dir string, stderr io.Writer) error {
	damaged, err := resultsdir.Damage(dir)
	if err != nil || len(damaged) == 0 {
		return err
	}
	jobs := map[string]bool{}
	for _, d := range damaged {
		fmt.Fprintf(stderr, "rocesweep: %s: damaged: %s\n", cmd, resultsdir.DamageText(d))
		for _, id := range d.Jobs {
			jobs[id] = true
		}
	}
	return exitError{1, fmt.Errorf("%s: %s of %s are left out of every table: committed files of theirs are damaged (above); run the sweep again with --resume to run them again", cmd, report.Plural(len(jobs), "job"), dir)}
}
