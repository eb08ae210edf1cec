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
	hdr, data int32 // header part (34, + ReadRequestSize for a read) and payload part (§5 [DC])
	op        uint8
	last      bool  // last transfer of its segment or packet
	tc        uint8 // write: ingress pool to release on acceptance
	se        bool  // write: the packet ended a message
	qp        int32
	epoch     uint32
	seg       int64 // read/completion: segment index
	payload   int32 // the segment's or packet's whole payload
	charge    int32 // write: ingress charge released when the last transfer is accepted
}

// pcieDir is one direction of the PCIe link with the sender end's TX buffers and the far
// end's RX buffers (§5 credit gating). Transfers wait in `wait` (unbounded) until the
// sender's TX header and data buffers accept them, one at a time in order; accepted
// transfers go onto the link FIFO when it is idle and the far RX buffers can hold them
// (reserved at start, freed on arrival: the consumer takes them at once). No propagation
// delay (§5 [DC]).
type pcieDir struct {
	dir                 int
	rateBps             float64
	txHdrCap, txDataCap int64
	rxHdrCap, rxDataCap int64
	txHdr, txData       int64
	rxHdr, rxData       int64
	wait, acc           ring[xfer]
	busy                bool
	xfers, bytes        int64 // transfers and link bytes carried
	busyTime            sim.Time
}

// fits is the credit test of §5: room for x bytes in a buffer of capacity cap holding occ,
// or [DC] an oversize transfer into an empty buffer.
func fits(occ int64, x int32, cap int64) bool { return occ+int64(x) <= cap || occ == 0 }

// pcieRead issues the read request of segment s of q (§5: one request of
// ReadRequestSize + 34 B per segment, whatever its length).
func (n *NIC) pcieRead(q *qp, s, payload int64) {
	n.n2h.wait.Push(xfer{op: opRead, hdr: int32(n.readReq + PCIeOverhead), qp: q.idx, epoch: q.epoch, seg: s, payload: int32(payload), last: true})
	n.pcieAccept(&n.n2h)
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
	n.pcieAccept(&n.n2h)
}

// pcieAccept moves waiting transfers into the TX buffers in order while they fit (§5),
// then starts the link.
func (n *NIC) pcieAccept(d *pcieDir) {
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
		d.acc.Push(v)
		n.pcieAccepted(d, &v)
	}
	n.pcieStart(d)
}

// pcieStart puts the head accepted transfer on the link if it is idle and the far end's
// RX buffers can hold it (§5).
func (n *NIC) pcieStart(d *pcieDir) {
	if d.busy || d.acc.Len() == 0 {
		return
	}
	x := d.acc.Peek()
	if !fits(d.rxHdr, x.hdr, d.rxHdrCap) || !fits(d.rxData, x.data, d.rxDataCap) {
		return // cannot happen while RX frees on arrival; kept for the rule
	}
	d.rxHdr += int64(x.hdr)
	d.rxData += int64(x.data)
	d.busy = true
	t := sim.SerializationNearest(int64(x.hdr)+int64(x.data), d.rateBps) // §0 [DC]: nearest ps per transfer
	d.busyTime += t
	n.eng.After(t, KindPCIeDone, n.id.Dev, int16(d.dir), 0)
}

// pcieDone ends the head transfer's serialization: TX space frees, the far end takes the
// transfer at once (RX frees), and the next transfer may go.
func (n *NIC) pcieDone(d *pcieDir) {
	x := d.acc.Pop()
	d.busy = false
	d.txHdr -= int64(x.hdr)
	d.txData -= int64(x.data)
	d.rxHdr -= int64(x.hdr)
	d.rxData -= int64(x.data)
	d.xfers++
	d.bytes += int64(x.hdr) + int64(x.data)
	n.pcieArrived(d, &x)
	n.pcieAccept(d)
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
		n.pcieAccept(&n.h2n)
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
