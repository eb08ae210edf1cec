package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/rocesweep/rocesweep/internal/memory"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/explain"
	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sink"
	"github.com/rocesweep/rocesweep/sweep"
)

// cmdSim runs one job (a spec without axes, or the built-in defaults: a star of 16 hosts,
// an incast of 15 senders × 1 MiB, 1 ms) into a results directory through the same
// runner and sink as `run`, then prints a short human summary.
func cmdSim(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	defer memory.OneJob()() // one job: a short process, collected rarely (internal/memory)
	fl := pflag.NewFlagSet("sim", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	out := fl.StringP("output", "o", "", "results directory (default results/<name>)")
	sets := fl.StringArray("set", nil, "override a spec key: path=value (repeatable)")
	format := addFormatFlag(fl)
	cpuProfile := fl.String("cpuprofile", "", "write a pprof CPU profile of the run to this file")
	memProfile := fl.String("memprofile", "", "write a pprof allocation profile (all allocations of the run) to this file")
	asJSON := fl.Bool("json", false, "print the summary metrics, the results directory and the process's peak RSS as JSON")
	if err := fl.Parse(args); err != nil {
		return flagError("sim", fl, err)
	}
	if fl.NArg() > 1 {
		return usagef("sim: one SPEC at most, got %d arguments", fl.NArg())
	}
	file, data := sweep.DefaultsFile, []byte{}
	if fl.NArg() == 1 {
		file = fl.Arg(0)
		b, err := os.ReadFile(file)
		if err != nil {
			return usagef("sim: %v", err)
		}
		data = b
	}
	if err := checkFormat("sim", *format); err != nil {
		return err
	}
	plan, err := sweep.SimPlan(file, data, *sets)
	if err != nil {
		return usageError{err}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", plan.Jobs[0].Config.Name)
	}
	for _, w := range explain.Messages(explain.Warnings(&plan.Jobs[0].Config)) {
		fmt.Fprintf(stderr, "rocesweep: warning: %s\n", w)
	}
	rep, err := sweep.Sim(ctx, plan, sweep.Simulate, sweep.SimOptions{Dir: dir, Format: sink.Format(*format), CommandLine: append([]string{"rocesweep", "sim"}, args...),
		Profile: func() (func() error, error) { return startProfiles(*cpuProfile, *memProfile) }})
	if err != nil {
		var se *sweep.SetupError
		switch {
		case errors.As(err, &se):
			return usageError{err}
		case rep != nil && rep.Stopped == "interrupted":
			// sim has no --resume (the runner's message suggests it): one job, run again.
			return exitError{130, fmt.Errorf("sim: interrupted; nothing was written to %s (earlier results there are unchanged): run the command again", dir)}
		}
		return err
	}
	if len(rep.Errors) > 0 {
		return fmt.Errorf("sim: %s", rep.Errors[0])
	}
	if *asJSON {
		for _, s := range rep.Summaries {
			est, _ := fabric.EstimateJob(&plan.Jobs[0].Config)
			return printSummaryJSON(stdout, s, dir, est.MemBytes)
		}
	}
	for _, s := range rep.Summaries {
		printSummary(stdout, &plan.Jobs[0].Config, s)
	}
	fmt.Fprintf(stdout, "results: %s\n", dir)
	return nil
}

// printSummaryJSON is `sim --json`: the jobs-table metrics by name, the results
// directory and the peak resident set of this process so far (scripts/bench.sh reads it;
// one key per line, so shell tools can too).
func printSummaryJSON(w io.Writer, s *stats.Summary, dir string, estimated int64) error {
	metrics := map[string]*float64{} // NaN (no traffic of that kind) is null, as in jobs
	for i, v := range s.Values() {
		if !math.IsNaN(v) {
			metrics[stats.MetricNames[i]] = &v
		} else {
			metrics[stats.MetricNames[i]] = nil
		}
	}
	b, err := json.MarshalIndent(struct {
		Metrics      map[string]*float64 `json:"metrics"`
		Results      string              `json:"results"`
		PeakRSSBytes int64               `json:"peak_rss_bytes"`
		// EstimatedBytes is the planner's estimate of the job's peak memory
		// (fabric.EstimateJob); scripts/mem-estimate.sh compares the two.
		EstimatedBytes int64 `json:"estimated_peak_bytes"`
	}{metrics, dir, peakRSS(), estimated}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// orNone formats a metric that may have no value: "none" when the job completed no
// message of that kind (NaN).
func orNone(v float64) string {
	if math.IsNaN(v) {
		return "none"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// printSummary is the short human summary of one job.
func printSummary(w io.Writer, cfg *config.Config, s *stats.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "simulated\t%.6g s in %.3g s wall (%s events, %.3g M events/s)\n", s.SimTimeSec, s.WallSec, config.Commas(s.Events), s.EventsPerSec/1e6)
	fmt.Fprintf(tw, "data packets\t%s sent, %.4g M per wall second\n", config.Commas(s.DataPackets), float64(s.DataPackets)/s.WallSec/1e6)
	fmt.Fprintf(tw, "messages completed\t%d, %s B delivered, goodput %.4g Gbps\n", s.MsgsCompleted, config.Commas(s.BytesDelivered), s.GoodputGbps)
	fmt.Fprintf(tw, "FCT p50 / p99 / max\t%s / %s / %s us\n", orNone(s.FctP50Usec), orNone(s.FctP99Usec), orNone(s.FctMaxUsec))
	fmt.Fprintf(tw, "FCT p99 lossless / lossy\t%s / %s us (slowdown p99 %s / %s)\n", orNone(s.FctP99UsecLossless), orNone(s.FctP99UsecLossy),
		orNone(s.SlowdownP99Lossless), orNone(s.SlowdownP99Lossy))
	fmt.Fprintf(tw, "drops\t%d total: %d lossless, %d lossy (switch), %d NIC rx\n", s.DropsTotal, s.DropsLossless, s.DropsLossy, s.NicRxDrops)
	fmt.Fprintf(tw, "PFC\t%d pause frames sent, %.4g us paused\n", s.PfcPauseTx, s.PfcPausedUsec)
	fmt.Fprintf(tw, "ECN / DCQCN\t%d marked, %d CNPs, %d retransmission episodes\n", s.EcnMarked, s.CnpSent, s.Retransmits)
	fmt.Fprintf(tw, "deepest\tegress queue %s B, ingress port %s B, pool %s B\n", config.Commas(s.MaxEgressQueueBytes), config.Commas(s.MaxIngressPortBytes), config.Commas(s.MaxPoolBytes))
	tw.Flush()
	if cfg.Stop == "drain" && s.SimTimeSec >= cfg.Duration.Seconds() {
		fmt.Fprintf(w, "note: stop: drain reached the duration cap %v before every message completed\n", cfg.Duration)
	}
}
