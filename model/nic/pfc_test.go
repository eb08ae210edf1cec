package nic

import (
	"math"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// goodput measures payload delivered to B's host between from and to, in Gbps.
func goodput(pr *pair, from, to sim.Time) *float64 {
	var g float64
	var at0 int64
	pr.at(from, func() { at0 = pr.recv[1] })
	pr.at(to, func() { g = float64(pr.recv[1]-at0) * 8 / (to - from).Seconds() / 1e9 })
	return &g
}

// TestPCIeDefaultNetworkBound: at default lanes the port limits throughput to
// 400 x 4096/4154 ~ 394.4 Gbps of payload and no PFC is needed (§17).
func TestPCIeDefaultNetworkBound(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	pr.post(0, 0, 8<<20, 1)
	g := goodput(pr, 20*sim.Microsecond, 160*sim.Microsecond)
	pr.run(sim.Second)
	want := 400.0 * 4096 / 4154
	if math.Abs(*g-want) > 0.005*want {
		t.Errorf("goodput %.2f Gbps, want %.2f (network-bound)", *g, want)
	}
	B := pr.nics[1].Counters()
	if B.PfcPauseTx != 0 || B.RxDrops != 0 {
		t.Errorf("pauses %d drops %d, want 0", B.PfcPauseTx, B.RxDrops)
	}
}

// TestPCIeBoundPFC: with 7.88 Gbps lanes at the receiver its PCIe link carries
// 126.08 x 4096/4368 ~ 118.2 Gbps of payload; the ingress pool fills, B pauses A, A honours
// the pauses (pfc_time_paused_usec grows) and nothing is dropped: headroom 720,000 B is far
// above the 18,368 B guidance (§12.4, §17).
func TestPCIeBoundPFC(t *testing.T) {
	a, b := defaultCfgs()
	b.HostInterface.NICSide.PhysicalLayer.LaneBps = 7.88e9
	b.HostInterface.HostSide.PhysicalLayer.LaneBps = 7.88e9
	pr := newPair(t, &a, &b)
	pr.post(0, 0, 48<<20, 1)
	g := goodput(pr, 500*sim.Microsecond, 3000*sim.Microsecond)
	var maxOcc int64
	pr.every(sim.Microsecond, 3*sim.Millisecond, func() {
		in, _ := pr.nics[1].Occupancy(0)
		maxOcc = max(maxOcc, in)
	})
	rec := stats.NewRecorder("job", func() time.Time { return time.Unix(0, 0) })
	var paused []float64
	pr.every(500*sim.Microsecond, 3*sim.Millisecond, func() {
		pr.nics[0].ReportND(pr.eng.Now(), rec)
		pr.nics[1].ReportND(pr.eng.Now(), rec)
		paused = append(paused, pr.nics[0].PausedTime(0).Micros())
	})
	pr.run(sim.Second)
	want := 126.08 * 4096 / 4368
	if math.Abs(*g-want) > 0.01*want {
		t.Errorf("goodput %.2f Gbps, want %.2f (PCIe-bound)", *g, want)
	}
	A, B := pr.nics[0].Counters(), pr.nics[1].Counters()
	P := pr.nics[1].P
	if B.PfcPauseTx == 0 || A.PfcPauseRx != B.PfcPauseTx || A.PfcXonRx != B.PfcXonTx {
		t.Errorf("B pauses sent %d / XON %d, A received %d / %d", B.PfcPauseTx, B.PfcXonTx, A.PfcPauseRx, A.PfcXonRx)
	}
	if B.RxDrops != 0 {
		t.Errorf("rx_drops %d, want 0 (headroom %d >= guidance %d)", B.RxDrops, P.Headroom[0], P.HeadroomGuidance)
	}
	if maxOcc < P.Xoff[0]-4136 || maxOcc > P.Ingress[0] {
		t.Errorf("max ingress occupancy %d, want within [Xoff-4136, pool] = [%d, %d]", maxOcc, P.Xoff[0]-4136, P.Ingress[0])
	}
	for i := 1; i < len(paused); i++ {
		if paused[i] <= paused[i-1] {
			t.Errorf("A pfc_time_paused_usec does not grow: %v", paused)
			break
		}
	}
	if len(pr.done) != 1 || B.PayloadDelivered != 48<<20 || pr.pool.InUse() != 0 {
		t.Errorf("completions %d delivered %d leak %d", len(pr.done), B.PayloadDelivered, pr.pool.InUse())
	}
	// Records: B's ecn-pfc-stats TC0 rows count pauses sent, A's count pauses received
	// and paused time; TC1 rows are all zero and omitted.
	var bTx, aRx int64
	var aPaused float64
	for _, r := range rec.EcnPfcStats {
		if r.Priority != 0 {
			t.Errorf("unexpected row for priority %d: %+v", r.Priority, r)
		}
		if r.ComponentName == "Host-B" {
			bTx = r.PfcxoffTx
		} else {
			aRx, aPaused = r.PfcxoffRx, r.PfcTimePausedUsec
		}
	}
	if bTx == 0 || aRx == 0 || aPaused <= 0 {
		t.Errorf("ecn-pfc rows: B pfcxoff_tx %d, A pfcxoff_rx %d, A paused %.3f us", bTx, aRx, aPaused)
	}
	t.Logf("goodput %.2f Gbps, max occ %d, B pauses %d xon %d, A paused %.1f us", *g, maxOcc, B.PfcPauseTx, B.PfcXonTx, A.PfcPausedTime.Micros())
}

// injectPFC delivers a PFC frame for class c with quanta q to nic i.
func injectPFC(pr *pair, i, c int, q uint16) {
	h, p := pr.pool.New()
	p.Type, p.Size, p.PfcVector = pkt.Pfc, pfcL3, 1<<c
	p.PfcQuanta = q
	pr.nics[i].Receive(h)
}

// TestHonourPFC: a received pause holds TC0 data for pauseTime(65535) = 83.9848 us with
// this NIC's L and Delay (§12.3); a new pause re-arms in full; XON resumes at once; the
// paused time accrues to pfc_time_paused_usec.
func TestHonourPFC(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	var starts []sim.Time
	pr.nics[0].trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Data {
			starts = append(starts, pr.eng.Now())
		}
	}
	pr.post(0, 0, 64<<20, 1)
	p0 := 10 * sim.Microsecond
	pt := sim.Time(83984800)
	pr.at(p0, func() { injectPFC(pr, 0, 0, 65535) })
	pr.at(p0+pt+10*sim.Microsecond, func() { injectPFC(pr, 0, 0, 65535) })
	pr.at(p0+pt+20*sim.Microsecond, func() { injectPFC(pr, 0, 0, 65535) }) // re-arm
	pr.at(p0+pt+30*sim.Microsecond, func() { injectPFC(pr, 0, 0, 0) })     // XON
	var pausedAtEnd sim.Time
	pr.at(p0+pt+40*sim.Microsecond, func() { pausedAtEnd = pr.nics[0].PausedTime(0) })
	pr.run(p0 + pt + 50*sim.Microsecond)
	// No data frame starts inside a pause (the frame on the wire at p0 finishes).
	gapStart, gapEnd := sim.Time(0), sim.Time(0)
	for i := 1; i < len(starts); i++ {
		if starts[i]-starts[i-1] > 10*sim.Microsecond {
			if gapStart == 0 {
				gapStart, gapEnd = starts[i-1], starts[i]
			}
		}
	}
	if gapStart > p0 || gapEnd != p0+pt {
		t.Errorf("first pause gap [%v, %v], want last start <= %v and resume at %v", gapStart, gapEnd, p0, p0+pt)
	}
	if want := pt + 20*sim.Microsecond; pausedAtEnd != want {
		t.Errorf("paused time %v, want %v", pausedAtEnd, want)
	}
	for _, s := range starts {
		if s > p0+pt+10*sim.Microsecond && s < p0+pt+30*sim.Microsecond {
			t.Errorf("data frame started at %v during the second pause", s)
			break
		}
	}
	A := pr.nics[0].Counters()
	if A.PfcPauseRx != 3 || A.PfcXonRx != 1 {
		t.Errorf("pauses rx %d xon rx %d", A.PfcPauseRx, A.PfcXonRx)
	}
}

