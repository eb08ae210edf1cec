package fabric

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
)

func fixedClock() time.Time { return time.Date(2026, 1, 13, 19, 11, 38, 0, time.UTC) }

// job builds a config from the defaults plus --set style overrides.
func job(t testing.TB, sets ...string) config.Config {
	t.Helper()
	cfg := config.Default()
	for i := 0; i+1 < len(sets); i += 2 {
		if err := cfg.Set(sets[i], sets[i+1]); err != nil {
			t.Fatalf("set %s=%s: %v", sets[i], sets[i+1], err)
		}
	}
	return cfg
}

// run builds, runs and finishes a job and checks the fabric-wide conservation ledgers.
func run(t testing.TB, cfg config.Config) (*Fabric, *stats.Result) {
	t.Helper()
	return runWith(t, cfg, Options{JobID: "test", Clock: fixedClock})
}

// runWith is run with options of its own.
func runWith(t testing.TB, cfg config.Config, o Options) (*Fabric, *stats.Result) {
	t.Helper()
	f, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Loop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.CheckConservation(); err != nil {
		t.Fatalf("conservation: %v", err)
	}
	return f, f.Finish()
}

func TestSmokeDefault(t *testing.T) {
	_, res := run(t, config.Default())
	s := res.Summary
	if s.MsgsCompleted != 15 || s.DropsTotal != 0 {
		t.Fatalf("default incast: %d messages completed, %d drops; want 15, 0", s.MsgsCompleted, s.DropsTotal)
	}
}

// TestConservationEverywhere runs every topology with every workload kind and checks the
// fabric ledgers (CheckConservation in run) and, when drained, that every completed
// message delivered exactly its bytes once.
func TestConservationEverywhere(t *testing.T) {
	topos := map[string][]string{
		"star":       {"topology.kind", "star", "topology.hosts", "8"},
		"leaf-spine": {"topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2", "topology.hosts_per_leaf", "4", "topology.uplinks_per_spine", "2"},
		"fat-tree":   {"topology.kind", "fat-tree", "topology.k", "4"},
	}
	loads := map[string][]string{
		"incast":      {"workload.kind", "incast", "workload.senders", "5", "workload.message_size", "200KB"},
		"permutation": {"workload.kind", "permutation", "workload.message_size", "300KB", "workload.qps_per_pair", "2", "workload.messages", "2"},
		"all-to-all":  {"workload.kind", "all-to-all", "workload.message_size", "20KB"},
		"load":        {"workload.kind", "load", "workload.load", "0.3", "workload.distribution", "websearch"},
		"lossy":       {"workload.kind", "incast", "workload.senders", "6", "workload.message_size", "1MiB", "switch.EnablePFC", "[0, 1, 0, 0, 0, 0, 0, 0]", "switch.TotalSharedBufferSize", "5MB", "switch.HeadRoomPerPortLimit", "100KB"},
	}
	for tn, ts := range topos {
		for wn, ws := range loads {
			t.Run(tn+"/"+wn, func(t *testing.T) {
				sets := append(append([]string{"duration", "400us", "stop", "drain"}, ts...), ws...)
				if wn == "load" {
					sets = append(sets, "stop", "duration", "duration", "200us")
				}
				f, res := run(t, job(t, sets...))
				if f.stopReason == "drained" {
					if err := f.CheckDrained(); err != nil {
						t.Errorf("drained: %v", err)
					}
				} else if wn != "load" && wn != "lossy" {
					t.Errorf("stopped by %s, not drained", f.stopReason)
				}
				if res.Summary.MsgsCompleted == 0 && wn != "lossy" {
					t.Errorf("no message completed")
				}
			})
		}
	}
}

