package nic

import (
	"math"
	"testing"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// injectCNP delivers a CNP for QPN qpn to nic i.
func injectCNP(pr *pair, i int, qpn uint32) {
	h, p := pr.pool.New()
	p.Type, p.Size, p.DSCP, p.DestQP, p.SrcHost = pkt.Cnp, cnpL3, 8, qpn, int32(1-i)
	pr.nics[i].Receive(h)
}

const us = sim.Microsecond

func halfUs(k int) sim.Time { return sim.Time(k) * 22500 * sim.Nanosecond }

// TestDCQCNSingleCNP is §17 [DC-derived]: a single CNP to a QP at line rate cuts
// 400 -> 200 Gbps; increases at 22.5 + 45(k-1) us give 300, 350, 375 (fast recovery), then
// 387.5, 393.75, ... (additive, Rt capped at 400); the 11th, at 472.5 us, reaches 399.902 ->
// the episode ends at 400. The QP's data frames serialize at its allowed rate.
func TestDCQCNSingleCNP(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	A := pr.nics[0]
	pr.post(0, 0, 64<<20, 1)
	t0 := 20 * us
	pr.at(t0, func() { injectCNP(pr, 0, 1) })
	// Expected Rc right after each half (k = 0 is the cut at t0; odd k are increases).
	want := map[int]float64{0: 200, 1: 300, 3: 350, 5: 375, 7: 387.5, 9: 393.75, 11: 396.875,
		13: 398.4375, 15: 399.21875, 17: 399.609375, 19: 399.8046875, 21: 400}
	got := map[int]float64{}
	cong := map[int]bool{}
	for k := 0; k <= 22; k++ {
		k := k
		pr.at(t0+halfUs(k)+sim.Nanosecond, func() {
			r, c := A.Rate(1, 0)
			got[k], cong[k] = r/1e9, c
		})
	}
	// Data frame spacing right after the cut: 4154 B at 200 Gbps = 166.16 ns.
	var starts []sim.Time
	A.trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Data && pr.eng.Now() > t0 && pr.eng.Now() < t0+2*us {
			starts = append(starts, pr.eng.Now())
		}
	}
	pr.run(600 * us)
	for k := 0; k <= 22; k++ {
		w, ok := want[k]
		if !ok {
			w = want[k-1] // reduction halves without CNPs leave Rc alone
		}
		if math.Abs(got[k]-w) > 1e-6*w {
			t.Errorf("half %d (t = %v): Rc %.9g Gbps, want %.9g", k, t0+halfUs(k), got[k], w)
		}
		if wantCong := k < 21; cong[k] != wantCong {
			t.Errorf("half %d: congested %v, want %v", k, cong[k], wantCong)
		}
	}
	for i := 2; i < len(starts); i++ {
		if d := starts[i] - starts[i-1]; d != 166160 {
			t.Errorf("frame spacing after the cut %v, want 166.16ns", d)
			break
		}
	}
	q := &A.qps[0]
	if math.Abs(q.cc.step-4e9) > 1e-6*4e9 {
		t.Errorf("step %g, want 4 Gbps", q.cc.step)
	}
	if A.Counters().Roce.CnpRecvd != 1 {
		t.Errorf("num_cnp_recvd %d", A.Counters().Roce.CnpRecvd)
	}
}

