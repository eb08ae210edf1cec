package nic

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/internal/ring"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// GenStartDelay is the delay from Idle or Blocked to Running of packet generation
// (nic.md §3, §18 DC-3).
const GenStartDelay = 80 * sim.Nanosecond

// qp is one end of a reliable-connected queue pair (nic.md §3). A requester QP is created
// by Post for a new (Dst, QP); a responder QP by the first data packet of a peer QP. The
// two roles use disjoint fields.
//
// Layout (TestQPHotLines): what both roles read for every packet and what a requester
// reads to fetch, number and send a segment fill line 0, the rest of a requester's
// per-packet state (its window, the RTT ring, whether DCQCN holds its rate) line 1, a
// responder's per-packet state line 3; the DCQCN loop's other state, the message queue
// and the active message's WR fill the rest.
type qp struct {
	idx            int32       // index in NIC.qps; QPN = idx+1
	qpn            uint32      // BTH QPN of this end
	peerHost       int32       //
	peerQPN        uint32      // requester: 0 until an ACK names it; responder: the requester's QPN
	epoch          uint32      // requester (§10)
	rtxTimer       sim.TimerID // requester (§10)
	requester      bool
	active         bool // requester: a message is active (§3 Rule 1)
	inReady        bool // requester: on the ready queue
	dataTC, ctrlTC uint8
	_              uint8
	sport          uint16 // UDP source port: ECMP entropy, fixed per QP (see sourcePort)
	msgBase        int64  // requester: PSN of the active message's first segment
	msgSegs        int64
	cursor         int64 // requester: next segment index to fetch (§3)
	una            int64 // requester transport (§10)

	nxt, maxAssigned int64
	msgSize          int64    // requester: the active message's bytes (msg.Size)
	sentAt           sentRing // serialization end of the latest transmission of each PSN in flight
	cc               dcqcnState

	// Responder (§8, §9).
	expected int64 // E
	held     int
	msgBytes int64 // payload since the last SE, for OnReceived
	ackTimer sim.TimerID
	gap      bool

	// Requester: WR FIFO and the one active message (§3 Rule 1), rate control (§13).
	wqp       int32 // the workload's QP index
	rateTimer sim.TimerID
	wrq       ring.Ring[pendingWR]
	msg       pendingWR
	_         [8]byte // 320 bytes: in the NIC's table every QP's line 0 is a whole line
}

type pendingWR struct {
	WorkRequest
	posted sim.Time
}

// sourcePort is the UDP source port of a QP's packets: fixed per QP so a flow stays on one
// ECMP path, and spread over 49152-65535 by host and QPN so that different QPs hash apart.
// (Our choice; RoCEv2 leaves the source port to the implementation.)
func sourcePort(host int32, qpn uint32) uint16 {
	h := uint32(host)*2654435761 ^ qpn*40503
	h ^= h >> 15
	return uint16(49152 + h%16384)
}

// newQP appends a QP to the NIC's table and returns it. The table holds QPs by value, so
// a *qp taken from it before is stale after: no caller holds one across newQP (Post and
// responder take theirs after it).
func (n *NIC) newQP(requester bool, peerHost int32, dataTC, ctrlTC uint8) *qp {
	idx := int32(len(n.qps))
	n.qps = append(n.qps, qp{idx: idx, qpn: uint32(idx + 1), requester: requester, peerHost: peerHost,
		dataTC: dataTC & 7, ctrlTC: ctrlTC & 7, maxAssigned: -1})
	q := &n.qps[idx]
	q.sport = sourcePort(n.id.Host, q.qpn)
	if requester {
		q.rtxTimer = n.eng.NewTimer(KindRtxTimer, n.id.Dev, 0, int64(idx))
		q.rateTimer = n.eng.NewTimer(KindRateTimer, n.id.Dev, 0, int64(idx))
		q.cc.alpha = 1 // §13 [DC]: alpha starts at 1.0 at QP creation
		q.cc.rc = n.L
	} else {
		q.ackTimer = n.eng.NewTimer(KindAckTimer, n.id.Dev, 0, int64(idx))
	}
	return q
}

// Post rings the doorbell for wr at the current time (nic.md §3): the WR joins its QP's
// FIFO at once (num_wqe_created++), creating the requester QP on first use; it starts when
// no message of the QP is active. Doorbells cost no PCIe time (§3 [DC]).
func (n *NIC) Post(wr WorkRequest) {
	key := qpKey{wr.Dst, wr.QP}
	i, ok := n.reqIndex[key]
	if !ok {
		q := n.newQP(true, wr.Dst, wr.DataTC, wr.CtrlTC)
		i = q.idx
		n.reqIndex[key] = i
	}
	q := &n.qps[i]
	q.wqp = wr.QP
	if wr.Size < 0 {
		panic(fmt.Sprintf("nic %s: work request of %d bytes", n.id.Name, wr.Size))
	}
	n.roce.WqeCreated++
	q.wrq.Push(pendingWR{WorkRequest: wr, posted: n.eng.Now()})
	if !q.active {
		n.startMessage(q)
	}
}

// RequesterQPN is the QPN of the requester QP that Post uses for (dst, qpIndex), 0 before
// the first WR to it. The receiver's OnHostAccepted names a message's QP by it.
func (n *NIC) RequesterQPN(dst, qpIndex int32) uint32 {
	i, ok := n.reqIndex[qpKey{dst, qpIndex}]
	if !ok {
		return 0
	}
	return n.qps[i].qpn
}

