package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/dirfs"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// cmdReport writes one self-contained HTML page of charts for a results directory
// (package report); --png also writes each chart as a PNG file.
func cmdReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.StringP("output", "o", "", "HTML file to write (default DIR/report.html)")
	jobs := fs.StringSlice("job", nil, "job id whose interval records are drawn as time series (repeatable)")
	pngDir := fs.String("png", "", "also write every chart as DIR/<chart>.png")
	metrics := fs.StringSlice("metric", nil, "summary metric to chart in full (repeatable; default: the objective's metrics, every other one as a heat map under All metrics)")
	width := fs.Int("width", 640, "chart width in pixels")
	height := fs.Int("height", 480, "chart height in pixels")
	if err := fs.Parse(args); err != nil {
		return flagError("report", fs, err)
	}
	if fs.NArg() != 1 {
		return usagef("report: want one results DIR, got %d arguments", fs.NArg())
	}
	if *width < 100 || *height < 100 || *width > 4000 || *height > 4000 {
		return usagef("report: --width %d --height %d: each must be 100..4000 pixels", *width, *height)
	}
	dir := fs.Arg(0)
	// A directory that is not one (no manifest) is a mistake in the command line, as in
	// export and status: exit 2 with the usage line.
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		return usagef("report: %s is not a results directory (%v); report reads the DIR of 'rocesweep run -o DIR'", dir, err)
	}
	if m.Damage != "" {
		fmt.Fprintf(stderr, "rocesweep: report: warning: %s: %s\n", filepath.Join(dir, resultsdir.ManifestFile), m.Damage)
	}
	eff, effErr := effectiveConfig(dir)
	dec, _, decErr := study.DecideDir(dir)
	bis, _, bisErr := study.BisectDir(dir)
	if decErr == nil {
		decErr = bisErr
	}
	r, err := report.Build(dir, report.Options{Jobs: *jobs, Metrics: *metrics, Width: *width, Height: *height, Effective: eff, Decision: dec, Bisection: bis})
	if oe := (*report.OptionError)(nil); errors.As(err, &oe) {
		return usagef("report: %v", err)
	} else if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if effErr != nil {
		fmt.Fprintf(stderr, "rocesweep: report: %s: the effective configuration cannot be resolved (%v); the page shows the jobs columns shared by every job instead\n", dir, effErr)
	}
	if decErr != nil {
		fmt.Fprintf(stderr, "rocesweep: report: %s: the study's decision cannot be replayed (%v); the page answers without it\n", dir, decErr)
	}
	if *out == "" {
		*out = filepath.Join(dir, "report.html")
	}
	// The page appears only when complete (a temp name, then rename), never through a link.
	var page bytes.Buffer
	if err := r.WriteHTML(&page); err != nil {
		return fmt.Errorf("report: %s: %w", *out, err)
	}
	if err := dirfs.WriteFileAtomic(nil, *out, "", page.Bytes()); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d charts, %d of %d jobs ok)\n", *out, len(r.Charts()), r.OK, r.Rows)
	if *pngDir != "" {
		paths, err := r.WritePNGs(*pngDir)
		if err != nil {
			return fmt.Errorf("report: --png %s: %w", *pngDir, err)
		}
		fmt.Fprintf(stdout, "wrote %d PNG files (%dx%d) to %s\n", len(paths), *width, *height, *pngDir)
	}
	return damageError("report", dir, stderr)
}