// TestPFCEmission is §17 "Trigger" and "Resume": a TC0 data arrival pauses at occupancy
// 2,875,864 B (not 2,875,863); the refresh 41,992,400 ps after the pause's generation sends
// XON when occupancy is below Xoff; a release to <= Xon sends XON at once.
func TestPFCEmission(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	B := pr.nics[1]
	var pfcAt []sim.Time
	var quanta []uint16
	B.trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Pfc {
			pfcAt = append(pfcAt, pr.eng.Now())
			quanta = append(quanta, p.PfcQuanta)
		}
	}
	psn := int64(0)
	data := func() {
		h, p := pr.pool.New()
		p.Type, p.Size, p.Payload, p.PSN, p.SrcHost, p.SrcQP, p.DataTC, p.CtrlTC = pkt.Data, 4136, 4096, psn, 0, 1, 0, 1
		psn++
		B.Receive(h)
	}
	pr.at(1*sim.Microsecond, func() { B.inOcc[0] = 2875863; data() })
	pr.at(2*sim.Microsecond, func() { B.inOcc[0] = 2875864; data() })
	pr.at(200*sim.Microsecond, func() { B.inOcc[0] = 2879999; data() })
	pr.at(201*sim.Microsecond, func() { B.inOcc[0] = 1440000; data() }) // release to Xon
	pr.run(sim.Millisecond)
	want := []sim.Time{2 * sim.Microsecond, 2*sim.Microsecond + 41992400, 200 * sim.Microsecond, 201 * sim.Microsecond}
	wantQ := []uint16{65535, 0, 65535, 0}
	if len(pfcAt) != 4 {
		t.Fatalf("PFC frames at %v quanta %v, want %v %v", pfcAt, quanta, want, wantQ)
	}
	for i := range want {
		if pfcAt[i] != want[i] || quanta[i] != wantQ[i] {
			t.Errorf("PFC %d at %v quanta %d, want %v quanta %d", i, pfcAt[i], quanta[i], want[i], wantQ[i])
		}
	}
	c := B.Counters()
	if c.PfcPauseTx != 2 || c.PfcXonTx != 2 || c.RxDrops != 0 {
		t.Errorf("pause tx %d xon tx %d drops %d", c.PfcPauseTx, c.PfcXonTx, c.RxDrops)
	}
}

