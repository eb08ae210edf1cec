package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/sweep"
)

// cmdExplain prints the derived numbers and warnings of one configuration (design.md
// "Commands users type"), as model/explain computes them: the switch buffer set-up of
// switch.md §4 for each switch tier, the pause times of each link kind, the NIC pools,
// thresholds and rates of nic.md §11, §12, §17. Bad input exits 2 before anything is
// printed.
func cmdExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("explain", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var sets []string
	var asJSON bool
	fs.StringArrayVar(&sets, "set", nil, "override one attribute: path=value (repeatable)")
	fs.BoolVar(&asJSON, "json", false, "print JSON")
	jobSel := fs.String("job", "", "with a SPEC that sweeps: the job to explain, by id or index (default 0; rocesweep plan SPEC lists them)")
	if err := fs.Parse(args); err != nil {
		return flagError("explain", fs, err)
	}
	if fs.NArg() > 1 {
		return usagef("explain: one SPEC at most, got %d arguments", fs.NArg())
	}
	cfg, job, err := explainTarget(fs.Args(), sets, *jobSel)
	if err != nil {
		return err
	}
	e, ws, err := explain.Explain(&cfg)
	if err != nil {
		return usageError{err}
	}
	ex := &explanation{Explanation: e, Warnings: explain.Messages(ws), Job: job}
	if job != nil && !asJSON {
		fmt.Fprintf(stdout, "explaining %s of %d, id %s (--job ID or INDEX picks another)\n\n", job.Label, job.Of, job.ID)
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(ex)
	}
	ex.WriteSheet(stdout, ex.Warnings)
	return nil
}

// explainJob names the job of a sweep that explain explains.
type explainJob struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
	Label string `json:"label"` // "job 3 (switch.LossyAlpha=1, ...)"
	Of    int    `json:"of"`    // jobs in the plan
}

// explainTarget returns the configuration to explain: for a SPEC that sweeps, the job
// sel names (an id or an index; job 0 when empty) with its job; otherwise
// sweep.SingleConfig's.
func explainTarget(files, sets []string, sel string) (config.Config, *explainJob, error) {
	file, data := "", []byte(nil)
	if len(files) == 1 {
		b, err := os.ReadFile(files[0])
		if err != nil {
			return config.Config{}, nil, usagef("explain: %v", err)
		}
		file, data = files[0], b
		p, err := sweep.SweepPlan(file, data, sets)
		if err != nil {
			return config.Config{}, nil, usageError{err}
		}
		if p != nil {
			j, err := p.Pick(sel)
			if err != nil {
				return config.Config{}, nil, usagef("explain: %v", err)
			}
			return j.Config, &explainJob{Index: j.Index, ID: j.ID, Label: p.Label(j), Of: len(p.Jobs)}, nil
		}
	}
	if sel != "" {
		return config.Config{}, nil, usagef("explain: --job %s: the configuration has no sweep, so one job", sel)
	}
	cfg, err := sweep.SingleConfig(file, data, sets)
	if err != nil {
		return cfg, nil, usageError{err}
	}
	return cfg, nil, nil
}

// explanation is the JSON of `explain --json`: explain.Explanation's keys, then the
// warnings' messages and the job (keys fixed; tests and scripts rely on them).
type explanation struct {
	explain.Explanation
	Warnings []string    `json:"warnings"`
	Job      *explainJob `json:"job,omitempty"` // the job of a sweep SPEC explained
}
