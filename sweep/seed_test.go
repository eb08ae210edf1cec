package sweep

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/model/workload"
)

// The seed rule (spec.md "Seeds and common random numbers"): a job's seed follows the
// sweep seed and the replicate only, so record settings never re-seed a job and replicate
// r of every grid point draws the same numbers.

// seedTraffic has random draws everywhere they can be: start jitter, a permutation's
// derangement, Poisson arrivals with sampled sizes, ECN marking and flowlet ties on a
// leaf-spine, NIC clock offsets and transmit jitter.
const seedTraffic = `name: seeds
seed: 11
replicates: 2
duration: 80us
report_interval: 10us
topology: {kind: leaf-spine, leaves: 2, spines: 2, hosts_per_leaf: 4}
workload:
  kind: mix
  mix:
    - {kind: incast, senders: 6, message_size: 128KiB, jitter: 2us, data_tc: 0, control_tc: 1}
    - {kind: incast, senders: 6, message_size: 128KiB, jitter: 2us, data_tc: 2, control_tc: 1}
    - {kind: permutation, message_size: 32KiB, jitter: 1us, data_tc: 2, control_tc: 1}
    - {kind: load, load: 0.5, distribution: fb-hadoop, data_tc: 2, control_tc: 1}
switch:
  EnablePFC: [1, 1, 0, 0, 0, 0, 0, 0]
  TotalSharedBufferSize: 8MB
  StaticPoolXoffThreshold: 100KB
  StaticPoolXonThreshold: 50KB
  LoadBalancingMethod: flowlet
  EnableEcn: true
nic:
  ClockTolerancePpm: 100
  TxJitter: 5ns
  IngressBufferManager.PoolAllocationVector: [0.8, 0.1, 0.1, 0, 0, 0, 0, 0]
  IngressBufferManager.PFCEnableVector: [1, 1, 0, 0, 0, 0, 0, 0]
  EgressBufferManager.PoolAllocationVector: [0.8, 0.1, 0.1, 0, 0, 0, 0, 0]
`

// modelMetrics are the summary metrics that describe the simulated network: all but the
// wall-clock ones (wall_sec, events_per_sec).
func modelMetrics(s stats.Summary) map[string]float64 {
	out := map[string]float64{}
	for i, v := range s.Values() {
		switch n := stats.MetricNames[i]; n {
		case "wall_sec", "events_per_sec":
		default:
			out[n] = v
		}
	}
	return out
}

func runJob(t *testing.T, j *Job) stats.Summary {
	t.Helper()
	res, err := fabric.Run(context.Background(), j.Config, fabric.Options{JobID: j.ID})
	if err != nil {
		t.Fatalf("job %d: %v", j.Index, err)
	}
	return res.Summary
}

func sameMetrics(a, b map[string]float64) bool {
	for k, v := range a {
		w := b[k]
		if v != w && !(math.IsNaN(v) && math.IsNaN(w)) {
			return false
		}
	}
	return len(a) == len(b)
}

