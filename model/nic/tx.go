package nic

import (
	"math/bits"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// L3 sizes of the frames the NIC builds (nic.md §6): Packet.Size is the frame without
// Ethernet header and FCS, so Wire() adds 18.
const (
	ackL3 = pkt.AckWire - pkt.EthOverhead // 108: 64 + 4 AETH + 12 BTH + 8 UDP + 20 IPv4
	cnpL3 = pkt.CnpWire - pkt.EthOverhead // 104
	pfcL3 = pkt.PfcWire - pkt.EthOverhead // 66: Wire() = 84
)

type schedMode uint8

const (
	schedSP schedMode = iota
	schedRR
	schedWRR
)

// fillIP sets the IPv4/UDP fields of a frame from q toward its peer (§6): DSCP = TC × 8.
func (n *NIC) fillIP(p *pkt.Packet, q *qp, tc uint8) {
	p.DSCP = tc * 8
	p.Proto = pkt.ProtoUDP
	p.SPort = q.sport
	p.DPort = pkt.RoCEv2Port
	p.DestQP = q.peerQPN
	p.SrcQP = q.qpn
	p.SrcHost = n.host
	p.DstHost = q.peerHost
	p.DataTC = q.dataTC
	p.CtrlTC = q.ctrlTC
}

// segmentFetched runs when the last completion of segment s reaches the NIC (§5, §6). A
// payload read under an older epoch is stale and discarded before numbering, releasing
// its reservation (§10). Otherwise the transport numbers it (PSN = message base + segment
// index), starts the retransmission timer if no PSN was outstanding, and queues the frame
// in the data TC's egress queue.
func (n *NIC) segmentFetched(q *qp, s, payload int64, epoch uint32) {
	wire := payload + pkt.DataOverhead
	if epoch != q.epoch || !q.active {
		n.roce.TxPayloadDiscards++ // §10 rewind: stale payload
		n.egRelease(int(q.dataTC), wire)
		return
	}
	psn := q.msgBase + s
	if psn != q.nxt {
		panic("nic.md §10: fetched segment out of PSN order (model bug)")
	}
	now := n.eng.Now()
	if q.una == q.nxt { // §10: a PSN assigned to an empty window starts the timer
		n.eng.Reset(q.rtxTimer, now+n.rto)
	}
	q.nxt = psn + 1
	q.maxAssigned = max(q.maxAssigned, psn)
	h, p := n.pool.New()
	p.Type = pkt.Data
	n.fillIP(p, q, q.dataTC)
	if n.ecn {
		p.ECN = pkt.ECT0 // §6: ECT(0) on data when EnableECN
	}
	p.Size = uint16(payload + pkt.DataL3Extra)
	p.PSN = psn
	p.SE = s == q.msgSegs-1 // §4: solicited event on the message's last packet
	p.Payload = uint16(payload)
	p.Epoch = q.epoch
	// §16.1 [DC]: sent counters tick when the transport hands the packet down.
	n.roce.PktsSent++
	n.roce.VerbPktsSent++
	n.roce.RdmaWriteCnt++
	n.pushTx(int(q.dataTC), h)
	if n.trace != nil {
		n.trace("enq", h, p)
	}
	n.kick()
}

// queueAck builds an ACK (PSN E-1) or NAK (PSN E) of responder q (§9). It reserves 126 B
// in the control-TC egress pool, or waits in order for room (§6 [DC]). A control class
// whose egress pool cannot hold one ACK, none at all included, sends no ACK or NAK
// (§4, §6 [DC]): nothing is built, queued or counted, and the sender's retransmission
// timer is what moves its QP on (§10).
func (n *NIC) queueAck(q *qp, t pkt.Type, psn int64) {
	if n.lim[q.ctrlTC].egress < pkt.AckWire {
		return
	}
	h, p := n.pool.New()
	p.Type = t
	n.fillIP(p, q, q.ctrlTC)
	p.Size = ackL3
	p.PSN = psn
	n.roce.PktsSent++
	n.roce.NonVerbPktsSent++
	if t == pkt.Ack {
		n.roce.AcksSent++
	} else {
		n.roce.NacksSent++
	}
	tc := q.ctrlTC
	if n.ackWaiting&(1<<tc) == 0 && n.egOcc[tc]+pkt.AckWire <= n.lim[tc].egress {
		n.egOcc[tc] += pkt.AckWire
		n.sampleEg(int(tc), pkt.AckWire)
		n.pushTx(int(tc), h)
		if n.trace != nil {
			n.trace("enq", h, p)
		}
		n.kick()
		return
	}
	n.ackWait[tc].Push(h)
	n.ackWaiting |= 1 << tc
}

// retryAcks moves waiting ACK/NAK of control TC tc into its queue while the pool has room.
func (n *NIC) retryAcks(tc int) {
	if n.ackWaiting&(1<<tc) == 0 {
		return
	}
	moved := false
	for n.ackWait[tc].Len() > 0 && n.egOcc[tc]+pkt.AckWire <= n.lim[tc].egress {
		h := n.ackWait[tc].Pop()
		if n.ackWait[tc].Len() == 0 {
			n.ackWaiting &^= 1 << tc
		}
		n.egOcc[tc] += pkt.AckWire
		n.sampleEg(tc, pkt.AckWire)
		n.pushTx(int(tc), h)
		if n.trace != nil {
			n.trace("enq", h, n.pool.Get(h))
		}
		moved = true
	}
	if moved {
		n.kick()
	}
}

// queueCNP sends a CNP to the QP that sent a CE-marked packet (§8 step 6): dedicated
// queue, no pool, Not-ECT, DSCP = the QP's control TC × 8 (§6).
func (n *NIC) queueCNP(q *qp) {
	h, p := n.pool.New()
	p.Type = pkt.Cnp
	n.fillIP(p, q, q.ctrlTC)
	p.Size = cnpL3
	n.roce.PktsSent++
	n.roce.NonVerbPktsSent++
	n.roce.CnpSent++
	n.dedicated.Push(h)
	n.kick()
}

// queuePFC sends a PFC frame for class c with quanta q (0 = XON) through the dedicated
// queue (§6, §12).
func (n *NIC) queuePFC(c int, quanta int64) {
	h, p := n.pool.New()
	p.Type = pkt.Pfc
	p.Size = pfcL3
	p.SrcHost = n.host
	p.DstHost = -1
	p.PfcVector = 1 << c
	p.PfcQuanta = uint16(min(quanta, 65535))
	if quanta > 0 {
		n.pfc[c].xoffTx++
		n.cnt.PfcPauseTx++
	} else {
		n.pfc[c].xonTx++
		n.cnt.PfcXonTx++
	}
	n.dedicated.Push(h)
	n.kick()
}

// eligible: a TC with an egress pool, a frame queued and no received pause (§7).
func (n *NIC) eligible(c int) bool {
	return n.lim[c].egress > 0 && n.txq[c].Len() > 0 && !n.paused[c]
}

// nextPoolTC is the TC after c that has an egress pool, wrapping (§7 WRR turn order).
func (n *NIC) nextPoolTC(c int) int {
	for i := 1; i <= 8; i++ {
		d := (c + i) & 7
		if n.lim[d].egress > 0 {
			return d
		}
	}
	return c
}

// pick chooses the TC that sends next by egress QueueSchedulingType (§7), or -1.
func (n *NIC) pick() int {
	switch n.schedMode {
	case schedRR:
		// One frame per TC, scanning from the TC after the last served, wrapping.
		for i := 1; i <= 8; i++ {
			c := (n.rrLast + i) & 7
			if n.eligible(c) {
				n.rrLast = c
				return c
			}
		}
		return -1
	case schedWRR:
		// §7 [DC]: scan at most n TCs from cur; the holder sends up to w[cur] frames; an
		// empty or paused holder loses the rest of its turn; weight 0 is never served.
		start := n.wrrCur
		for i := 0; i < n.nEgPools; i++ {
			c := n.wrrCur
			if n.eligible(c) && n.wrrUsed < n.wrrWeight[c] {
				n.wrrUsed++
				if n.wrrUsed == n.wrrWeight[c] {
					n.wrrCur, n.wrrUsed = n.nextPoolTC(c), 0
				}
				return c
			}
			n.wrrCur, n.wrrUsed = n.nextPoolTC(c), 0
		}
		n.wrrCur, n.wrrUsed = start, 0 // fruitless scan: idle with cur at its start
		return -1
	default:
		// StrictPriority: highest-numbered eligible TC, over the TCs that hold frames.
		for m := n.txqQueued; m != 0; {
			c := bits.Len8(m) - 1
			m &^= 1 << c
			if n.lim[c].egress > 0 && !n.paused[c] {
				return c
			}
		}
		return -1
	}
}

// pushTx queues frame h in TC tc's egress queue.
func (n *NIC) pushTx(tc int, h pkt.Handle) {
	n.txq[tc].Push(h)
	n.txqQueued |= 1 << tc
}

// popTx takes the head frame of TC c's egress queue, which must not be empty.
func (n *NIC) popTx(c int) pkt.Handle {
	h := n.txq[c].Pop()
	if n.txq[c].Len() == 0 {
		n.txqQueued &^= 1 << c
	}
	return h
}

// kick starts the next frame if the port is free (§7): the dedicated queue first, then a
// TC by the scheduler. A congested QP's data serializes at max(Rc, F), everything else at
// L (§6, §13); the port stays busy for the frame's whole serialization.
func (n *NIC) kick() {
	if n.txBusy {
		return
	}
	var h pkt.Handle
	if n.dedicated.Len() > 0 {
		h = n.dedicated.Pop()
	} else {
		c := n.pick()
		if c < 0 {
			return
		}
		h = n.popTx(c)
	}
	p := n.pool.Get(h)
	rate := n.L
	if p.Type == pkt.Data {
		if q := &n.qps[p.SrcQP-1]; q.cc.congested {
			rate = max(q.cc.rc, n.dc.floor)
		}
	}
	if n.trace != nil {
		n.trace("start", h, p)
	}
	n.txBusy, n.txCur = true, h
	// The NIC's own transmit clock sets the frame's pace (clk = 1 + offset, ClockTolerancePpm).
	n.eng.After(sim.SerializationNearest(wireBytes(p), rate*n.clk), KindTxDone, n.id.Dev, 0, 0)
}

// txDone ends the current frame's serialization (§6): its egress reservation is released,
// and the frame goes on the link, reaching the peer Delay later.
func (n *NIC) txDone() {
	h := n.txCur
	p := n.pool.Get(h)
	now := n.eng.Now()
	wire := wireBytes(p)
	n.cnt.TxFrames++
	n.cnt.TxBytes += wire
	p.Sent = int64(now)
	switch p.Type {
	case pkt.Data:
		n.cnt.DataFramesSent++
		n.cnt.DataPayloadSent += int64(p.Payload)
		q := &n.qps[p.SrcQP-1]
		if s := p.PSN - q.msgBase; q.active && s >= 0 && s < q.msgSegs {
			q.sentAt.set(p.PSN, q.una, now) // §10 RTT [DC]: latest transmission of the PSN
		}
		q.cc.p++ // §13 [DC]: P counted at serialization end
		n.out.Send(n.eng, n.leave(now, wire), h, wire)
		n.txBusy, n.txCur = false, 0
		n.egRelease(int(p.DSCP>>3), wire)
	case pkt.Ack, pkt.Nak:
		n.out.Send(n.eng, n.leave(now, wire), h, wire)
		n.txBusy, n.txCur = false, 0
		n.egRelease(int(p.DSCP>>3), wire)
	default: // CNP, PFC: no pool
		n.out.Send(n.eng, n.leave(now, wire), h, wire)
		n.txBusy, n.txCur = false, 0
	}
	n.kick()
}

// leave returns when a frame of wire bytes whose serialisation ended at now leaves the
// port: now, or with TxJitter a uniform [0, TxJitter) later, but never sooner after the
// previous frame than its own serialisation at line rate (frames keep their wire spacing
// and order). The NIC serialises the next frame meanwhile, so its rate is unchanged and
// the delay stays below TxJitter.
func (n *NIC) leave(now sim.Time, wire int64) sim.Time {
	if n.txJitter == 0 {
		return now
	}
	t := now + sim.Time(n.jitRng.Int64N(n.txJitter))
	if n.lastOut > 0 {
		t = max(t, n.lastOut+sim.SerializationNearest(wire, n.L*n.clk))
	}
	n.lastOut = t
	return t
}

// wireBytes is a frame's size on the wire as the NIC counts it: L3 size + 18 (nic.md §6,
// §17: a 0 B data packet is a 58 B frame). Unlike pkt.Packet.Wire it does not pad to the
// 64 B Ethernet minimum: the NIC spec charges and serializes the unpadded size.
func wireBytes(p *pkt.Packet) int64 { return int64(p.Size) + pkt.EthOverhead }
