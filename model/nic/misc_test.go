package nic

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// TestEgressPoolTooSmall: a data-TC egress pool below MSS + 58 blocks generation for good
// (§4); the NIC reports it through Stalled instead of hanging silently.
func TestEgressPoolTooSmall(t *testing.T) {
	a, b := defaultCfgs()
	a.NetworkInterface.EgressBufferManager.PoolAllocationVector = config.Vec8{0.01, 0.1} // 2,560 B
	pr := newPair(t, &a, &b)
	if err := pr.nics[0].Stalled(); err != nil {
		t.Fatalf("stalled before any traffic: %v", err)
	}
	pr.post(0, 0, 1<<20, 1)
	pr.run(sim.Second)
	err := pr.nics[0].Stalled()
	if err == nil || len(pr.done) != 0 {
		t.Fatalf("Stalled() = %v, completions %d", err, len(pr.done))
	}
	for _, s := range []string{"Host-A", "4154 B", "2560 B", "data TC 0", "MSS + 58"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
	if pr.eng.Pending() != 0 {
		t.Errorf("events still pending: %d", pr.eng.Pending())
	}
	// A 0 B message fits (58 B) but waits behind the blocked QP: head-of-line (§3).
	t.Log(err)
}

// scenario runs a mixed job: two QPs each way, a lost packet, CE marks every 40th packet,
// the receiver PCIe-bound, and returns both NICs' counters, the completions, the switch
// drops and the pair (drained).
func scenario(t testing.TB) (*pair, [2]Counters) {
	a, b := defaultCfgs()
	b.HostInterface.NICSide.PhysicalLayer.LaneBps = 7.88e9
	pr := newPair(t, &a, &b)
	lost := false
	pr.sw = func(from int, h pkt.Handle, p *pkt.Packet) bool {
		if p.Type == pkt.Data && p.PSN%40 == 3 && p.ECN == pkt.ECT0 {
			p.ECN = pkt.CE
		}
		if from == 0 && p.Type == pkt.Data && p.PSN == 700 && !lost {
			lost = true
			return false
		}
		return true
	}
	for q := int32(0); q < 2; q++ {
		for m := int64(0); m < 3; m++ {
			pr.post(0, q, 3<<20+m*1000, int64(q)*10+m)
		}
		pr.post(1, q, 2<<20, 100+int64(q))
	}
	// Conservation at every 5 us while running: frames sent = received + dropped + on the
	// link; payload accepted in order = written to host + still crossing PCIe.
	pr.every(5*us, 4*sim.Millisecond, func() {
		for i := 0; i < 2; i++ {
			s, r := pr.nics[i].Counters(), pr.nics[1-i].Counters()
			fl, _ := pr.links[i].InFlight()
			if s.TxFrames != r.RxFrames+pr.dropped[i]+int64(fl) {
				t.Fatalf("t=%v nic %d: tx %d != rx %d + dropped %d + in flight %d", pr.eng.Now(), i, s.TxFrames, r.RxFrames, pr.dropped[i], fl)
			}
			if r.PayloadWritten < r.PayloadDelivered {
				t.Fatalf("written %d < delivered %d", r.PayloadWritten, r.PayloadDelivered)
			}
		}
	})
	pr.run(sim.Second)
	return pr, [2]Counters{pr.nics[0].Counters(), pr.nics[1].Counters()}
}

// TestConservationAndDeterminism: after the run drains, every posted byte was delivered
// exactly once, no packet or buffer byte is left, and a second run is identical.
func TestConservationAndDeterminism(t *testing.T) {
	pr, c := scenario(t)
	var posted [2]int64
	for _, d := range pr.done {
		posted[d.Src] += d.Size
	}
	if len(pr.done) != 8 {
		t.Fatalf("completions %d, want 8", len(pr.done))
	}
	for i := 0; i < 2; i++ {
		r := c[1-i]
		if r.PayloadDelivered != posted[i] || r.PayloadWritten != posted[i] || pr.recv[1-i] != posted[i] {
			t.Errorf("nic %d: posted %d, peer delivered %d written %d callback %d", i, posted[i], r.PayloadDelivered, r.PayloadWritten, pr.recv[1-i])
		}
		if c[i].BufferedBytes != 0 {
			t.Errorf("nic %d: %d bytes left in pools", i, c[i].BufferedBytes)
		}
		if c[i].TxFrames != c[1-i].RxFrames+pr.dropped[i] {
			t.Errorf("nic %d: frames tx %d != peer rx %d + dropped %d", i, c[i].TxFrames, c[1-i].RxFrames, pr.dropped[i])
		}
		// Data frames received = in order + duplicates + after_nak (+ admission drops).
		if r.Roce.WritesRecvd+r.RxDrops != c[i].DataFramesSent-pr.dropped[i] {
			t.Errorf("nic %d: data sent %d - dropped %d != peer writes_recvd %d + rx_drops %d", i, c[i].DataFramesSent, pr.dropped[i], r.Roce.WritesRecvd, r.RxDrops)
		}
		if c[i].Roce.WqeCompleted != c[i].Roce.WqeCreated {
			t.Errorf("nic %d: wqe %d created, %d completed", i, c[i].Roce.WqeCreated, c[i].Roce.WqeCompleted)
		}
	}
	if pr.pool.InUse() != 0 {
		t.Errorf("%d packets leaked", pr.pool.InUse())
	}
	if c[0].Roce.Rtx == 0 || c[1].Roce.CnpSent == 0 || c[1].PfcPauseTx == 0 {
		t.Errorf("scenario lacks loss/CNP/PFC: rtx %d cnp %d pfc %d", c[0].Roce.Rtx, c[1].Roce.CnpSent, c[1].PfcPauseTx)
	}
	pr2, c2 := scenario(t)
	if c != c2 || !reflect.DeepEqual(pr.done, pr2.done) || pr.eng.Fired() != pr2.eng.Fired() {
		t.Errorf("second run differs:\n%+v\n%+v", c, c2)
	}
	t.Logf("events %d, A %+v", pr.eng.Fired(), c[0].Roce)
}

// TestRecords checks the rows of one 1 MiB WRITE reported at 30 us and 60 us: nd-stats
// identity and rates, roce-transport-stats counters and interval twins, no ecn-pfc rows.
func TestRecords(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	rec := stats.NewRecorder("j1", func() time.Time { return time.Date(2026, 1, 13, 19, 11, 38, 0, time.UTC) })
	pr.post(0, 0, 1<<20, 1)
	pr.at(30*us, func() { pr.nics[0].ReportND(pr.eng.Now(), rec); pr.nics[1].ReportND(pr.eng.Now(), rec) })
	pr.at(60*us, func() { pr.nics[0].ReportND(pr.eng.Now(), rec); pr.nics[1].ReportND(pr.eng.Now(), rec) })
	pr.run(sim.Second)
	if n := reflect.TypeOf(stats.RoceTransportStats{}).NumField() - 1; n != 74 {
		t.Errorf("roce-transport-stats has %d columns besides job_id, want 74", n)
	}
	if len(rec.NdStats) != 4 || len(rec.RoceTransportStats) != 4 || len(rec.EcnPfcStats) != 0 {
		t.Fatalf("rows: nd %d roce %d ecn-pfc %d", len(rec.NdStats), len(rec.RoceTransportStats), len(rec.EcnPfcStats))
	}
	nd := rec.NdStats[0]
	wantTx := int64(256 * 4154)
	if nd.ComponentName != "Host-A" || nd.NdName != "nic::RoceNetDevice" || nd.ComponentType != "NIC" || nd.Tier != 3 ||
		nd.Ifid != 0 || nd.Uldl != "ul" || nd.NodeID != 10 || nd.Subtier != 4294967295 || nd.TimeUTC != "2026-01-13T19:11:38Z" ||
		nd.TotalPacketsTx != 256 || nd.TotalPacketsRx != 16 || nd.TotalBytesTxGB != float64(wantTx)/1e9 || nd.JobID != "j1" {
		t.Errorf("nd-stats row: %+v", nd)
	}
	if r := float64(wantTx) * 8 / 30e-6 / 1e9; nd.TxRateGbps != r || nd.TxLinkPercentUtil != r/400*100 {
		t.Errorf("tx rate %g util %g, want %g", nd.TxRateGbps, nd.TxLinkPercentUtil, r)
	}
	if nd2 := rec.NdStats[2]; nd2.IntervalBytesTxMB != 0 || nd2.TxRateGbps != 0 || nd2.TotalPacketsTx != 256 {
		t.Errorf("second nd row: %+v", nd2)
	}
	ra, rb := rec.RoceTransportStats[0], rec.RoceTransportStats[1]
	if ra.NumPktsSent != 256 || ra.NumVerbPktsSent != 256 || ra.RdmaWriteCnt != 256 || ra.NumAcksRecvd != 16 ||
		ra.NumWqeCreated != 1 || ra.NumWqeCompleted != 1 || ra.IvlNumPktsSent != 256 || ra.MaxCalcRttUsec <= 0 ||
		ra.IvlMinCalcRttUsec <= 0 || ra.IvlMinCalcRttUsec > ra.IvlMaxCalcRttUsec || ra.AvgCalcRttUsec <= 0 {
		t.Errorf("A roce row: %+v", ra)
	}
	if rb.NumPktsSent != 16 || rb.NumNonVerbPktsSent != 16 || rb.NumAcksSent != 16 || rb.NumWritesRecvd != 256 || rb.ComponentName != "Host-B" {
		t.Errorf("B roce row: %+v", rb)
	}
	if ra2 := rec.RoceTransportStats[2]; ra2.IvlNumPktsSent != 0 || ra2.NumPktsSent != 256 || ra2.IvlMinCalcRttUsec != 0 || ra2.MaxCalcRttUsec != ra.MaxCalcRttUsec {
		t.Errorf("A second roce row: %+v", ra2)
	}
	// The RTT of the SE packet: serialization end -> ACK back = 100 + 2.52 + 100 ns.
	if got := ra.IvlMinCalcRttUsec; got != 0.20252 {
		t.Errorf("min RTT %g us, want 0.20252", got)
	}
}
