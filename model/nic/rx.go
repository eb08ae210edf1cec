package nic

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/pkt"
)

// Receive handles a frame arriving from the link (nic.md §8), strictly in the spec's order:
// PFC frames to the NIC node; TC from DSCP; the PFC emission check before admission;
// admission to the TC's ingress pool (drop when it does not fit); QP lookup; CNP for a
// CE mark; then ACK/NAK, CNP or the data PSN check. The NIC frees the frame when done.
func (n *NIC) Receive(h pkt.Handle) {
	p := n.pool.Get(h)
	n.cnt.RxFrames++
	n.cnt.RxBytes += wireBytes(p)
	// 1. PFC frame: handled by the NIC node, never charged (§12.3).
	if p.Type == pkt.Pfc {
		n.honourPFC(p)
		n.pool.Free(h)
		return
	}
	// 2. TC = DSCP / 8.
	tc := p.TC() & 7
	charge := int64(p.Size) // wire - 18 (§6)
	// 3. PFC emission check before admission (§12.1).
	if n.pfcEnable[tc] && n.lim[tc].ingress > 0 {
		n.pfcCheck(tc, charge)
	}
	// 4. Admission: occupancy + charge <= pool, else drop; no pool drops everything [DC].
	if n.inOcc[tc]+charge > n.lim[tc].ingress {
		n.cnt.RxDrops++
		if n.bs != nil {
			n.bs.drops[tc]++
		}
		n.pool.Free(h)
		return
	}
	n.inOcc[tc] += charge
	n.sampleIn(tc, charge)
	if p.Type == pkt.Data {
		n.receiveData(h, p, tc, charge)
		return
	}
	// 5. QP lookup by BTH destination QPN (control packets never create QPs, §3 [DC]).
	i := int(p.DestQP) - 1
	if i < 0 || i >= len(n.qps) {
		n.roce.RxDropsNoQpCtrl++
		n.inRelease(tc, charge)
		n.pool.Free(h)
		return
	}
	q := &n.qps[i]
	// 6. CE applies to data only: control frames are Not-ECT, so no switch marks them.
	// 7. ACK/NAK -> §10; CNP -> §13. Released right after processing.
	switch p.Type {
	case pkt.Ack:
		n.onAck(q, p.PSN, p.SrcQP)
	case pkt.Nak:
		n.onNak(q, p.PSN, p.SrcQP)
	case pkt.Cnp:
		n.roce.CnpRecvd++
		if q.peerQPN == 0 {
			q.peerQPN = p.SrcQP
		}
		n.onCNP(q)
	default:
		panic(fmt.Sprintf("nic %s: received frame of type %v", n.id.Name, p.Type))
	}
	n.inRelease(tc, charge)
	n.pool.Free(h)
}

// responder returns the responder QP for data from (src host, src QPN), creating it on the
// first data packet with the TC pair of the packet's metadata (§3 [DC]). The BTH
// destination QPN names it directly once the requester has learnt it from an ACK, NAK or
// CNP; before that (the first round trip) the QP is found by a short scan of the QPs of
// that source host. Memory grows with the QPs that exist, not with hosts × QPNs.
func (n *NIC) responder(p *pkt.Packet) *qp {
	if i := int(p.DestQP) - 1; i >= 0 && i < len(n.qps) {
		if q := &n.qps[i]; !q.requester && q.peerHost == p.SrcHost && q.peerQPN == p.SrcQP {
			return q
		}
	}
	if p.SrcHost < 0 {
		panic(fmt.Sprintf("nic %s: data packet without a source host", n.id.Name))
	}
	// The responder QP of a source is unique (respIndex creates it once): the last one
	// looked up, if it matches, is the one the map holds.
	if i := n.lastResp; i >= 0 {
		if q := &n.qps[i]; q.peerHost == p.SrcHost && q.peerQPN == p.SrcQP {
			return q
		}
	}
	key := qpKey{p.SrcHost, int32(p.SrcQP)}
	if i, ok := n.respIndex[key]; ok {
		n.lastResp = i
		return &n.qps[i]
	}
	q := n.newQP(false, p.SrcHost, p.DataTC, p.CtrlTC)
	q.peerQPN = p.SrcQP
	n.respIndex[key] = q.idx
	n.lastResp = q.idx
	return q
}