// Toggling any record setting changes no summary metric of a job (and not its seed).
func TestRecordSettingsChangeNoMetric(t *testing.T) {
	t.Parallel() // no package state changed: runs beside the other parallel tests
	base := mustPlan(t, seedTraffic, "replicates=1")
	want := modelMetrics(runJob(t, base.Jobs[0]))
	t.Logf("base: %v", want)
	if want["msgs_completed"] == 0 || want["ecn_marked"]+want["drops_total"] == 0 {
		t.Fatalf("the base job exercises too little: %v", want)
	}
	netBuff := "global.EnableNetworkBufferStatsReporting=true,nic.EnableBufferStats=true"
	for _, set := range []string{
		"report_interval=2.5us", "report_interval=100us",
		"switch.ReportPerPortBufferStats=true",
		"switch.BufferStatsReportInterval=3us",
		"switch.EnableLoadBalancingStats=false", "switch.LoadBalancingStatsReportInterval=20us",
		"global.EnableNetDeviceStatLogging=false", "global.EnablePFCECNStatsLogging=false",
		"global.EnableRoceTransportStats=false",
		"global.EnableNetworkBufferStatsReporting=true", "global.NetworkBufferStatsReportingInterval=5us",
		"nic.EnableBufferStats=true",
		netBuff, netBuff + ",global.NetworkBufferStatsReportingInterval=5us",
	} {
		// A comma joins settings that take effect together (net-buff-stats needs both).
		p := mustPlan(t, seedTraffic, append([]string{"replicates=1"}, strings.Split(set, ",")...)...)
		j := p.Jobs[0]
		if j.Seed != base.Jobs[0].Seed {
			t.Errorf("--set %s: seed %d, want %d", set, j.Seed, base.Jobs[0].Seed)
		}
		if j.ID == base.Jobs[0].ID {
			t.Errorf("--set %s: same job id as the base (ids hash the whole config)", set)
		}
		if got := modelMetrics(runJob(t, j)); !sameMetrics(got, want) {
			for k := range want {
				if got[k] != want[k] {
					t.Errorf("--set %s: %s = %v, want %v", set, k, got[k], want[k])
				}
			}
		}
	}
}

// Two grid points that differ only in switch or NIC attributes draw identical workloads
// (same message list, same start times) replicate by replicate; replicates differ.
func TestGridPointsShareWorkloads(t *testing.T) {
	p := mustPlan(t, seedTraffic+`sweep:
  grid:
    switch.LossyAlpha: [0.5, 4]
    switch.StaticPoolXoffThreshold: [100KB, 300KB]
    nic.ClockTolerancePpm: [0, 100]
`)
	schedule := func(j *Job) []workload.Message {
		// 8 hosts at the default 400 Gbps host link rate.
		ms, err := workload.Generate(j.Config.Workload, 8, 400e9, j.Config.Duration, j.Config.Seed, workload.SizeCDFs)
		if err != nil {
			t.Fatal(err)
		}
		return ms
	}
	first := map[int][]workload.Message{}
	for _, j := range p.Jobs {
		ms := schedule(j)
		if f, ok := first[j.Replicate]; !ok {
			first[j.Replicate] = ms
		} else if !reflect.DeepEqual(f, ms) {
			t.Errorf("%s: workload differs from point 0's replicate %d", p.Label(j), j.Replicate)
		}
	}
	if reflect.DeepEqual(first[0], first[1]) {
		t.Error("replicates 0 and 1 drew the same workload")
	}
	// The simulation posts that schedule: the first message's start time is the same at
	// every point (and at least one message is jittered off the workload start).
	jittered := false
	for _, m := range first[0] {
		jittered = jittered || (m.App == "incast-0" && m.Start != 0)
	}
	if !jittered {
		t.Error("no incast message was jittered: the test does not exercise the jitter stream")
	}
	// And the simulations post exactly that schedule: every completed message of the
	// first and the last point (every attribute differs) has the schedule's source,
	// destination, size, class and post time.
	for _, j := range []*Job{p.Jobs[0], p.Jobs[len(p.Jobs)-2]} {
		res, err := fabric.Run(context.Background(), j.Config, fabric.Options{JobID: j.ID})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Rec.Messages) < 20 {
			t.Fatalf("%s: %d messages completed, too few to compare", p.Label(j), len(res.Rec.Messages))
		}
		sched := first[j.Replicate]
		for _, m := range res.Rec.Messages {
			w := sched[m.TransactionNumber] // transaction_number = index in the sorted schedule
			if m.PostNs != int64(w.Start/sim.Nanosecond) || m.SizeBytes != w.Size || m.DataTC != int32(w.DataTC) || m.ApplicationName != w.App {
				t.Errorf("%s: message %d posted at %d ns, %d B, TC %d, %s; schedule: %v, %d B, TC %d, %s", p.Label(j),
					m.TransactionNumber, m.PostNs, m.SizeBytes, m.DataTC, m.ApplicationName, w.Start, w.Size, w.DataTC, w.App)
			}
		}
	}
}
