package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"
)

// TestSimJSON: `sim --json` on the 8-to-1 1 MiB incast of configs/bench reports the
// metrics by their jobs-table names: 8 MiB in 4 KiB packets is 2,048 data packets, all
// delivered (drained), and on Linux the process's peak RSS.
func TestSimJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var out, errb bytes.Buffer
	code := mainWithArgs(context.Background(), []string{"sim", "../../configs/bench/incast-8to1-1MiB.yaml", "-o", dir, "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got struct {
		Metrics      map[string]float64 `json:"metrics"`
		Results      string             `json:"results"`
		PeakRSSBytes int64              `json:"peak_rss_bytes"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v in %s", err, out.String())
	}
	m := got.Metrics
	if m["data_packets"] != 2048 || m["bytes_delivered"] != 8<<20 || m["msgs_completed"] != 8 || m["drops_total"] != 0 {
		t.Errorf("data_packets %v, bytes_delivered %v, msgs_completed %v, drops_total %v; want 2048, %d, 8, 0",
			m["data_packets"], m["bytes_delivered"], m["msgs_completed"], m["drops_total"], 8<<20)
	}
	if got.Results != dir {
		t.Errorf("results %q, want %q", got.Results, dir)
	}
	if runtime.GOOS == "linux" && got.PeakRSSBytes <= 0 {
		t.Errorf("peak_rss_bytes %d on Linux, want > 0", got.PeakRSSBytes)
	}
}
