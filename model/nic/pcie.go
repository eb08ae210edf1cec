package nic

import (
	"github.com/rocesweep/rocesweep/model/sim"
)

// PCIe directions (nic.md §5).
const (
	dirN2H = 0 // NIC->host: read requests and received-data writes, NIC-side lanes
	dirH2N = 1 // host->NIC: read completions, host-side lanes
)

// transfer operations.
const (
	opRead       uint8 = iota + 1 // read request for one segment (n2h)
	opCompletion                  // read completion carrying <= 512 B of the segment (h2n)
	opWrite                       // write of <= 512 B of a received packet's payload (n2h)
)

var pcieTrace = [...]string{opRead: "read-at-host", opCompletion: "fetched", opWrite: "written"}

// xfer is one PCIe transfer, or (hdr = data = 0) an empty write entry (§5 [DC]).
type xfer struct {
	hdr, data  int32 // header part (34, + ReadRequestSize for a read) and payload part (§5 [DC])
	op         uint8
	last       bool  // last transfer of its segment or packet
	tc         uint8 // write: ingress pool to release on acceptance
	se         bool  // write: the packet ended a message
	qp         int32
	epoch      uint32
	seg        int64    // read/completion: segment index
	payload    int32    // the segment's or packet's whole payload
	charge     int32    // write: ingress charge released when the last transfer is accepted
	start, end sim.Time // accepted: when the link starts and ends its serialization
}

// pcieDir is one direction of the PCIe link with the sender end's TX buffers and the far
// end's RX buffers (§5 credit gating). Transfers wait in `wait` (unbounded) until the
// sender's TX header and data buffers accept them, one at a time in order; accepted
// transfers cross the link one at a time in FIFO order, and the far end takes each at once
// on arrival (no propagation delay, §5 [DC]).
//
// Closed form. The link is a FIFO server, so a transfer's start and end are fixed the
// moment it is accepted: start = max(end of the previous accepted transfer, acceptance
// time), end = start + its serialization time. Nothing needs an event except what someone
// can observe: the arrival of a segment's or packet's last transfer (a read at the host,
// a segment fetched, a packet written) and, while transfers wait for TX credit, each end
// that frees credit. So the direction keeps one timer at the next such moment and retires
// the transfers before it arithmetically. Uncontended, a 4 KiB packet costs one event on
// each side instead of eight; contended (a waiting queue), it is the transfer-by-transfer
// path, which `stepwise` forces everywhere (the reference the tests compare against).
//
// The far end's RX buffers never bind: at most one transfer is on the link, RX frees on
// arrival, so RX is empty whenever a transfer starts and fits() admits anything into an
// empty buffer. They are not tracked.
type pcieDir struct {
	dir                 int
	rateBps             float64
	txHdrCap, txDataCap int64
	txHdr, txData       int64 // TX buffer occupancy: accepted transfers not yet ended
	wait, acc           ring[xfer]
	marks               ring[sim.Time] // ends of the accepted transfers that need an event, in order
	tail                sim.Time       // end of the last accepted transfer (the link is free after it)
	timer               sim.TimerID    // KindPCIeDone at the next observable moment
	stepwise            bool           // an event at every transfer end (reference path)
	xfers, bytes        int64          // transfers and link bytes carried
	busyTime            sim.Time
}

// fits is the credit test of §5: room for x bytes in a buffer of capacity cap holding occ,
// or [DC] an oversize transfer into an empty buffer.
func fits(occ int64, x int32, cap int64) bool { return occ+int64(x) <= cap || occ == 0 }

// observable: the transfer's arrival has effects beyond freeing its TX credit.
func (d *pcieDir) observable(x *xfer) bool { return x.last || d.stepwise }

// pcieRead issues the read request of segment s of q (§5: one request of
// ReadRequestSize + 34 B per segment, whatever its length).
func (n *NIC) pcieRead(q *qp, s, payload int64) {
	n.n2h.wait.Push(xfer{op: opRead, hdr: int32(n.readReq + PCIeOverhead), qp: q.idx, epoch: q.epoch, seg: s, payload: int32(payload), last: true})
	n.pcieStep(&n.n2h, false)
}

// hostWrite queues the payload of an in-order data packet for host memory (§5): transfers
// of <= 512 B + 34 B through one FIFO for all TCs in arrival order; a 0-payload packet is
// one empty entry. The ingress charge is released when the last transfer is accepted into
// the NIC-side TX buffer.
func (n *NIC) hostWrite(q *qp, tc uint8, charge, payload int64, se bool) {
	if payload == 0 {
		n.n2h.wait.Push(xfer{op: opWrite, last: true, tc: tc, se: se, qp: q.idx, payload: 0, charge: int32(charge)})
	}
	for off := int64(0); off < payload; off += PCIeMaxPayload {
		chunk := min(PCIeMaxPayload, payload-off)
		n.n2h.wait.Push(xfer{op: opWrite, hdr: PCIeOverhead, data: int32(chunk), last: off+chunk == payload,
			tc: tc, se: se, qp: q.idx, payload: int32(payload), charge: int32(charge)})
	}
	n.pcieStep(&n.n2h, false)
}

// pcieDone is the direction's timer: an observable transfer end, or a credit-freeing end
// while transfers wait.
func (n *NIC) pcieDone(d *pcieDir) { n.pcieStep(d, true) }