// TestLosslessIncastPauses: 15 senders into one host on a star, TC0 lossless, Xoff small
// enough that the three sizing conditions hold: no drop anywhere, and the switch pauses
// the ports facing the senders.
func TestLosslessIncastPauses(t *testing.T) {
	cfg := job(t, "switch.StaticPoolXoffThreshold", "100KB",
		"switch.StaticPoolXonThreshold", "50KB", "stop", "drain", "duration", "5ms")
	_, res := run(t, cfg)
	s := res.Summary
	if s.DropsTotal != 0 {
		t.Fatalf("lossless incast dropped %d packets (lossless %d, lossy %d, nic %d)", s.DropsTotal, s.DropsLossless, s.DropsLossy, s.NicRxDrops)
	}
	if s.MsgsCompleted != 15 {
		t.Fatalf("%d of 15 messages completed", s.MsgsCompleted)
	}
	pausedPorts := map[int64]bool{}
	for _, r := range res.Rec.EcnPfcStats {
		if r.ComponentType == "Switch" && r.PfcxoffTx > 0 && r.Uldl == "dl" {
			pausedPorts[r.Ifid] = true
		}
	}
	if len(pausedPorts) < 15 {
		t.Errorf("switch sent pauses on %d ports facing senders, want all 15", len(pausedPorts))
	}
}

// TestLossyIncastDrops: the same incast with TC0 lossy at the switch drops at egress and
// the senders retransmit.
func TestLossyIncastDrops(t *testing.T) {
	cfg := job(t, "switch.TotalSharedBufferSize", "8MB", "switch.EnablePFC", "[0, 1, 0, 0, 0, 0, 0, 0]", "duration", "3ms")
	_, res := run(t, cfg)
	s := res.Summary
	if s.DropsLossy == 0 || s.Retransmits == 0 {
		t.Fatalf("lossy incast: %d lossy drops, %d retransmits; want both > 0", s.DropsLossy, s.Retransmits)
	}
	if s.DropsLossless != 0 {
		t.Fatalf("%d lossless drops with no lossless data", s.DropsLossless)
	}
}

// TestLossyAlphaTrend sweeps LossyAlpha for a lossy incast (TC2) with lossy background
// traffic (TC3): a larger alpha lets a busy queue take more of the pool, so drops fall and
// the deepest egress queue grows.
func TestLossyAlphaTrend(t *testing.T) {
	alphas := []string{"0.125", "0.25", "0.5", "1", "2", "4", "8"}
	var drops, maxq []int64
	for _, a := range alphas {
		cfg := job(t, "topology.hosts", "9", "switch.TotalSharedBufferSize", "6MB", "switch.HeadRoomPerPortLimit", "100KB",
			"switch.LossyAlpha", a, "duration", "20ms", "stop", "drain", "nic.RetransmitTimeout", "200us",
			"nic.EgressBufferManager.PoolAllocationVector", "[0.4, 0.1, 0.25, 0.25, 0, 0, 0, 0]",
			"nic.IngressBufferManager.PoolAllocationVector", "[0.4, 0.1, 0.25, 0.25, 0, 0, 0, 0]")
		cfg.Workload = config.Workload{Kind: "mix", Verb: "write", QPsPerPair: 1, Mix: []config.Workload{
			{Kind: "incast", Senders: 7, Receiver: 8, MessageSize: 1 << 20, Messages: 1, DataTC: 2, ControlTC: 1, QPsPerPair: 1, Verb: "write"},
			{Kind: "permutation", MessageSize: 512 << 10, Messages: 2, DataTC: 3, ControlTC: 1, QPsPerPair: 1, Verb: "write"},
		}}
		_, res := run(t, cfg)
		drops = append(drops, res.Summary.DropsLossy)
		maxq = append(maxq, res.Summary.MaxEgressQueueBytes)
	}
	t.Logf("alpha %v: drops_lossy %v, max_egress_queue_bytes %v", alphas, drops, maxq)
	for i := 1; i < len(alphas); i++ {
		if drops[i] > drops[i-1] {
			t.Errorf("drops_lossy rose from %d to %d as LossyAlpha went %s -> %s", drops[i-1], drops[i], alphas[i-1], alphas[i])
		}
		if maxq[i] < maxq[i-1] {
			t.Errorf("max_egress_queue_bytes fell from %d to %d as LossyAlpha went %s -> %s", maxq[i-1], maxq[i], alphas[i-1], alphas[i])
		}
	}
	if drops[0] == 0 || drops[0] == drops[len(drops)-1] {
		t.Errorf("no drop trend: %v", drops)
	}
}

