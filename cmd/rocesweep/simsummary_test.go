package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
)

// A metric with no value (NaN) is "not reached" in the summary when messages of that kind
// started (its rank falls among the unfinished), "none" when none did, and null in the
// JSON; a drain that ran into the duration cap says so.
func TestSimSummaryNone(t *testing.T) {
	cfg := config.Default()
	cfg.Stop = "drain"
	s := &stats.Summary{SimTimeSec: cfg.Duration.Seconds(), WallSec: 1, MsgsStarted: 15, MsgsCompleted: 10, MsgsStartedLossy: 15,
		FctP50Usec: 12.5, FctP99Usec: math.NaN(), FctMaxUsec: math.NaN(), HostFctP50Usec: 13, HostFctP99Usec: math.NaN(), HostFctMaxUsec: math.NaN(),
		FctP99UsecLossless: math.NaN(), FctP99UsecLossy: math.NaN(), CompletedFracLossless: math.NaN(), CompletedFracLossy: 10.0 / 15}
	var b bytes.Buffer
	writeSimSummary(&b, &cfg, s)
	for _, want := range []string{"FCT p50 / p99 / max", "12.5 / not reached / not reached us (at host memory 13 / not reached / not reached)",
		"none / not reached us", "completed none / 66.7%", "15 started, 10 completed at the sender", "note: stop: drain reached the duration cap"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	b.Reset()
	if err := writeSimJSON(&b, s, "results/x", 7<<20, 5<<20); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Metrics   map[string]*float64 `json:"metrics"`
		Results   string              `json:"results"`
		PeakRSS   int64               `json:"peak_rss_bytes"`
		Estimated int64               `json:"estimated_peak_bytes"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Metrics["fct_p99_usec"] != nil || got.Metrics["fct_p50_usec"] == nil || *got.Metrics["fct_p50_usec"] != 12.5 ||
		got.Results != "results/x" || got.PeakRSS != 7<<20 || got.Estimated != 5<<20 || len(got.Metrics) != len(stats.MetricNames) {
		t.Errorf("JSON %s", b.String())
	}
}