// pcieStep brings direction d up to now: transfers that have ended leave the TX buffers
// (in FIFO order; an observable one only from its own event, atEvent, which runs its
// arrival effects), waiting transfers are accepted while they fit, and the timer is set
// to the next observable moment.
func (n *NIC) pcieStep(d *pcieDir, atEvent bool) {
	now := n.eng.Now()
	for d.acc.Len() > 0 {
		x := d.acc.Peek()
		if x.end > now {
			break
		}
		obs := d.observable(x)
		if obs && !atEvent {
			break // its event is due at this very time; it runs the arrival
		}
		v := d.acc.Pop()
		d.txHdr -= int64(v.hdr)
		d.txData -= int64(v.data)
		d.xfers++
		d.bytes += int64(v.hdr) + int64(v.data)
		if obs {
			d.marks.Pop()
			n.pcieArrived(d, &v)
		}
	}
	n.pcieAccept(d, now)
	n.pcieArm(d)
}

// pcieAccept moves waiting transfers into the TX buffers in order while they fit (§5);
// each gets its place on the link at once (closed form above).
func (n *NIC) pcieAccept(d *pcieDir, now sim.Time) {
	for d.wait.Len() > 0 {
		x := d.wait.Peek()
		if x.hdr == 0 && x.data == 0 {
			// §5 [DC]: an empty entry is accepted on reaching the head and never crosses.
			v := d.wait.Pop()
			n.pcieAccepted(d, &v)
			n.pcieArrived(d, &v)
			continue
		}
		if !fits(d.txHdr, x.hdr, d.txHdrCap) || !fits(d.txData, x.data, d.txDataCap) {
			break
		}
		v := d.wait.Pop()
		d.txHdr += int64(v.hdr)
		d.txData += int64(v.data)
		t := sim.SerializationNearest(int64(v.hdr)+int64(v.data), d.rateBps) // §0 [DC]: nearest ps per transfer
		v.start = max(d.tail, now)
		v.end = v.start + t
		d.tail = v.end
		d.busyTime += t
		d.acc.Push(v)
		if d.observable(&v) {
			d.marks.Push(v.end)
		}
		n.pcieAccepted(d, &v)
	}
}

// pcieArm sets the direction's timer to the next moment that needs an event: the head's
// end while transfers wait for credit, else the next observable end; none, stopped.
func (n *NIC) pcieArm(d *pcieDir) {
	var at sim.Time
	switch {
	case d.wait.Len() > 0 && d.acc.Len() > 0:
		at = d.acc.Peek().end
	case d.marks.Len() > 0:
		at = *d.marks.Peek()
	default:
		n.eng.Stop(d.timer)
		return
	}
	if !n.eng.Armed(d.timer) || n.eng.When(d.timer) != at {
		n.eng.Reset(d.timer, at)
	}
}

// pcieAccepted runs when a transfer enters its TX buffer.
func (n *NIC) pcieAccepted(d *pcieDir, x *xfer) {
	if x.op == opWrite && x.last {
		// §5: the packet's ingress charge is released when its last write is accepted.
		n.inRelease(int(x.tc), int64(x.charge))
	}
}

// pcieArrived runs when a transfer reaches the far end.
func (n *NIC) pcieArrived(d *pcieDir, x *xfer) {
	if n.trace != nil && x.last {
		n.trace(pcieTrace[x.op], 0, nil)
	}
	switch x.op {
	case opRead:
		// §5: the host answers at once; its completions queue without limit ahead of the
		// host TX buffer. [DC] a 0-byte segment gets one 34 B header-only completion.
		if x.payload == 0 {
			n.h2n.wait.Push(xfer{op: opCompletion, hdr: PCIeOverhead, last: true, qp: x.qp, epoch: x.epoch, seg: x.seg})
		}
		for off := int32(0); off < x.payload; off += PCIeMaxPayload {
			chunk := min(PCIeMaxPayload, x.payload-off)
			n.h2n.wait.Push(xfer{op: opCompletion, hdr: PCIeOverhead, data: chunk, last: off+chunk == x.payload,
				qp: x.qp, epoch: x.epoch, seg: x.seg, payload: x.payload})
		}
		n.pcieStep(&n.h2n, false)
	case opCompletion:
		if x.last {
			n.segmentFetched(n.qps[x.qp], x.seg, int64(x.payload), x.epoch)
		}
	case opWrite:
		if x.last {
			n.writtenToHost(n.qps[x.qp], int64(x.payload), x.se)
		}
	}
}

// writtenToHost runs when a received packet's last write reaches host memory: goodput
// accounting, and for a message's last packet the "message received" notice (§8 [DC]).
func (n *NIC) writtenToHost(q *qp, payload int64, se bool) {
	n.cnt.PayloadDelivered += payload
	q.msgBytes += payload
	if n.OnDelivered != nil {
		n.OnDelivered(q.peerHost, payload)
	}
	if se {
		b := q.msgBytes
		q.msgBytes = 0
		n.cnt.MessagesReceived++
		if n.OnReceived != nil {
			n.OnReceived(q.peerHost, b)
		}
	}
}

// SetPCIeStepwise makes every PCIe transfer end an event: the transfer-by-transfer
// reference path. The default computes the ends that nobody observes in closed form (see
// pcieDir); tests run both and require identical results. Call it before the first Post.
func (n *NIC) SetPCIeStepwise(on bool) { n.n2h.stepwise, n.h2n.stepwise = on, on }
