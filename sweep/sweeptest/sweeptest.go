// Package sweeptest provides a fake job for tests of the runner, the sink and the
// command line: deterministic rows in every record table and a summary derived from
// the job's configuration, after a CPU-bound loop of a chosen length. Nothing in the
// shipped binary imports it.
package sweeptest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep/launch"
)

// Job returns a fake launch.JobFunc that spins for work rounds of integer mixing
// (checking ctx every 4,096 rounds), then returns rows that depend only on cfg and jobID:
// 3-7 nd_stats rows, 2 messages, 1 row in each other record table, and a summary whose
// drops_total is LossyAlpha×1000 + StaticPoolXoffThreshold/1000 + seed mod 7 and whose
// fct_p99_usec_lossless (the default objective of its specs) is 50 + 10×LossyAlpha +
// seed mod 7.
// Special cases by cfg.Name: "fail" returns an error, "panic" panics, "hang" ignores its
// work and waits for ctx.
func Job(work int) launch.JobFunc {
	return func(ctx context.Context, cfg config.Config, jobID string, emit func(stats.Batch) error) (*stats.Result, error) {
		switch cfg.Name {
		case "fail":
			return nil, errors.New("fake failure")
		case "panic":
			panic("fake panic")
		case "hang":
			<-ctx.Done()
			return nil, ctx.Err()
		}
		x := cfg.Seed | 1
		for i := 0; i < work; i++ {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if i&4095 == 0 && ctx.Err() != nil {
				return nil, ctx.Err()
			}
		}
		return Result(cfg, jobID, int64(work)+int64(x&1)), nil
	}
}

// Result builds the fake rows and summary of a job.
func Result(cfg config.Config, jobID string, events int64) *stats.Result {
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	rec := stats.NewRecorder(jobID, nil)
	b := &cfg.Switch.SharedBufferManager
	n := 3 + int(cfg.Seed%5)
	for i := 0; i < n; i++ {
		rec.NdStats = append(rec.NdStats, stats.NdStats{JobID: jobID, TimeUTC: "2026-01-01T00:00:00Z", SimTimeSec: float64(i+1) * 1e-4,
			ComponentName: fmt.Sprintf("switch_%d", i%2), NdName: "nd", ComponentType: "switch", Ifid: int64(i),
			Uldl: "DL", NodeID: 1, Subtier: stats.Subtier, TotalPacketsTx: rng.Int64N(1e6), TxRateGbps: rng.Float64() * 400})
	}
	for i := 0; i < 2; i++ {
		rec.Messages = append(rec.Messages, stats.Message{JobID: jobID, MetricName: "fct", FctUsec: rng.Float64() * 100,
			SrcNode: int64(i), DstNode: 7, SizeBytes: int64(cfg.Workload.MessageSize)})
	}
	rec.EcnPfcStats = []stats.EcnPfcStats{{JobID: jobID, PfcxoffTx: int64(b.StaticPoolXoffThreshold / 100_000)}}
	rec.RoceTransportStats = []stats.RoceTransportStats{{JobID: jobID, NumPktsSent: rng.Int64N(1000)}}
	rec.BufferStats = []stats.BufferStats{{JobID: jobID, TotalBytes: int64(b.TotalSharedBufferSize)}}
	rec.PortBufferStats = []stats.PortBufferStats{{JobID: jobID}}
	rec.LbStats = []stats.LbStats{{JobID: jobID}}
	rec.TierHop = []stats.TierHop{{JobID: jobID, Rack: 1}}
	rec.Topology = []stats.TopologyLink{{JobID: jobID, ComponentName: "switch_0", PeerComponentName: "host_0", LinkspeedGbps: 400}}
	drops := int64(b.LossyAlpha*1000) + int64(b.StaticPoolXoffThreshold)/1000 + int64(cfg.Seed%7)
	return &stats.Result{Rec: rec, Summary: stats.Summary{
		SimTimeSec: cfg.Duration.Seconds(), Events: events, DropsTotal: drops, DropsLossy: drops,
		MsgsCompleted: 2, BytesDelivered: 2 * int64(cfg.Workload.MessageSize), FctP99Usec: rng.Float64() * 100,
		MsgsCompletedLossless: 2, FctP99UsecLossless: 50 + 10*b.LossyAlpha + float64(cfg.Seed%7),
	}}
}

// RecordRows is the number of rows Result puts in each record table for cfg.
func RecordRows(cfg config.Config) map[string]int {
	return map[string]int{"nd_stats": 3 + int(cfg.Seed%5), "messages": 2, "ecn_pfc_stats": 1, "roce_transport_stats": 1,
		"buffer_stats": 1, "port_buffer_stats": 1, "lb_stats": 1, "tier_hop": 1, "topology": 1}
}

// GridSpec is the sweep spec the runner and command-line tests share: a 7-to-1 incast of
// 64 KB messages on an 8-host star over 4 LossyAlpha × 3 Xoff points, so 12 × replicates
// jobs.
func GridSpec(name string, seed, replicates int, duration string) string {
	return fmt.Sprintf(`name: %s
seed: %d
replicates: %d
duration: %s
topology: {kind: star, hosts: 8}
workload: {kind: incast, senders: 7, message_size: 64KB}
sweep:
  grid:
    switch.LossyAlpha: [0.25, 0.5, 1, 2]
    switch.StaticPoolXoffThreshold: [400KB, 700KB, 1MB]
`, name, seed, replicates, duration)
}
