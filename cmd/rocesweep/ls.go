package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep/slurm"
	"github.com/rocesweep/rocesweep/sweep/study"
)

// cmdLs lists the results directories under DIR (default results/): resultsdir.List gives
// the rows, this renders them.
func cmdLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fl := pflag.NewFlagSet("ls", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	asJSON := fl.Bool("json", false, "print the list as JSON")
	if err := fl.Parse(args); err != nil {
		return flagError("ls", fl, err)
	}
	if fl.NArg() > 1 {
		return usagef("ls: want at most one DIR, got %d arguments", fl.NArg())
	}
	dir := "results"
	if fl.NArg() == 1 {
		dir = fl.Arg(0)
	}
	runs, err := resultsdir.List(dir, time.Now(), resultsdir.StatusOptions{ModelVersion: model.Version, Decide: study.DecideStatus, SlurmScript: slurm.ScriptName})
	if err != nil {
		return usageError{fmt.Errorf("ls: %w", err)}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(runs)
	}
	printRuns(stdout, dir, runs)
	return nil
}

func printRuns(w io.Writer, dir string, runs []resultsdir.Run) {
	if len(runs) == 0 {
		fmt.Fprintf(w, "%s holds no results directories\n", dir)
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "name\tspec\tjobs ok\tstate\tquestion\tmodel\tstarted\tsize")
	for _, r := range runs {
		spec, jobs := r.Spec, ""
		if r.Sim {
			spec = "sim"
		}
		if r.Study != "" || r.Planned > 0 {
			jobs = fmt.Sprintf("%d/%d", r.OK, r.Planned)
		}
		state := r.State
		if r.Decision != "" && r.Select != nil {
			state += ", " + r.Decision
		}
		started := ""
		if t, err := time.Parse(time.RFC3339, r.Started); err == nil {
			started = t.UTC().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Name, dash(spec), dash(jobs), state, dash(r.Question()),
			dash(r.ModelVersion), dash(started), sizeText(r.Bytes))
	}
	tw.Flush()
}

// dash shows an empty cell as "-".
func dash(s string) string { return cmp.Or(strings.TrimSpace(s), "-") }

// sizeText prints a byte count in B, KiB, MiB or GiB.
func sizeText(n int64) string {
	f, units := float64(n), []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