// TestLeafSpineIdealFCT: a staggered permutation at low load on a 2-leaf, 2-spine fabric
// completes within 5% of the ideal FCT, and ECMP spreads traffic over both spines.
func TestLeafSpineIdealFCT(t *testing.T) {
	cfg := job(t, "topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2",
		"topology.hosts_per_leaf", "8", "topology.uplinks_per_spine", "2",
		"workload.kind", "permutation", "workload.message_size", "64KB", "workload.messages", "1",
		"workload.jitter", "200us", "stop", "drain", "duration", "2ms")
	f, res := run(t, cfg)
	worst := 0.0
	for _, m := range res.Rec.Messages {
		worst = max(worst, m.Slowdown)

	}
	if worst > 1.05 || worst < 0.999 {
		t.Errorf("worst FCT / ideal = %.4f, want within [1, 1.05]", worst)
	}
	for i, sw := range f.switches {
		if f.g.Nodes[f.g.Switches[i]].Tier == 0 && sw.Counters().Forwarded == 0 {
			t.Errorf("spine %s forwarded nothing", f.g.Nodes[f.g.Switches[i]].Name)
		}
	}
}

// TestDeterminism: the same configuration and seed give identical summaries (wall-clock
// fields aside) and identical rows.
func TestDeterminism(t *testing.T) {
	cfg := job(t, "topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2",
		"topology.hosts_per_leaf", "4", "workload.kind", "load", "workload.load", "0.5", "duration", "300us")
	_, a := run(t, cfg)
	_, b := run(t, cfg)
	a.Summary.WallSec, b.Summary.WallSec, a.Summary.EventsPerSec, b.Summary.EventsPerSec = 0, 0, 0, 0
	if !a.Summary.Same(b.Summary) {
		t.Fatalf("summaries differ:\n%+v\n%+v", a.Summary, b.Summary)
	}
	ra, rb := reflect.ValueOf(*a.Rec), reflect.ValueOf(*b.Rec)
	for i := 0; i < ra.NumField(); i++ {
		if ra.Type().Field(i).Type.Kind() == reflect.Slice && !reflect.DeepEqual(ra.Field(i).Interface(), rb.Field(i).Interface()) {
			t.Errorf("table %s differs between two runs of the same job", ra.Type().Field(i).Name)
		}
	}
	cfg.Seed = 2
	_, c := run(t, cfg)
	if c.Summary.Events == a.Summary.Events && c.Summary.MsgsCompleted == a.Summary.MsgsCompleted {
		t.Errorf("seed 2 gave the same run as seed 1 (%d events)", c.Summary.Events)
	}
}

var _ = fmt.Sprint

// TestStalledEgressPool: a data-class egress pool smaller than one packet stops every QP
// (nic.md §4); the job fails with that reason instead of ending quietly.
func TestStalledEgressPool(t *testing.T) {
	cfg := job(t, "nic.EgressBufferManager.TotalBufferSize", "4KB", "duration", "100us")
	_, err := Run(context.Background(), cfg, Options{JobID: "stall", Clock: fixedClock})
	if err == nil || !strings.Contains(err.Error(), "pool") {
		t.Fatalf("Run = %v, want an error naming the egress pool", err)
	}
	t.Log(err)
}

// TestNoControlPoolRunsToDuration: a control class without a NIC egress pool is no
// failure (nic.md §6): the receivers send no ACK or NAK, the job runs to its duration
// and returns every record, so the user sees why nothing completed. The default incast
// (15 senders × 1 MiB into host 15) with control_tc 3, which the default vector gives no
// pool, for 300 us: no message completes, no NIC sends an ACK, the incast's data still
// arrives (the receiver writes payload to its host), and the rows run to 300 us.
func TestNoControlPoolRunsToDuration(t *testing.T) {
	cfg := job(t, "workload.control_tc", "3", "duration", "300us", "report_interval", "100us")
	res, err := Run(context.Background(), cfg, Options{JobID: "noctrl", Clock: fixedClock})
	if err != nil {
		t.Fatalf("Run = %v, want the job to run to its duration", err)
	}
	s := res.Summary
	if s.MsgsCompleted != 0 || s.SimTimeSec != 300e-6 || s.BytesDelivered == 0 {
		t.Errorf("%d messages completed, sim_time_sec %g, %d B delivered; want 0, 0.0003, > 0", s.MsgsCompleted, s.SimTimeSec, s.BytesDelivered)
	}
	var rows, nics int
	for _, r := range res.Rec.RoceTransportStats {
		if r.SimTimeSec == 300e-6 {
			nics++
			if r.NumAcksSent != 0 || r.NumNacksSent != 0 || r.NumAcksRecvd != 0 {
				t.Errorf("%s: acks sent %d, nacks sent %d, acks received %d; want 0", r.ComponentName, r.NumAcksSent, r.NumNacksSent, r.NumAcksRecvd)
			}
		}
		rows++
	}
	if nics != 16 || rows != 3*16 || len(res.Rec.NdStats) == 0 {
		t.Errorf("%d roce-transport-stats rows (%d at 300 us), %d nd-stats rows; want 48 (16), some", rows, nics, len(res.Rec.NdStats))
	}
}

