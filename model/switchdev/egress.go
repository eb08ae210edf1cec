package switchdev

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/internal/invariants"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// trimmedL3 is the L3 length of a trimmed packet: 20 B IPv4 + 8 B UDP + 16 B of transport
// header (switch.md §6.3, DC-12); charged at least 46 B like any frame.
const trimmedL3 = 20 + 8 + 16

// limitForm is Buffer.LimitForm (switch.md §4.4) resolved once in New, so that the lossy
// test of §5.3 compares a byte per packet, not a string.
type limitForm uint8

const (
	limitEvenSplit limitForm = iota // LimitEvenSplit: floor(poolSize / N) per port
	limitFixedCap                   // LimitFixedCap: QueueDropThreshold × PlaneBDP (UET: B)
	limitDynamic                    // LimitDynamic: LossyAlpha × (poolSize − egTotal)
)

// parseLimitForm resolves a Buffer.LimitForm name.
func parseLimitForm(name string) (limitForm, error) {
	switch name {
	case LimitEvenSplit:
		return limitEvenSplit, nil
	case LimitFixedCap:
		return limitFixedCap, nil
	case LimitDynamic:
		return limitDynamic, nil
	}
	return 0, fmt.Errorf("switch: egress limit form %q is none of %q, %q, %q (switch.md §4.4)", name, LimitDynamic, LimitEvenSplit, LimitFixedCap)
}

// egressLimitExceeded is the lossy test of §5.3: over the port's limit L (§4.4) or over the
// pool's egress capacity. "Exceeded" is strictly greater.
func (s *Switch) egressLimitExceeded(e int, pl int, b int64, retx bool) bool {
	q := s.ports[e].eg(pl).egQ
	if s.pools[pl].egTotal+b > s.fp.pool[pl].size {
		return true
	}
	if s.fp.limit == limitDynamic {
		// Dynamic: LossyAlpha × (poolSize − egTotal) in float64, per packet, before it is counted.
		return float64(q+b) > s.fp.alpha*float64(s.fp.pool[pl].size-s.pools[pl].egTotal)
	}
	L := s.fp.pool[pl].perPortLimit
	if retx {
		L = s.buf.RetxLimit[pl] // §6.1: trimmable-retransmit codepoint may use 1.5 × B
	}
	return q+b > L
}

// egressAdmit is switch.md §5.3 for a packet already charged at ingress.
func (s *Switch) egressAdmit(e int, q qent, p *pkt.Packet, tc int, dec lbDecision, now sim.Time) {
	pl, b := int(s.fp.poolOfTC[tc]), q.bytes()
	if !s.fp.lossless[tc] {
		retx := s.uet && p.DSCP == DSCPTrimmableRetx
		if s.egressLimitExceeded(e, pl, b, retx) {
			// §6.3: trim eligible packets instead of dropping them.
			if s.trim && (p.DSCP == DSCPTrimmable || p.DSCP == DSCPTrimmableRetx) {
				s.trimAndReoffer(e, q, p, tc, dec, now)
				return
			}
			// §5.3: an egress drop releases the ingress charge (lossy) and counts a tx drop.
			s.releaseIngress(q.in, pl, b, true)
			s.txDrop(e, q.h, q.in, tc, b, false)
			return
		}
	}
	s.enqueue(e, q, tc, dec, now)
}

