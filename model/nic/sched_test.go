package nic

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// TestWRR: WeightedRoundRobin with weights [1, 3] sends 3 TC1 frames per TC0 frame while
// both are backlogged (§7). One TC0 QP and three TC1 QPs keep the fetch ratio at 1:3;
// 1 MB egress pools of 500 KB each keep both queues busy.
func TestWRR(t *testing.T) {
	a, b := defaultCfgs()
	a.NetworkInterface.EgressBufferManager.QueueSchedulingType = "WeightedRoundRobin"
	a.NetworkInterface.EgressBufferManager.TotalBufferSize = 1_000_000
	a.NetworkInterface.EgressBufferManager.PoolAllocationVector = config.Vec8{0.5, 0.5}
	pr := newPair(t, &a, &b)
	var seq []int
	pr.nics[0].trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Data {
			seq = append(seq, p.TC())
		}
	}
	pr.nics[0].Post(WorkRequest{Dst: 1, QP: 0, Size: 4 << 20, DataTC: 0, CtrlTC: 1})
	for q := int32(1); q <= 3; q++ {
		pr.nics[0].Post(WorkRequest{Dst: 1, QP: q, Size: 4 << 20, DataTC: 1, CtrlTC: 1})
	}
	pr.run(sim.Second)
	if len(pr.done) != 4 {
		t.Fatalf("completions %d", len(pr.done))
	}
	// Steady state: frames 100..3000 come in turns of one TC0 frame and three TC1 frames.
	i := 100
	for seq[i] != 0 {
		i++
	}
	turns := 0
	for ; i+4 <= 3000; i += 4 {
		if seq[i] != 0 || seq[i+1] != 1 || seq[i+2] != 1 || seq[i+3] != 1 {
			t.Fatalf("frames %d..%d: TCs %v, want [0 1 1 1]", i, i+3, seq[i:i+4])
		}
		turns++
	}
	t.Logf("%d turns of [0 1 1 1]; first frames %v", turns, seq[:12])
}

// TestWRRUnit checks the [DC] WRR state machine on queue contents directly: the first turn
// belongs to the highest TC with a pool; an empty holder loses its turn; weight 0 is never
// served.
func TestWRRUnit(t *testing.T) {
	a, b := defaultCfgs()
	a.NetworkInterface.EgressBufferManager.QueueSchedulingType = "WeightedRoundRobin"
	a.NetworkInterface.EgressBufferManager.PoolAllocationVector = config.Vec8{0.3, 0.3, 0.3}
	a.NetworkInterface.EgressBufferManager.WRRQueueWeights = config.Vec8{2, 1, 0}
	pr := newPair(t, &a, &b)
	n := pr.nics[0]
	fill := func(c, k int) {
		for i := 0; i < k; i++ {
			n.txq[c].Push(1)
		}
	}
	fill(0, 5)
	fill(1, 5)
	fill(2, 5)
	var got []int
	for i := 0; i < 9; i++ {
		c := n.pick()
		got = append(got, c)
		if c >= 0 {
			n.txq[c].Pop()
		}
	}
	// First turn: TC2 (highest pool) has weight 0 -> skipped; TC0 x2, TC1 x1, TC0 x2, ...
	want := []int{0, 0, 1, 0, 0, 1, 0, 1, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("picks %v, want %v", got, want)
		}
	}
	if c := n.pick(); c != 1 {
		t.Errorf("pick %d, want the last TC1 frame", c)
	}
	n.txq[1].Pop()
	if c := n.pick(); c != -1 || n.txq[2].Len() != 5 {
		t.Errorf("pick with only weight-0 TC2 queued: %d (queue %d)", c, n.txq[2].Len())
	}
}

// TestRoundRobinUnit: one frame per TC from the one after the last served; the first scan
// starts at TC 0 [DC].
func TestRoundRobinUnit(t *testing.T) {
	a, b := defaultCfgs()
	a.NetworkInterface.EgressBufferManager.QueueSchedulingType = "RoundRobin"
	pr := newPair(t, &a, &b)
	n := pr.nics[0]
	for i := 0; i < 3; i++ {
		n.txq[0].Push(1)
		n.txq[1].Push(1)
	}
	var got []int
	for i := 0; i < 7; i++ {
		c := n.pick()
		got = append(got, c)
		if c >= 0 {
			n.txq[c].Pop()
		}
	}
	want := []int{0, 1, 0, 1, 0, 1, -1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("picks %v, want %v", got, want)
		}
	}
}

// TestStrictPriorityAcks: with SP, data TC0 and control TC1, ACKs overtake queued data:
// B sends a long message to A while acknowledging A's; each of B's ACKs waits at most for
// the frame already on the wire (§7 defaults).
func TestStrictPriorityAcks(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	enq := map[pkt.Handle]sim.Time{}
	overtook, acks := 0, 0
	var worst sim.Time
	B := pr.nics[1]
	B.trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if p == nil || p.Type != pkt.Ack {
			return
		}
		switch ev {
		case "enq":
			enq[h] = pr.eng.Now()
		case "start":
			acks++
			worst = max(worst, pr.eng.Now()-enq[h])
			if B.txq[0].Len() > 0 {
				overtook++
			}
		}
	}
	pr.post(0, 0, 4<<20, 1)
	pr.post(1, 0, 4<<20, 2)
	pr.run(sim.Second)
	// 1,024 packets: 60 count ACKs (every 17th) + 1 SE ACK.
	if len(pr.done) != 2 || acks != 61 {
		t.Fatalf("completions %d, B ACKs %d (want 2, 61)", len(pr.done), acks)
	}
	if worst > tData {
		t.Errorf("an ACK waited %v, more than one data frame (%v)", worst, tData)
	}
	if overtook < acks/2 {
		t.Errorf("only %d of %d ACKs were sent with data queued behind them", overtook, acks)
	}
}