// BenchmarkLeafSpinePermutation is the first acceptance job of the fabric: a 2-leaf, 2-spine,
// 16-host permutation of 1 MiB messages, drained.
func BenchmarkLeafSpinePermutation(b *testing.B) {
	cfg := job(b, "topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2",
		"topology.hosts_per_leaf", "8", "workload.kind", "permutation", "workload.message_size", "1MiB",
		"stop", "drain", "duration", "10ms")
	b.ReportAllocs()
	var events uint64
	for i := 0; i < b.N; i++ {
		f, err := New(cfg, Options{JobID: "bench", Clock: fixedClock})
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Loop(context.Background()); err != nil {
			b.Fatal(err)
		}
		events += f.eng.Fired()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// TestPartialLastRowRates: a job that ends between report instants gets a last, shorter
// row whose rates are over that shorter span: the switch port feeding an incast receiver
// is busy throughout, so every row, the partial one included, shows ~100% utilisation.
func TestPartialLastRowRates(t *testing.T) {
	cfg := job(t, "report_interval", "200us", "duration", "300us")
	_, res := run(t, cfg)
	var rows []stats.NdStats
	for _, r := range res.Rec.NdStats {
		if r.ComponentType == "Switch" && r.Ifid == 15 { // toward host 15, the receiver
			rows = append(rows, r)
		}
	}
	if len(rows) != 2 || rows[1].SimTimeSec != 300e-6 {
		t.Fatalf("switch port 15 rows: %+v", rows)
	}
	for _, r := range rows {
		if r.TxLinkPercentUtil < 95 || r.TxLinkPercentUtil > 100.001 {
			t.Errorf("row at %g s: tx utilisation %.3f%%, want ~100%%", r.SimTimeSec, r.TxLinkPercentUtil)
		}
	}
}

// TestPortBufferStats: with ReportPerPortBufferStats the switch writes per-port views
// (records.md §6.1) and the deepest egressQueue sample of any port is the job's
// max_egress_queue_bytes; without it, no row and no per-port sampler exists.
func TestPortBufferStats(t *testing.T) {
	for _, on := range []bool{false, true} {
		cfg := job(t, "switch.ReportPerPortBufferStats", fmt.Sprint(on), "duration", "200us")
		_, res := run(t, cfg)
		rows := res.Rec.PortBufferStats
		if !on {
			if len(rows) != 0 {
				t.Fatalf("%d port-buffer-stats rows without ReportPerPortBufferStats", len(rows))
			}
			continue
		}
		var maxEg int64
		views := map[string]bool{}
		for _, r := range rows {
			views[r.BuffID] = true
			if r.BuffID == "egressQueue" {
				maxEg = max(maxEg, r.IvlMaxBytes)
			}
		}
		if !views["egressQueue"] || !views["ingressUsage"] || !views["hdrm"] {
			t.Fatalf("port-buffer-stats views %v, want egressQueue, ingressUsage and hdrm", views)
		}
		if maxEg != res.Summary.MaxEgressQueueBytes || maxEg == 0 {
			t.Fatalf("deepest per-port egressQueue sample %d B, summary max_egress_queue_bytes %d B: want equal and > 0", maxEg, res.Summary.MaxEgressQueueBytes)
		}
	}
}