// TestDCQCNFloorAndSlowIncrease: a QP that sends nothing gets a CNP 10 us after every
// reduction half (so every half sees it, m = 1, alpha stays 1). Rc halves to the 40 Gbps
// floor and stays there; while CNPs continue only every (N+1) = 6th increase half raises
// it (fast recovery: (40 + 400)/2 = 220 at 247.5 us, again at 517.5 us).
func TestDCQCNFloorAndSlowIncrease(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	A := pr.nics[0]
	q := A.newQP(true, 1, 0, 1)
	t0 := 10 * us
	pr.at(t0, func() { injectCNP(pr, 0, q.qpn) })
	for j := 0; j < 14; j++ {
		pr.at(t0+sim.Time(j)*45*us+10*us, func() { injectCNP(pr, 0, q.qpn) })
	}
	var rc []float64
	minRc := math.Inf(1)
	for k := 0; k < 26; k++ {
		pr.at(t0+halfUs(k)+sim.Nanosecond, func() {
			rc = append(rc, q.cc.rc/1e9)
			minRc = min(minRc, q.cc.rc)
		})
	}
	pr.run(t0 + 600*us)
	// k even: reductions (cut by alpha/2 = 1/2, floored at 40); k odd: increases.
	want := []float64{
		200, 200, 100, 100, 50, 50, 40, 40, 40, 40, 40, // k = 0..10
		220,                                          // k = 11 (247.5 us): 6th increase half
		110, 110, 55, 55, 40, 40, 40, 40, 40, 40, 40, // k = 12..22
		220,      // k = 23 (517.5 us): next 6th
		110, 110, // k = 24, 25
	}
	for k := range want {
		if math.Abs(rc[k]-want[k]) > 1e-6 {
			t.Errorf("half %d (t = %v): Rc %.6g Gbps, want %.6g (trajectory %v)", k, t0+halfUs(k), rc[k], want[k], rc)
			break
		}
	}
	if minRc < 40e9 {
		t.Errorf("Rc fell below the floor: %g", minRc)
	}
	if math.Abs(q.cc.rt-400e9) > 1 {
		t.Errorf("Rt %g, want 400 Gbps (fast recovery never moves it)", q.cc.rt)
	}
}

// TestDCQCNDisabled: with EnableECN false, data is Not-ECT, CNPs are counted but ignored.
func TestDCQCNDisabled(t *testing.T) {
	a, b := defaultCfgs()
	a.ECNHandler.EnableECN = false
	pr := newPair(t, &a, &b)
	var ecn []uint8
	pr.sw = func(from int, h pkt.Handle, p *pkt.Packet) bool {
		if p.Type == pkt.Data {
			ecn = append(ecn, p.ECN)
		}
		return true
	}
	pr.post(0, 0, 1<<20, 1)
	pr.at(5*us, func() { injectCNP(pr, 0, 1) })
	pr.run(sim.Second)
	r, c := pr.nics[0].Rate(1, 0)
	if c || r != 400e9 || pr.nics[0].Counters().Roce.CnpRecvd != 1 || ecn[0] != pkt.NotECT {
		t.Errorf("rate %g congested %v cnp_recvd %d ecn %d", r, c, pr.nics[0].Counters().Roce.CnpRecvd, ecn[0])
	}
}

// TestCNPOnCE: the receiver returns one CNP per CE-marked data packet (§8 step 6), through
// the dedicated queue, with DSCP = control TC x 8; the sender's QP becomes congested.
func TestCNPOnCE(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	marked := 0
	var cnpDSCP []uint8
	pr.sw = func(from int, h pkt.Handle, p *pkt.Packet) bool {
		if from == 0 && p.Type == pkt.Data && p.PSN%50 == 0 && p.ECN == pkt.ECT0 {
			p.ECN = pkt.CE
			marked++
		}
		if from == 1 && p.Type == pkt.Cnp {
			cnpDSCP = append(cnpDSCP, p.DSCP)
		}
		return true
	}
	pr.post(0, 0, 1<<20, 1)
	pr.run(sim.Second)
	A, B := pr.nics[0].Counters(), pr.nics[1].Counters()
	if marked != 6 || B.Roce.CnpSent != 6 || A.Roce.CnpRecvd != 6 || len(cnpDSCP) != 6 || cnpDSCP[0] != 8 {
		t.Errorf("marked %d cnp sent %d recvd %d dscp %v", marked, B.Roce.CnpSent, A.Roce.CnpRecvd, cnpDSCP)
	}
	if B.TxBytes != B.Roce.AcksSent*126+6*122 {
		t.Errorf("B wire bytes %d, want ACKs x 126 + 6 x 122", B.TxBytes)
	}
}
