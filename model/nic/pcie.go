package nic

import (
	"github.com/rocesweep/rocesweep/model/internal/ring"
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

// xfer is a run of PCIe transfers of one segment or packet (§5 [DC]): a read request is
// one transfer of ReadRequestSize + 34 B; the completions of a segment and the writes of
// a packet are transfers i = 0, 1, ... of min(512, payload - 512 i) B behind a 34 B
// header (a 0-byte segment: one header-only completion). A 0-byte packet's write is an
// empty entry (total = 0). One entry stands for the whole run while it waits; it is split
// only where TX credit runs out in the middle of it. A run of n transfers costs one entry
// instead of n, which is most of a large fabric's memory.
type xfer struct {
	seg      int64    // read/completion: segment index
	end      sim.Time // accepted: when transfer to-1 ends (its start follows: start())
	qp       int32
	epoch    uint32
	payload  int32 // the segment's or packet's whole payload
	charge   int32 // write: ingress charge released when the last transfer is accepted
	from, to int16 // transfers [from, to) of the run are in this entry
	total    int16 // transfers of the whole segment or packet (<= 18: MSS <= 9,216); to == total: it ends it
	op       uint8
	tc       uint8 // write: ingress pool to release on acceptance
	se       bool  // write: the packet ended a message
	// quiet: a read whose arrival at the host was run when it was accepted (its
	// completions are queued ahead, pcieCompleteAhead): it has no mark and no event.
	quiet bool
}

// final: the entry holds the last transfer of its segment or packet, whose arrival is
// what the rest of the NIC sees.
func (x *xfer) final() bool { return x.to == x.total }

// start is when the accepted entry's first transfer starts on the link: its transfers
// go back to back up to end.
func (d *pcieDir) start(x *xfer) sim.Time { return x.end - d.serOf(x, x.from, x.to) }

// pcieDir is one direction of the PCIe link with the sender end's TX buffers and the far
// end's RX buffers (§5 credit gating). Transfers wait in `wait` (unbounded) until the
// sender's TX header and data buffers accept them, one at a time in order; accepted
// transfers cross the link one at a time in FIFO order, and the far end takes each at once
// on arrival (no propagation delay, §5 [DC]).
//
// Closed form. The link is a FIFO server, so a transfer's start and end are fixed the
// moment it is accepted: start = max(end of the previous accepted transfer, acceptance
// time), end = start + its serialization time; the transfers accepted together go back
// to back. Nothing needs an event except what someone can observe: the arrival of a
// segment's or packet's last transfer (a read at the host, a segment fetched, a packet
// written) and, while transfers wait for TX credit, each end that frees credit. So the
// direction keeps one timer at the next such moment and retires the transfers before it
// arithmetically. Uncontended, a 4 KiB packet costs one PCIe event on each side instead
// of eight; contended (a waiting queue), it is the transfer-by-transfer path, which
// `stepwise` forces everywhere (the reference the tests compare against).
//
// The far end's RX buffers never bind: at most one transfer is on the link, RX frees on
// arrival, so RX is empty whenever a transfer starts and fits() admits anything into an
// empty buffer. They are not tracked.
type pcieDir struct {
	readSer             sim.Time // serialization of a read request
	fullSer             sim.Time // serialization of a full 512 B + 34 B transfer
	txHdrCap, txDataCap int64
	txHdr, txData       int64    // TX buffer occupancy: accepted transfers not yet ended
	tail                sim.Time // end of the last accepted transfer (the link is free after it)
	armedAt             sim.Time // when timer is armed for (sim.Never: not armed); the engine knows too, but this is read on every step
	wait, acc           ring.Ring[xfer]
	marks               ring.Ring[sim.Time] // ends of the accepted entries that end a segment or packet, in order
	memoSer             sim.Time            // ser's serialization of memoBytes
	rateBps             float64
	readHdr             int32       // header part of a read request: ReadRequestSize + 34
	timer               sim.TimerID // KindPCIeDone at the next moment that needs an event
	// readsDue counts the accepted read requests (n2h) whose arrival at the host is still
	// to run at their own event: while any is, no later read may queue its completions
	// ahead (they would overtake its completions).
	readsDue  int32
	memoBytes uint16 // ser's last short transfer size (0: none yet)
	stepwise  bool   // an event at every transfer end (reference path)
}

// size is transfer i of x: its header and payload parts (§5 [DC]).
func (d *pcieDir) size(x *xfer, i int16) (hdr, data int32) {
	if x.op == opRead {
		return d.readHdr, 0
	}
	return PCIeOverhead, max(0, min(PCIeMaxPayload, x.payload-int32(i)*PCIeMaxPayload))
}

// ser is transfer i's serialization time, nearest ps per transfer (§0 [DC]). A short last
// transfer's time is remembered per payload size (memoBytes), as a run of equal packets
// asks for the same one again and again.
func (d *pcieDir) ser(x *xfer, i int16) sim.Time {
	if x.op == opRead {
		return d.readSer
	}
	h, p := d.size(x, i)
	if p == PCIeMaxPayload {
		return d.fullSer
	}
	b := int64(h) + int64(p)
	if b != int64(d.memoBytes) {
		d.memoBytes, d.memoSer = uint16(b), sim.SerializationNearest(b, d.rateBps)
	}
	return d.memoSer
}

// bytesOf is the header and payload bytes of transfers [a, b) of x, in closed form:
// every transfer but the segment's last carries 512 B.
func (d *pcieDir) bytesOf(x *xfer, a, b int16) (hdr, data int64) {
	if x.op == opRead {
		return int64(b-a) * int64(d.readHdr), 0
	}
	lo := min(int64(x.payload), int64(a)*PCIeMaxPayload)
	hi := min(int64(x.payload), int64(b)*PCIeMaxPayload)
	return int64(b-a) * PCIeOverhead, hi - lo
}

// serOf is the serialization time of transfers [a, b) of x back to back: b-a full
// transfers, except that the segment's last one may be shorter.
func (d *pcieDir) serOf(x *xfer, a, b int16) sim.Time {
	if b == x.total {
		return sim.Time(b-a-1)*d.fullSer + d.ser(x, b-1)
	}
	return sim.Time(b-a) * d.fullSer
}

// fits is the credit test of §5: room for x bytes in a buffer of capacity cap holding occ,
// or [DC] an oversize transfer into an empty buffer.
func fits(occ int64, x int32, cap int64) bool { return occ+int64(x) <= cap || occ == 0 }

// transfers is how many transfers a segment or packet of payload bytes takes (§5).
func transfers(payload int64) int16 { return int16(max(1, (payload+PCIeMaxPayload-1)/PCIeMaxPayload)) }

// pcieRead issues the read request of segment s of q (§5: one request of
// ReadRequestSize + 34 B per segment, whatever its length).
func (n *NIC) pcieRead(q *qp, s, payload int64) {
	var x xfer // fields set one by one: see pcieEnqueue
	x.op, x.qp, x.epoch, x.seg, x.payload, x.to, x.total = opRead, q.idx, q.epoch, s, int32(payload), 1, 1
	n.pcieEnqueue(&n.n2h, &x)
}

// hostWrite queues the payload of an in-order data packet for host memory (§5): transfers
// of <= 512 B + 34 B through one FIFO for all TCs in arrival order; a 0-payload packet is
// one empty entry. The ingress charge is released when the last transfer is accepted into
// the NIC-side TX buffer.
func (n *NIC) hostWrite(q *qp, tc uint8, charge, payload int64, se bool) {
	k := transfers(payload)
	if payload == 0 {
		k = 0
	}
	var x xfer // fields set one by one: see pcieEnqueue
	x.op, x.tc, x.se, x.qp, x.payload, x.charge, x.to, x.total = opWrite, tc, se, q.idx, int32(payload), int32(charge), k, k
	n.pcieEnqueue(&n.n2h, &x)
}

// pcieEnqueue queues the whole segment or packet x behind d's waiting transfers and
// brings d up to now: the same as pushing it on wait and stepping, with a shortcut for
// the common case that nothing waits and x fits the TX buffers as it is: it is accepted
// at once, without passing through wait. x is the caller's, its fields set one by one
// (var x; x.f = ...): a composite literal was built in a temporary (a template's copy,
// then the fields) and copied from there 16 bytes at a time at once, and again to the
// call's arguments, loads the processor cannot forward from the field stores before
// them (it waits for those to reach the cache: 88% of pcieRead's time).
func (n *NIC) pcieEnqueue(d *pcieDir, x *xfer) {
	// Quiet reads have no event to take them off the link: those that have ended leave
	// here, while the ring's head is still in cache (their credit frees as a lazy
	// retirement would free it, see pcieStep).
	n.pcieRetireQuiet(d)
	if d.wait.Len() == 0 && !d.stepwise && x.total > 0 {
		h, p := d.bytesOf(x, 0, x.total)
		if d.txHdr+h <= d.txHdrCap && d.txData+p <= d.txDataCap {
			d.txHdr += h
			d.txData += p
			x.end = max(d.tail, n.eng.Now()) + d.serOf(x, 0, x.total)
			d.tail = x.end
			if x.op == opRead {
				n.pcieReadAccepted(x)
			}
			d.acc.Push(*x)
			if !x.quiet {
				d.marks.Push(x.end) // x holds its last transfer: it is final
			}
			n.pcieAccepted(d, x)
			n.pcieArmMark(d) // nothing waits: pcieArm's second case
			return
		}
	}
	d.wait.Push(*x)
	n.pcieStep(d, false)
}

// pcieDone is the direction's timer: a segment or packet's last transfer arrives, or (while
// transfers wait, or stepwise) a transfer ends.
//
// The common case takes a shortcut: nothing waits and the event is the end of the head
// entry, which holds a whole segment or packet. Then the step would only retire that
// entry and run its arrival (what follows it ends later, and its credit is retired
// lazily, see pcieStep), so that is all it does.
func (n *NIC) pcieDone(d *pcieDir) {
	d.armedAt = sim.Never // the timer has fired
	n.pcieRetireQuiet(d)
	if d.wait.Len() == 0 && !d.stepwise && d.acc.Len() > 0 {
		if x := d.acc.Peek(); x.from == 0 && x.final() && x.end == n.eng.Now() {
			// The copy first: retire writes x.from, and a 16-byte load of the copy
			// across that 2-byte store could not be forwarded from it (a stall, half of
			// this function's time); v.from is then set as retire leaves it.
			v := *x
			d.retire(x, x.to)
			v.from = x.from
			d.acc.Drop()
			d.marks.Drop()
			n.pcieArrived(d, &v)
			if d.wait.Len() == 0 { // the arrival may have queued more
				n.pcieArmMark(d)
			} else {
				n.pcieArm(d)
			}
			return
		}
	}
	n.pcieStep(d, true)
}

// pcieStep brings direction d up to now: transfers that have ended leave the TX buffers
// in FIFO order (a segment's or packet's last one only from its own event, atEvent,
// which runs its arrival), waiting transfers are accepted while they fit, and the timer
// is set to the next moment that needs an event.
//
// Outside its own events (atEvent false) a step retires lazily: ended transfers only free
// TX credit, which nothing but acceptance reads, so they are retired only when a waiting
// transfer does not fit without them (or stepwise, whose timer follows the head transfer).
// Acceptance then sees exactly the credit an eager retirement would have freed.
func (n *NIC) pcieStep(d *pcieDir, atEvent bool) {
	now := n.eng.Now()
	retired := false
	if (atEvent || d.stepwise) && d.acc.Len() > 0 {
		n.pcieRetire(d, now, atEvent)
		retired = true
	}
	if d.wait.Len() > 0 {
		n.pcieAccept(d, now, retired)
	}
	n.pcieArm(d)
}

// pcieRetire takes the transfers that have ended by now off the link, in FIFO order (a
// segment's or packet's last one only from its own event, atEvent, which runs its arrival).
func (n *NIC) pcieRetire(d *pcieDir, now sim.Time, atEvent bool) {
	for d.acc.Len() > 0 {
		x := d.acc.Peek()
		k := d.ended(x, now)
		if k == 0 {
			break
		}
		if x.from+k == x.to && x.final() && !x.quiet && !atEvent {
			k-- // its event is due at this very time and runs the arrival
		}
		d.retire(x, k)
		if x.from < x.to {
			break // the rest of the entry is still on the link
		}
		v := d.acc.Pop()
		if v.final() && !v.quiet {
			d.marks.Drop()
			n.pcieArrived(d, &v)
		}
	}
}

// pcieRetireQuiet takes the quiet reads at the head of d that have ended by now off the
// link (their arrival has run already, pcieCompleteAhead), so that the head is an entry
// whose own event may be due (the shortcut of pcieDone then applies) and the ring holds
// no more quiet reads than are on the link or behind an entry that is.
func (n *NIC) pcieRetireQuiet(d *pcieDir) {
	for d.acc.Len() > 0 {
		x := d.acc.Peek()
		if !x.quiet || x.end > n.eng.Now() {
			return
		}
		d.retire(x, x.to-x.from)
		d.acc.Drop()
	}
}

// ended is how many transfers of the accepted entry x have ended by now. All but the
// segment's or packet's last transfer are full-size, so they end every fullSer.
func (d *pcieDir) ended(x *xfer, now sim.Time) int16 {
	n := x.to - x.from
	if x.end <= now {
		return n
	}
	if n == 1 {
		return 0
	}
	start := d.start(x)
	if now < start+d.fullSer {
		return 0
	}
	return min(n-1, int16((now-start)/d.fullSer))
}

// retire takes the first k transfers of the accepted entry x off the link: their TX
// credit frees and the entry's start moves to the next one.
func (d *pcieDir) retire(x *xfer, k int16) {
	if k == 0 {
		return
	}
	h, p := d.bytesOf(x, x.from, x.from+k)
	d.txHdr -= h
	d.txData -= p
	x.from += k // the end stays; start() moves with from
}

// pcieAccept moves waiting transfers into the TX buffers in order while they fit (§5);
// each gets its place on the link at once (closed form above).
func (n *NIC) pcieAccept(d *pcieDir, now sim.Time, retired bool) {
	for d.wait.Len() > 0 {
		x := d.wait.Peek()
		if x.total == 0 {
			// §5 [DC]: an empty entry is accepted on reaching the head and never crosses.
			v := d.wait.Pop()
			n.pcieAccepted(d, &v)
			n.pcieArrived(d, &v)
			continue
		}
		run := *x
		start := max(d.tail, now)
		k := x.to
		h, p := d.bytesOf(x, x.from, x.to)
		if !retired && (d.txHdr+h > d.txHdrCap || d.txData+p > d.txDataCap) {
			n.pcieRetire(d, now, false) // lazy retirement: the credit of what has ended
			retired = true
		}
		if d.txHdr+h <= d.txHdrCap && d.txData+p <= d.txDataCap {
			// The whole run fits: then each of its transfers fits in turn.
			d.txHdr += h
			d.txData += p
		} else {
			for k = x.from; k < x.to; k++ {
				h, p := d.size(x, k)
				if !fits(d.txHdr, h, d.txHdrCap) || !fits(d.txData, p, d.txDataCap) {
					break
				}
				d.txHdr += int64(h)
				d.txData += int64(p)
			}
			if k == x.from {
				break
			}
		}
		run.end = start + d.serOf(x, x.from, k)
		run.to = k
		d.tail = run.end
		if run.op == opRead {
			n.pcieReadAccepted(&run)
		}
		d.acc.Push(run)
		if run.final() && !run.quiet {
			d.marks.Push(run.end)
		}
		if k < x.to {
			x.from = k // the rest waits for credit
			break
		}
		d.wait.Drop()
		n.pcieAccepted(d, &run)
	}
}

// pcieArm sets the direction's timer to the next moment that needs an event: the next
// transfer end while transfers wait for credit (or stepwise), else the next end of a
// segment's or packet's last transfer; none, stopped.
func (n *NIC) pcieArm(d *pcieDir) {
	if d.acc.Len() == 0 || (d.wait.Len() == 0 && !d.stepwise) {
		n.pcieArmMark(d)
		return
	}
	x := d.acc.Peek()
	n.pcieSetTimer(d, d.start(x)+d.ser(x, x.from))
}

// pcieArmMark is pcieArm when nothing waits and not stepwise: the timer goes to the
// next end of a segment's or packet's last transfer, if any.
func (n *NIC) pcieArmMark(d *pcieDir) {
	if d.marks.Len() == 0 {
		if d.armedAt != sim.Never {
			n.eng.Stop(d.timer)
			d.armedAt = sim.Never
		}
		return
	}
	n.pcieSetTimer(d, *d.marks.Peek())
}

// pcieSetTimer arms d's timer for at, unless it is armed for at already.
func (n *NIC) pcieSetTimer(d *pcieDir, at sim.Time) {
	if at != d.armedAt {
		n.eng.Reset(d.timer, at)
		d.armedAt = at
	}
}

// completionOf is the run of read completions that answers read request x (§5; [DC] a
// 0-byte segment gets one 34 B header-only completion).
func completionOf(c, x *xfer) {
	k := transfers(int64(x.payload))
	c.op, c.qp, c.epoch, c.seg, c.payload, c.to, c.total = opCompletion, x.qp, x.epoch, x.seg, x.payload, k, k
}

// pcieReadAccepted runs when read request x enters the NIC-side TX buffer, its end (its
// arrival at the host) known: it queues the read's completions on the host side ahead of
// time when that is what the arrival would do (pcieCompleteAhead), which makes x quiet;
// else x's arrival runs at its own event.
func (n *NIC) pcieReadAccepted(x *xfer) {
	if n.pcieCompleteAhead(x) {
		x.quiet = true
		return
	}
	n.n2h.readsDue++
}

// pcieCompleteAhead queues the completions of read request x, accepted and ending at
// x.end, on the host side now, as its arrival at x.end would (§5: the host answers at
// once), when the outcome is known now: the completions are accepted at x.end, start
// at max(tail, x.end) and take their place on the link, exactly as at the arrival. It is
// known when every earlier read's completions are on the host side already (no read
// waits for its own arrival event: nothing else can queue there before x.end), nothing
// waits there, and the completions fit the host TX buffers as they are now: their
// occupancy at x.end can only be lower (transfers end, none but these are accepted).
// Then the read's arrival needs no event of its own: one event per segment fewer. It
// reports false, leaving the arrival to its event, otherwise, on the stepwise reference
// path, and for a traced NIC (tests see "read-at-host" at its time).
func (n *NIC) pcieCompleteAhead(x *xfer) bool {
	d := &n.h2n
	if d.stepwise || n.n2h.readsDue > 0 || d.wait.Len() > 0 || n.trace != nil {
		return false
	}
	var c xfer
	completionOf(&c, x)
	h, p := d.bytesOf(&c, 0, c.total)
	if d.txHdr+h > d.txHdrCap || d.txData+p > d.txDataCap {
		return false
	}
	d.txHdr += h
	d.txData += p
	c.end = max(d.tail, x.end) + d.serOf(&c, 0, c.total)
	d.tail = c.end
	d.acc.Push(c)
	d.marks.Push(c.end)
	n.pcieArmMark(d)
	return true
}

// pcieAccepted runs when (the rest of) a segment or packet enters its TX buffer.
func (n *NIC) pcieAccepted(d *pcieDir, x *xfer) {
	if x.op == opWrite && x.final() {
		// §5: the packet's ingress charge is released when its last write is accepted,
		// and only this release runs the Xon test (§12.2).
		n.inReleaseToHost(int(x.tc), int64(x.charge))
		if x.se && n.OnHostAccepted != nil {
			// The message's last byte is handed to the host interface (nic.md §5).
			q := &n.qps[x.qp]
			n.OnHostAccepted(q.peerHost, q.peerQPN)
		}
	}
}

// pcieArrived runs when the last transfer of a segment or packet reaches the far end.
func (n *NIC) pcieArrived(d *pcieDir, x *xfer) {
	if n.trace != nil {
		n.trace(pcieTrace[x.op], 0, nil)
	}
	switch x.op {
	case opRead:
		// §5: the host answers at once; its completions queue without limit ahead of the
		// host TX buffer. [DC] a 0-byte segment gets one 34 B header-only completion.
		n.n2h.readsDue--
		var c xfer
		completionOf(&c, x)
		n.pcieEnqueue(&n.h2n, &c)
	case opCompletion:
		n.segmentFetched(&n.qps[x.qp], x.seg, int64(x.payload), x.epoch)
	case opWrite:
		n.writtenToHost(&n.qps[x.qp], int64(x.payload), x.se)
	}
}

// writtenToHost runs when a received packet's last write reaches host memory: goodput
// accounting, and for a message's last packet the "message received" notice (§8 [DC]).
func (n *NIC) writtenToHost(q *qp, payload int64, se bool) {
	n.cnt.PayloadDelivered += payload
	n.cnt.PayloadDeliveredTC[q.dataTC] += payload
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
