package nic

import (
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// dropOnce makes the switch stand-in drop the first data frame from A with PSN psn.
func dropOnce(pr *pair, psn int64) {
	done := false
	pr.sw = func(from int, h pkt.Handle, p *pkt.Packet) bool {
		if from == 0 && !done && p.Type == pkt.Data && p.PSN == psn {
			done = true
			return false
		}
		return true
	}
}

// TestLostLastPacket is §17 "Lost last packet": no gap, no NAK; the sender timer restarted
// by the count ACK on packet 255 expires 64 ms after that ACK arrived; the re-sent SE
// packet is ACKed at once.
func TestLostLastPacket(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	dropOnce(pr, 255)
	var lastAck sim.Time // when A received the count ACK naming PSN 254
	prev := pr.sw
	pr.sw = func(from int, h pkt.Handle, p *pkt.Packet) bool {
		if from == 1 && p.Type == pkt.Ack && p.PSN == 254 {
			lastAck = pr.eng.Now() // delivered to A at this instant
		}
		return prev(from, h, p)
	}
	pr.post(0, 0, 1<<20, 1)
	pr.run(sim.Second)
	A, B := pr.nics[0].Counters(), pr.nics[1].Counters()
	if len(pr.done) != 1 {
		t.Fatalf("completions: %d", len(pr.done))
	}
	// Expiry at lastAck + 64 ms, then 80 ns generation, 1.555 ns read request, 69.288 ns
	// completions, 83.08 ns frame, link, SE ACK, link.
	want := lastAck + 64*sim.Millisecond + tFetch1 + tData + tDelay + tAck + tDelay
	if got := pr.done[0].Completed; got != want {
		t.Errorf("completion at %v, want %v", got, want)
	}
	ints := []struct {
		name      string
		got, want int64
	}{
		{"num_rto", A.Roce.Rto, 1},
		{"num_rtx", A.Roce.Rtx, 1},
		{"rdma_write_cnt", A.Roce.RdmaWriteCnt, 257},
		{"B nacks", B.Roce.NacksSent, 0},
		{"B seq out of order", B.Roce.SeqOutOfOrder, 0},
		{"B acks (15 count + SE on resend)", B.Roce.AcksSent, 16},
		{"B writes recvd", B.Roce.WritesRecvd, 256},
		{"delivered", B.PayloadDelivered, 1 << 20},
		{"leak", int64(pr.pool.InUse()), 0},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestLostMiddlePacket is the §17 variant: packet 100 (PSN 99) lost; 101 draws NAK(99),
// everything behind the gap is an after_nak drop until the re-sent PSN 99 arrives, the
// sender goes back N from it without a timeout.
func TestLostMiddlePacket(t *testing.T) {
	a, b := defaultCfgs()
	base := newPair(t, &a, &b)
	base.post(0, 0, 1<<20, 1)
	base.run(sim.Second)
	baseFCT := base.done[0].FCT()

	pr := newPair(t, &a, &b)
	dropOnce(pr, 99)
	var naks []int64
	pr.nics[1].trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Nak {
			naks = append(naks, p.PSN)
		}
	}
	pr.post(0, 0, 1<<20, 1)
	pr.run(sim.Second)
	A, B := pr.nics[0].Counters(), pr.nics[1].Counters()
	if len(pr.done) != 1 {
		t.Fatalf("completions: %d", len(pr.done))
	}
	if !slices.Equal(naks, []int64{99}) {
		t.Errorf("NAKs: %v, want [99]", naks)
	}
	behind := B.Roce.WritesRecvd - 256 // frames received past the gap
	ints := []struct {
		name      string
		got, want int64
	}{
		{"B num_seq_out_of_order", B.Roce.SeqOutOfOrder, 1},
		{"B num_nacks_sent", B.Roce.NacksSent, 1},
		{"A num_nacks_recvd", A.Roce.NacksRecvd, 1},
		{"A num_rtx", A.Roce.Rtx, 1},
		{"A num_rto", A.Roce.Rto, 0},
		{"B after_nak = frames behind the gap", B.Roce.RxDropsAfterNak, behind},
		{"B num_rx_drops", B.Roce.RxDrops(), behind},
		{"B duplicates", B.Roce.Duplicate, 0},
		{"A sent = B received + 1 dropped", A.Roce.RdmaWriteCnt, B.Roce.WritesRecvd + 1},
		{"B nd rx_drops (admission only)", B.RxDrops, 0},
		{"delivered", B.PayloadDelivered, 1 << 20},
		{"leak", int64(pr.pool.InUse()), 0},
		{"buffers", A.BufferedBytes + B.BufferedBytes, 0},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
	if behind < 1 {
		t.Errorf("no frames behind the gap: %d", behind)
	}
	// Go-back-N resends the frames already queued behind the gap (at most one egress pool,
	// 55 frames, ~4.6 us) plus about one RTT of turnaround.
	extra := pr.done[0].FCT() - baseFCT
	if limit := 56*tData + 2*tFetch1 + 4*tDelay; extra <= 0 || extra > limit {
		t.Errorf("extra FCT %v, want (0, %v]", extra, limit)
	}
	t.Logf("after_nak %d, tx_payload_discards %d, extra FCT %v", behind, A.Roce.TxPayloadDiscards, extra)
}

// TestGhostAndStale covers §10 ghost ACK/NAK (a PSN never assigned) and a stale NAK.
func TestGhostAndStale(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	inject := func(typ pkt.Type, psn int64) {
		h, p := pr.pool.New()
		p.Type, p.Size, p.DSCP, p.DestQP, p.SrcHost, p.PSN = typ, ackL3, 8, 1, 1, psn
		pr.nics[0].Receive(h)
	}
	pr.post(0, 0, 1<<20, 1)
	pr.at(1*sim.Microsecond, func() { inject(pkt.Ack, 1000) }) // ghost ACK
	pr.at(2*sim.Microsecond, func() { inject(pkt.Nak, 5000) }) // ghost NAK
	pr.at(10*sim.Microsecond, func() { inject(pkt.Ack, 50) })  // retire < 51
	pr.at(11*sim.Microsecond, func() { inject(pkt.Nak, 20) })  // stale: below una
	pr.run(sim.Second)
	A := pr.nics[0].Counters()
	if A.Roce.RxDropsGhostAck != 2 || A.Roce.Rtx != 0 || A.Roce.NacksRecvd != 1 || A.Roce.AcksRecvd != 17 || len(pr.done) != 1 {
		t.Errorf("ghost %d rtx %d nacks %d acks %d completions %d", A.Roce.RxDropsGhostAck, A.Roce.Rtx, A.Roce.NacksRecvd, A.Roce.AcksRecvd, len(pr.done))
	}
}