// TestXonOnlyOnHostRelease: the early resume of §12.2 runs only when received data is
// accepted toward the host; a discard, a duplicate or a processed control packet frees
// its bytes without the Xon test. B's TC0 has Xon = Xoff = 2,880,000 B (both 0.8 of the
// 3,600,000 B pool), and a phantom 2,875,864 B (Xoff − 4,136) that never leaves sits in the
// pool, so every 4,136 B data arrival reaches Xoff and every release brings the pool back
// to 2,875,864 B, at or below Xon. The frames injected at B, and what B's PFC does:
//
//	1 us      data PSN 0, in order: 2,875,864 + 4,136 ≥ Xoff → pause 1; admitted; its
//	          host write is accepted at once (the PCIe buffers are empty): 4,136 B
//	          released to the host, 2,875,864 ≤ Xon → XON 1, on the wire right after the
//	          pause frame (1,680 ps, §17).
//	2 us      data PSN 5, a gap: no pause outstanding, Xoff reached → pause 2, its refresh
//	          due R = 41,992,400 ps later; discarded behind the gap and released: no test.
//	3 us      data PSN 0 again, a duplicate: pause 2 is outstanding, so no pause;
//	          released without a host write: no test.
//	4 us      an ACK in TC 0 naming no QP: charged 108 B, processed, released: no test.
//	2 us + R  the refresh finds 2,875,864 < Xoff → XON 2.
//
// So 2 pauses and 2 XONs. Were every release tested, the discard at 2 us would resume at
// once, the duplicate at 3 us would pause again (no pause outstanding) and resume on its
// release, and the refresh would find nothing to do: 3 pauses and 3 XONs.
func TestXonOnlyOnHostRelease(t *testing.T) {
	a, b := defaultCfgs()
	b.NetworkInterface.IngressBufferManager.PfcXonResumeThreshold[0] = 0.8
	pr := newPair(t, &a, &b)
	B := pr.nics[1]
	if B.P.Xon[0] != 2880000 || B.P.Xoff[0] != 2880000 {
		t.Fatalf("Xon %d Xoff %d, want 2,880,000 both", B.P.Xon[0], B.P.Xoff[0])
	}
	var pfcAt []sim.Time
	var quanta []uint16
	B.trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Pfc {
			pfcAt = append(pfcAt, pr.eng.Now())
			quanta = append(quanta, p.PfcQuanta)
		}
	}
	data := func(psn int64) {
		h, p := pr.pool.New()
		p.Type, p.Size, p.Payload, p.PSN, p.SrcHost, p.SrcQP, p.DataTC, p.CtrlTC = pkt.Data, 4136, 4096, psn, 0, 1, 0, 1
		B.Receive(h)
	}
	pr.at(1*sim.Microsecond, func() { B.inOcc[0] = 2875864; data(0) })
	pr.at(2*sim.Microsecond, func() { data(5) })
	pr.at(3*sim.Microsecond, func() { data(0) })
	pr.at(4*sim.Microsecond, func() {
		h, p := pr.pool.New()
		p.Type, p.Size, p.DestQP, p.PSN = pkt.Ack, ackL3, 99, 0
		B.Receive(h)
	})
	rec := stats.NewRecorder("job", func() time.Time { return time.Unix(0, 0) })
	pr.at(100*sim.Microsecond, func() { B.ReportND(pr.eng.Now(), rec) })
	pr.run(100 * sim.Microsecond)

	R := B.P.Refresh[0]
	if R != 41992400 {
		t.Fatalf("refresh %d ps, want 41,992,400", R)
	}
	want := []sim.Time{sim.Microsecond, sim.Microsecond + 1680, 2 * sim.Microsecond, 2*sim.Microsecond + R}
	wantQ := []uint16{65535, 0, 65535, 0}
	if len(pfcAt) != len(want) {
		t.Fatalf("PFC frames at %v quanta %v, want %v quanta %v", pfcAt, quanta, want, wantQ)
	}
	for i := range want {
		if pfcAt[i] != want[i] || quanta[i] != wantQ[i] {
			t.Errorf("PFC frame %d at %v quanta %d, want %v quanta %d", i, pfcAt[i], quanta[i], want[i], wantQ[i])
		}
	}
	c := B.Counters()
	if c.PfcPauseTx != 2 || c.PfcXonTx != 2 || c.RxDrops != 0 {
		t.Errorf("pauses %d XON %d drops %d, want 2, 2, 0", c.PfcPauseTx, c.PfcXonTx, c.RxDrops)
	}
	if c.Roce.RxDropsAfterNak != 1 || c.Roce.Duplicate != 1 || c.Roce.RxDropsNoQpCtrl != 1 {
		t.Errorf("after_nak %d duplicate %d no_qp_ctrl %d, want 1 each", c.Roce.RxDropsAfterNak, c.Roce.Duplicate, c.Roce.RxDropsNoQpCtrl)
	}
	if in, _ := B.Occupancy(0); in != 2875864 {
		t.Errorf("TC0 occupancy %d at the end, want the phantom 2,875,864", in)
	}
	if len(rec.EcnPfcStats) != 1 || rec.EcnPfcStats[0].PfcxoffTx != 2 || rec.EcnPfcStats[0].PfcxonTx != 2 {
		t.Errorf("ecn-pfc-stats rows %+v, want one TC0 row with pfcxoff_tx 2, pfcxon_tx 2", rec.EcnPfcStats)
	}
}