// startMessage makes the head WR the QP's active message (§3 Rule 1) and puts the QP on
// the ready queue. PSNs continue from the previous message (§4).
func (n *NIC) startMessage(q *qp) {
	q.msg = q.wrq.Pop()
	q.msgSize = q.msg.Size
	q.active = true
	q.msgBase = q.nxt
	q.msgSegs = segments(q.msgSize, n.mss)
	q.cursor = 0
	n.appendReady(q)
}

// segPayload is the payload of segment s of the active message: all full except the last
// (§4).
func (n *NIC) segPayload(q *qp, s int64) int64 {
	rest := q.msgSize - s*n.mss
	return min(rest, n.mss)
}

// appendReady puts q at the tail of the ready queue if absent (§3 Rule 2). From Idle it
// schedules the generation start 80 ns later; in other states it adds no delay.
func (n *NIC) appendReady(q *qp) {
	if q.inReady {
		return
	}
	q.inReady = true
	n.ready.Push(q.idx)
	if n.gen == genIdle {
		n.gen = genScheduled
		n.eng.After(GenStartDelay, KindGenStart, n.id.Dev, 0, 0)
	}
}

// genRun is the Running state of packet generation (nic.md §3, §4): in zero time, reserve
// each head QP's next segment in its data-TC egress pool, issue its PCIe read, and rotate
// the QP (one segment per visit). A failed reservation blocks the whole NIC on that pool
// (head-of-line) until it drains to half (egRelease).
func (n *NIC) genRun() {
	n.gen = genRunning
	for n.ready.Len() > 0 {
		i := *n.ready.Peek()
		q := &n.qps[i]
		if !q.active || q.cursor >= q.msgSegs {
			// Nothing left to fetch (an ACK past nxt moved the cursor, §10 [DC]).
			n.ready.Drop()
			q.inReady = false
			continue
		}
		payload := n.segPayload(q, q.cursor)
		wire := payload + pkt.DataOverhead
		tc := int(q.dataTC)
		// §4: reserve payload + 58 B; succeeds iff occupancy + size <= pool.
		if n.egOcc[tc]+wire > n.lim[tc].egress {
			n.gen = genBlocked
			n.blockedPool, n.blockedNeed, n.blockedQP = tc, wire, i
			if n.bs != nil {
				n.bs.blockedSince = n.eng.Now()
			}
			return
		}
		n.egOcc[tc] += wire
		n.sampleEg(tc, wire)
		n.pcieRead(q, q.cursor, payload)
		q.cursor++
		n.ready.Drop()
		if q.cursor < q.msgSegs {
			n.ready.Push(i)
		} else {
			q.inReady = false
		}
	}
	n.gen = genIdle
}

// egRelease frees bytes of egress pool tc (§4: at serialization end or on a stale
// discard; §6: ACK/NAK at serialization end). A release that leaves the pool at or below
// half unblocks generation blocked on it (§3, [DC] the only unblock trigger); then ACK/NAK
// waiting for room in this pool are retried in order (§6 [DC]).
func (n *NIC) egRelease(tc int, bytes int64) {
	n.egOcc[tc] -= bytes
	if n.egOcc[tc] < 0 {
		panic(fmt.Sprintf("nic.md §11: NIC %s egress pool %d occupancy %d < 0 at %v", n.id.Name, tc, n.egOcc[tc], n.eng.Now()))
	}
	n.sampleEg(tc, -bytes)
	if n.gen == genBlocked && n.blockedPool == tc && 2*n.egOcc[tc] <= n.lim[tc].egress {
		if n.bs != nil {
			n.bs.blocked[tc] += n.eng.Now() - n.bs.blockedSince
		}
		n.gen = genScheduled
		n.eng.After(GenStartDelay, KindGenStart, n.id.Dev, 0, 0)
	}
	n.retryAcks(tc)
}

// sentRing holds the serialization end of the latest transmission of each PSN from una
// on, indexed by PSN modulo its power-of-two length, which grows with the window of PSNs
// in flight: a QP's memory follows its window, not its message (8 B per segment of a
// whole 400 MiB message would be 800 KB a QP). Reads name a PSN >= una (an ACK retires from una),
// so a transmission of a PSN below una is not kept.
type sentRing struct{ t []sim.Time }

func (r *sentRing) set(psn, una int64, at sim.Time) {
	if psn < una {
		return
	}
	if psn-una >= int64(len(r.t)) {
		r.grow(psn, una)
	}
	r.t[psn&int64(len(r.t)-1)] = at
}

func (r *sentRing) get(psn int64) sim.Time {
	if len(r.t) == 0 {
		return 0
	}
	return r.t[psn&int64(len(r.t)-1)]
}

// grow makes room for PSNs una..psn, keeping the entries from una on.
func (r *sentRing) grow(psn, una int64) {
	n := max(len(r.t), 64)
	for int64(n) <= psn-una {
		n *= 2
	}
	t := make([]sim.Time, n)
	if old := int64(len(r.t)); old > 0 {
		for p := una; p < una+old; p++ {
			t[p&int64(n-1)] = r.t[p&(old-1)]
		}
	}
	r.t = t
}