// enqueue charges the egress queue (lossless without checks), updates the ECN average,
// commits the load-balancing decision and queues the packet in FIFO[e][tc] (§5.3).
func (s *Switch) enqueue(e int, q qent, tc int, dec lbDecision, now sim.Time) {
	pt := &s.ports[e]
	pl, b := int(s.fp.poolOfTC[tc]), q.bytes()
	eg := pt.eg(pl)
	eg.egQ += b
	s.pools[pl].egTotal += b
	if invariants.Enabled {
		pt.egAdmitted += b
	}
	if eg.egQ > s.c.MaxEgressQueueBytes {
		s.c.MaxEgressQueueBytes = eg.egQ
	}
	s.pools[pl].eg[dir(pt.uplink)].add(b)
	if pt.egViews {
		pt.views.eg[pl].add(b)
	}
	// §9: EWMA at every egress admission, after the packet is counted.
	w := s.fp.ewma
	eg.avgQ = (1-w)*eg.avgQ + w*float64(eg.egQ)
	// §10.3, §10.4: commit the flowlet choice and count the member's traffic.
	s.lbOnAdmit(e, b, dec, now)
	s.c.Forwarded++
	if !pt.busy && pt.queued == 0 && !pt.pfcQueued && !pt.pausedBy(tc, now) {
		// An idle port with nothing queued sends the frame at once: startNext would pick it
		// right after the push (§5.4; an idle port holds no PFC frame), so it skips the FIFO.
		s.transmit(e, q, tc, now)
		return
	}
	pt.fifo[tc].Push(q)
	pt.queued |= 1 << tc
	if !pt.busy {
		s.startNext(e)
	}
}

// trimAndReoffer is switch.md §6.3: cut to headers, re-mark, move the ingress charge to
// pool 1 (no capacity test), offer again to TC1 of the same port with the lossy check.
func (s *Switch) trimAndReoffer(e int, q qent, p *pkt.Packet, tc int, dec lbDecision, now sim.Time) {
	in := &s.ports[q.in]
	old := q.bytes()
	s.releaseIngress(q.in, int(s.fp.poolOfTC[tc]), old, true)
	p.Size = trimmedL3
	if s.ports[e].peerTier == 3 {
		p.DSCP = DSCPTrimmedLastHop // DC-12: last hop toward a NIC
	} else {
		p.DSCP = DSCPTrimmed
	}
	nb := p.Charge()
	in.trimCharged += old - nb
	const tp = 1
	in.ing(tp).ingOcc += nb
	s.pools[tp].ingTotal += nb
	s.chargeIngressViews(in, tp, nb)
	// The new tag: TC1, pool 1 (PoolOfTC[1] = 1 under the UET policy, §6.1), nb bytes.
	q.b = uint16(nb) | q.b&qentECT
	lossless := s.fp.lossless[1]
	s.c.Trimmed++
	if !lossless && s.egressLimitExceeded(e, tp, nb, false) {
		s.releaseIngress(q.in, tp, nb, true)
		s.txDrop(e, q.h, q.in, 1, nb, lossless)
		return
	}
	s.enqueue(e, q, 1, dec, now)
}

// txDrop drops a packet at egress admission: the egress port's transmit-drop counter.
func (s *Switch) txDrop(e int, h pkt.Handle, in int16, tc int, b int64, lossless bool) {
	pt := &s.ports[e]
	pt.txDrops++
	s.ports[in].dropCharged += b
	s.c.TxDrops++
	s.c.DropsTC[tc&7]++
	s.countDrop(b, lossless)
	s.pool.Free(h)
}

// releaseIngress undoes the ingress charge of an admitted packet (switch.md §5.5): b
// bytes in pool pl charged to ingress port in.
func (s *Switch) releaseIngress(in int16, pl int, b int64, lossy bool) {
	i := int(in)
	pt := &s.ports[i]
	ing := pt.ing(pl)
	if lossy {
		ing.ingOcc -= b
		s.pools[pl].ingTotal -= b
		s.chargeIngressViews(pt, pl, -b)
		return
	}
	// Headroom repaid first, regardless of which packet was charged there.
	hr := min(ing.hdrm, b)
	if hr > 0 {
		ing.hdrm -= hr
		if pt.rxViews {
			pt.views.hdrm[pl].add(-hr)
		}
	}
	if r := b - hr; r > 0 {
		ing.ingOcc -= r
		s.pools[pl].ingTotal -= r
		s.chargeIngressViews(pt, pl, -r)
	}
	// §5.5 resume test, only on lossless departures (DC-9: lossy releases never resume).
	if pt.xoff[pl] && ing.hdrm == 0 && ing.ingOcc <= s.fp.xon {
		s.sendResume(i, pl)
	}
}
