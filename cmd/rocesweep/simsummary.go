package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
)

// writeSimJSON is `sim --json`: the jobs-table metrics by name, the results
// directory and the peak resident set of the process so far (scripts/bench.sh reads it;
// one key per line, so shell tools can too).
func writeSimJSON(w io.Writer, s *stats.Summary, dir string, peakRSS, estimated int64) error {
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
	}{metrics, dir, peakRSS, estimated}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// orNone formats a metric that may have no value: "none" (NaN) when the job had no
// message of that kind.
func orNone(v float64) string {
	if math.IsNaN(v) {
		return "none"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fracText formats a completed fraction as a percentage, "none" (NaN) when nothing of
// that kind started.
func fracText(v float64) string {
	if math.IsNaN(v) {
		return "none"
	}
	return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
}

// tailText formats a percentile over started messages: "not reached" (NaN with messages
// started: its rank falls among those unfinished at the end, records.md RC-24), "none"
// (NaN, nothing started).
func tailText(v float64, started int64) string {
	if math.IsNaN(v) && started > 0 {
		return "not reached"
	}
	return orNone(v)
}

// writeSimSummary is `sim`'s short human summary of its one job.
func writeSimSummary(w io.Writer, cfg *config.Config, s *stats.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "simulated\t%.6g s in %.3g s wall (%s events, %.3g M events/s)\n", s.SimTimeSec, s.WallSec, config.Commas(s.Events), s.EventsPerSec/1e6)
	fmt.Fprintf(tw, "data packets\t%s sent, %.4g M per wall second\n", config.Commas(s.DataPackets), float64(s.DataPackets)/s.WallSec/1e6)
	fmt.Fprintf(tw, "messages\t%d started, %d completed at the sender, %d at host memory; %s B delivered, goodput %.4g Gbps\n",
		s.MsgsStarted, s.MsgsCompleted, s.MsgsHostCompleted, config.Commas(s.BytesDelivered), s.GoodputGbps)
	fmt.Fprintf(tw, "FCT p50 / p99 / max\t%s / %s / %s us (at host memory %s / %s / %s)\n", tailText(s.FctP50Usec, s.MsgsStarted), tailText(s.FctP99Usec, s.MsgsStarted), tailText(s.FctMaxUsec, s.MsgsStarted),
		tailText(s.HostFctP50Usec, s.MsgsStarted), tailText(s.HostFctP99Usec, s.MsgsStarted), tailText(s.HostFctMaxUsec, s.MsgsStarted))
	fmt.Fprintf(tw, "FCT p99 lossless / lossy\t%s / %s us (slowdown p99 %s / %s; completed %s / %s)\n", tailText(s.FctP99UsecLossless, s.MsgsStartedLossless), tailText(s.FctP99UsecLossy, s.MsgsStartedLossy),
		tailText(s.SlowdownP99Lossless, s.MsgsStartedLossless), tailText(s.SlowdownP99Lossy, s.MsgsStartedLossy), fracText(s.CompletedFracLossless), fracText(s.CompletedFracLossy))
	fmt.Fprintf(tw, "drops\t%d total: %d lossless, %d lossy (switch), %d NIC rx\n", s.DropsTotal, s.DropsLossless, s.DropsLossy, s.NicRxDrops)
	fmt.Fprintf(tw, "PFC\t%d pause frames sent, %.4g us paused\n", s.PfcPauseTx, s.PfcPausedUsec)
	fmt.Fprintf(tw, "ECN / DCQCN\t%d marked, %d CNPs, %d retransmission episodes\n", s.EcnMarked, s.CnpSent, s.Retransmits)
	fmt.Fprintf(tw, "deepest\tegress queue %s B, ingress port %s B, pool %s B\n", config.Commas(s.MaxEgressQueueBytes), config.Commas(s.MaxIngressPortBytes), config.Commas(s.MaxPoolBytes))
	tw.Flush()
	if cfg.Stop == "drain" && s.SimTimeSec >= cfg.Duration.Seconds() {
		fmt.Fprintf(w, "note: stop: drain reached the duration cap %v before every message completed\n", cfg.Duration)
	}
}
