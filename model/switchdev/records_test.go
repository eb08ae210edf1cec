package switchdev

import (
	"math"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestRecords: records.md §3 test vector (800 Gbps, 1 ms interval, 73,062 B sent, row at
// 3 ms) sent as 9 frames of 8,118 B a microsecond apart (so none queues behind another),
// an ecn-pfc-stats row for a received pause, buffer-stats views and lb rows.
func TestRecords(t *testing.T) {
	cfg := config.DefaultSwitch()
	f := newFab(t)
	sw := f.addSwitch(&cfg, 0, 2, 800e9, delay, routeAll(1))
	sw.id = Identity{Name: "FabricSwitch-0", NodeID: 0, Tier: 1}
	rec := stats.NewRecorder("job", func() time.Time { return time.Date(2026, 1, 13, 19, 11, 38, 0, time.UTC) })

	f.at(0, 0, 0, f.pfc(0, pkt.PauseQuanta)) // port 0 receives a pause for TC0
	for k := 0; k < 9; k++ {
		f.at(sim.Time(k)*sim.Microsecond, 0, 0, f.data(2, 8_118-18, 0, 1, 1))
	}
	f.run(3 * sim.Millisecond)
	sw.ReportND(3*sim.Millisecond, rec)
	sw.ReportBuffer(3*sim.Millisecond, rec)
	sw.ReportLB(3*sim.Millisecond, rec)

	if len(rec.NdStats) != 2 {
		t.Fatalf("%d nd-stats rows, want 2 (every port)", len(rec.NdStats))
	}
	r := rec.NdStats[1]
	if r.TimeUTC != "2026-01-13T19:11:38Z" || r.SimTimeSec != 0.003 || r.Ifid != 1 || r.Uldl != "dl" || r.Tier != 1 || r.Subtier != 4294967295 ||
		r.ComponentType != "Switch" || r.NdName != "switch::EthNetDevice" {
		t.Errorf("identity %+v", r)
	}
	if !near(r.TotalBytesTxGB, 7.3062e-05) || !near(r.IntervalBytesTxMB, 0.073062) || !near(r.TxRateGbps, 0.584496) || !near(r.TxLinkPercentUtil, 0.073062) || r.TotalPacketsTx != 9 {
		t.Errorf("tx columns %+v", r)
	}
	if rx := rec.NdStats[0]; rx.TotalPacketsRx != 10 || rx.TotalBytesRxGB*1e9 != 73_062+84 {
		t.Errorf("port 0 rx %d frames %.0f B, want 10 frames 73,146 B (PFC counted, RC-9)", rx.TotalPacketsRx, rx.TotalBytesRxGB*1e9)
	}
	// ecn-pfc-stats: only port 0 / TC0 has a non-zero counter.
	if len(rec.EcnPfcStats) != 1 {
		t.Fatalf("%d ecn-pfc rows, want 1: %+v", len(rec.EcnPfcStats), rec.EcnPfcStats)
	}
	e := rec.EcnPfcStats[0]
	paused := sim.PauseTime(pkt.PauseQuanta, 800e9, delay).Micros()
	if e.Ifid != 0 || e.Priority != 0 || e.PfcxoffRx != 1 || !near(e.PfcTimePausedUsec, paused) || !near(e.IntervalTotalTimeXoffUsec, paused) ||
		!near(e.IntervalMaxTimeXoffUsec, paused) || !near(e.PercentXon, 100*(1-paused/3000)) {
		t.Errorf("ecn-pfc row %+v (paused %v us)", e, paused)
	}
	// buffer-stats: pools 0 and 1 × (egressQueue dl, ingressUsage dl, sharedBuffer).
	if len(rec.BufferStats) != 6 {
		t.Fatalf("%d buffer rows, want 6", len(rec.BufferStats))
	}
	eg := rec.BufferStats[0]
	// Samples: the interval's first (0 B), then each frame's admission (8,100 B) and
	// departure (0 B): 19 samples, 9 of 8,100 B.
	if eg.BuffID != "egressQueue" || eg.Uldl != "dl" || eg.PoolNum != 0 || eg.TotalBytes != 9*8_100 || eg.IvlCount != 19 || eg.IvlMaxBytes != 8_100 ||
		eg.BufferLimit != sw.buf.PoolSize[0] || !near(eg.IvlMeanBytes, 9*8_100/19.0) {
		t.Errorf("egressQueue row %+v", eg)
	}
	if sb := rec.BufferStats[2]; sb.BuffID != "sharedBuffer" || sb.Uldl != "-" {
		t.Errorf("sharedBuffer row %+v", sb)
	}
	if len(rec.LbStats) != 0 {
		t.Errorf("lb rows without sets: %d", len(rec.LbStats))
	}
	// Next interval: carried-over sample only.
	sw.ReportBuffer(4*sim.Millisecond, rec)
	if r := rec.BufferStats[6]; r.IvlCount != 1 || r.IvlMaxBytes != 0 {
		t.Errorf("second interval %+v", r)
	}
	f.checkConservation()
}

func TestLBRecords(t *testing.T) {
	cfg := config.DefaultSwitch()
	f := newFab(t)
	members := []int16{1, 2}
	sw := f.addSwitch(&cfg, 3, 3, rate400, delay, func(int32) []int16 { return members })
	for k := 0; k < 100; k++ {
		f.at(sim.Microsecond+sim.Time(k)*ser4000, 0, 0, f.data(0, 4000, 0, int32(k%7), uint16(k)))
	}
	f.run(sim.Never)
	rec := stats.NewRecorder("job", nil)
	sw.ReportLB(sim.Millisecond, rec)
	if len(rec.LbStats) != 2 {
		t.Fatalf("%d lb rows, want 2", len(rec.LbStats))
	}
	var pk int64
	var share float64
	for _, r := range rec.LbStats {
		if r.EcmpGroupIfids != "1;2" || r.GroupSize != 2 || r.GroupFormedNs != 1000 || r.FlowTableSlots != 0 || r.IvlBytes != r.Bytes {
			t.Errorf("row %+v", r)
		}
		pk += r.Packets
		share += r.IvlShare
	}
	if pk != 100 || !near(share, 1) {
		t.Errorf("packets %d share %v, want 100 and 1", pk, share)
	}
	sw.ReportLB(2*sim.Millisecond, rec)
	if r := rec.LbStats[2]; r.IvlBytes != 0 || r.IvlShare != 0 || r.Bytes == 0 {
		t.Errorf("second row %+v", r)
	}
	f.checkConservation()
}
