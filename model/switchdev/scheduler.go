package switchdev

import (
	"math/bits"

	"github.com/rocesweep/rocesweep/model/internal/invariants"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// startNext is switch.md §5.4: PFC queue first, then strict priority TC7..TC0 skipping
// classes the peer paused; at transmit start the ECN decision, then the link is occupied
// for the serialization time. Nothing eligible ⇒ the port idles until re-kicked.
func (s *Switch) startNext(e int) {
	pt := &s.ports[e]
	now := s.eng.Now()
	if pt.pfcQueued {
		h := pt.pfcQ.Pop()
		pt.pfcQueued = pt.pfcQ.Len() > 0
		pt.busy, pt.busyPfc = true, true
		// DC-1: serialization rounded up to a whole ps; 0 interframe gap.
		s.eng.Schedule(now+sim.SerializationCeil(pkt.PfcWire, pt.rate), KindTxDone, s.dev, int16(e), int64(h))
		return
	}
	// Strict priority, highest class first, over the classes that hold frames.
	tc := -1
	var q qent
	for m := pt.queued; m != 0; {
		c := bits.Len8(m) - 1
		m &^= 1 << c
		if !pt.pausedBy(c, now) {
			tc = c
			q = pt.fifo[c].Pop()
			if pt.fifo[c].Len() == 0 {
				pt.queued &^= 1 << c
			}
			break
		}
	}
	if tc < 0 {
		pt.busy = false
		return
	}
	s.transmit(e, q, tc, now)
}

// transmit starts serialising data frame q of class tc on port e: the §9 ECN decision at
// transmit start, then the link is occupied for the serialization time (§5.4).
func (s *Switch) transmit(e int, q qent, tc int, now sim.Time) {
	pt := &s.ports[e]
	if q.ect() {
		s.ecnDecide(e, tc, q.h)
	}
	pt.busy, pt.busyPfc = true, false
	pt.tx, pt.txTC = q, uint8(tc)
	// DC-1: serialization rounded up to a whole ps; 0 interframe gap. The wire size is
	// max(46, L3) + 18 = the charged bytes + 18 (switch.md §5.1, DC-6).
	s.eng.Schedule(now+sim.SerializationCeil(q.bytes()+pkt.EthOverhead, pt.rate), KindTxDone, s.dev, int16(e), int64(q.h))
}

// ecnDecide is the §9 marking decision at transmit start for an ECN-capable frame h of
// class tc.
func (s *Switch) ecnDecide(e, tc int, h pkt.Handle) {
	if !s.fp.ecnOn {
		return // Not-ECT and already-CE packets are left alone
	}
	pl := int(s.fp.poolOfTC[tc])
	avg := s.ports[e].eg(pl).avgQ
	minB, maxB := s.fp.pool[pl].ecnMin, s.fp.pool[pl].ecnMax
	switch {
	case avg < minB:
		return
	case avg >= maxB:
	default:
		prob := s.cfg.EcnHandler.MaxMarkProbability * (avg - minB) / (maxB - minB)
		if s.rng.Float64() >= prob {
			return
		}
	}
	s.pool.Get(h).ECN = pkt.CE
	s.ports[e].ecnMarks[tc]++
	s.c.EcnMarked++
}

// txDone is serialization end (§5.4 step 4): the frame goes onto the link, charges are
// released (§5.5), then the next frame starts.
func (s *Switch) txDone(e int, h pkt.Handle) {
	pt := &s.ports[e]
	now := s.eng.Now()
	if pt.busyPfc {
		pt.txFrames++
		pt.txBytes += pkt.PfcWire
		s.c.TxFrames++
		s.c.TxBytes += pkt.PfcWire
		s.c.TxPfcFrames++
		pt.out.Send(s.eng, now, h, pkt.PfcWire)
		s.startNext(e)
		return
	}
	q, tc := pt.tx, int(pt.txTC)
	pl, b := int(s.fp.poolOfTC[tc]), q.bytes()
	wire := b + pkt.EthOverhead
	pt.txFrames++
	pt.txBytes += wire
	s.c.TxFrames++
	s.c.TxBytes += wire
	// §5.5 onTxComplete: egress release, then ingress release (may send a resume).
	pt.eg(pl).egQ -= b
	s.pools[pl].egTotal -= b
	if invariants.Enabled {
		pt.egSent += b
		s.ports[q.in].sentCharged += b
	}
	s.pools[pl].eg[dir(pt.uplink)].add(-b)
	if pt.egViews {
		pt.views.eg[pl].add(-b)
	}
	s.releaseIngress(q.in, pl, b, !s.fp.lossless[tc])
	pt.out.Send(s.eng, now, h, wire)
	s.startNext(e)
}