// receiveData runs steps 5-7 for an admitted data packet (§8 PSN check).
func (n *NIC) receiveData(h pkt.Handle, p *pkt.Packet, tc int, charge int64) {
	// 5. Responder QP by (source host, source QPN): data creates it on first sight (§3).
	// Closed QPs do not exist in this model, so num_rx_drops_no_qp_data stays 0.
	q := n.responder(p)
	// 6. CE -> one CNP to the sending QP, regardless of this NIC's EnableECN.
	if p.ECN == pkt.CE {
		n.queueCNP(q)
	}
	n.roce.WritesRecvd++
	psn, se, payload := p.PSN, p.SE, int64(p.Payload)
	n.pool.Free(h)
	switch {
	case psn == q.expected:
		// Accept: E++, clear the gap flag, queue the host write (§5), ACK rules (§9).
		q.expected++
		q.gap = false
		n.written += payload
		n.hostWrite(q, uint8(tc), charge, payload, se)
		n.ackRules(q, se)
	case psn < q.expected:
		// Duplicate: count, ACK rules, no host write, release.
		n.roce.Duplicate++
		n.ackRules(q, se)
		n.inRelease(tc, charge)
	default:
		// Gap: one NAK naming E per gap; drop held ACK state; discard everything past it.
		if !q.gap {
			n.queueAck(q, pkt.Nak, q.expected)
			q.gap = true
			n.roce.SeqOutOfOrder++
			q.held = 0
			n.eng.Stop(q.ackTimer)
		}
		n.roce.RxDropsAfterNak++
		n.inRelease(tc, charge)
	}
}

// ackRules applies ACK coalescing to an in-order or duplicate data packet (§9; [DC]
// duplicates count like in-order packets). ACKs name E-1.
func (n *NIC) ackRules(q *qp, se bool) {
	if !n.coalesce {
		n.queueAck(q, pkt.Ack, q.expected-1)
		return
	}
	now := n.eng.Now()
	switch {
	case se:
		n.queueAck(q, pkt.Ack, q.expected-1)
		q.held = 0
		n.eng.Reset(q.ackTimer, now+n.ackDelay)
	case q.held < n.ackThresh:
		q.held++
		if !n.eng.Armed(q.ackTimer) {
			n.eng.Reset(q.ackTimer, now+n.ackDelay)
		}
	default:
		n.queueAck(q, pkt.Ack, q.expected-1)
		q.held = 0
		n.eng.Reset(q.ackTimer, now+n.ackDelay)
	}
}

// ackTimerExpired: held packets are acknowledged; [DC] the timer then stays idle (§9).
func (n *NIC) ackTimerExpired(q *qp) {
	if q.held > 0 {
		n.queueAck(q, pkt.Ack, q.expected-1)
		q.held = 0
	}
}

// inRelease frees bytes of ingress pool tc (§11) that do not go to the host: a
// processed control packet, a duplicate, a discard. It runs no Xon test (§12.2: only
// data accepted toward the host does).
func (n *NIC) inRelease(tc int, bytes int64) {
	n.inOcc[tc] -= bytes
	if n.inOcc[tc] < 0 {
		panic(fmt.Sprintf("nic.md §11: NIC %s ingress pool %d occupancy %d < 0 at %v", n.id.Name, tc, n.inOcc[tc], n.eng.Now()))
	}
	n.sampleIn(tc, -bytes)
}

// inReleaseToHost frees the charge of a received data packet whose host write the PCIe
// transmit buffer has accepted (§5), and runs the early resume of §12.2: a pause
// outstanding for tc and occupancy at or below Xon send XON at once and stop the
// refresh.
func (n *NIC) inReleaseToHost(tc int, bytes int64) {
	n.inRelease(tc, bytes)
	if n.pauseOut[tc] && n.inOcc[tc] <= n.lim[tc].xon {
		n.queuePFC(tc, 0)
		n.eng.Stop(n.refreshTimer[tc])
		n.pauseOut[tc] = false
	}
}
