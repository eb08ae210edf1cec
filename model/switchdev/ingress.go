package switchdev

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/internal/invariants"
	"github.com/rocesweep/rocesweep/model/pkt"
)

// UET DSCP codepoints (switch.md §6.2, DC-11: the suggested values). The NIC model of
// nic.md does not emit them; they are exported so a UET-capable sender can share them.
const (
	DSCPControl        = 46
	DSCPTrimmable      = 8
	DSCPTrimmableRetx  = 10
	DSCPNoTrim         = 12
	DSCPTrimmed        = 16
	DSCPTrimmedLastHop = 18
)

// classify is switch.md §5.1 (tc = DSCP >> 3) or §6.2 under the UET policy (codepoints).
func (s *Switch) classify(p *pkt.Packet) int {
	if !s.uet {
		return p.TC()
	}
	switch p.DSCP {
	case DSCPControl:
		return 2
	case DSCPTrimmed, DSCPTrimmedLastHop:
		return 1
	}
	return 0
}

// Receive handles a frame that arrived on port i (the link delivered it).
func (s *Switch) Receive(i int16, h pkt.Handle) {
	now := s.eng.Now()
	pt := &s.ports[i]
	p := s.pool.Get(h)
	wire := p.Wire()
	if p.Type == pkt.Pfc {
		wire = pkt.PfcWire
	}
	pt.rxFrames++
	pt.rxBytes += wire
	s.c.RxFrames++
	s.c.RxBytes += wire

	// §5.2: a PFC frame is consumed at ingress, never buffered or forwarded.
	if p.Type == pkt.Pfc {
		s.handleReceivedPFC(int(i), p, now)
		s.pool.Free(h)
		return
	}

	// §5.1 classification and charged size b = max(46, L3).
	tc := s.classify(p)
	pl := int(s.fp.poolOfTC[tc])
	lossless := s.fp.lossless[tc]
	b := p.Charge()
	if invariants.Enabled {
		pt.rxCharged += b
	}
	if b >= qentECT {
		panic(fmt.Sprintf("switchdev: %s: frame of %d B charged", s.id.Name, b))
	}
	q := qent{h: h, in: i, b: uint16(b)}
	if p.IsECT() {
		q.b |= qentECT
	}

	inHdrm := false
	ing := pt.ing(pl)
	if lossless && pt.xoff[pl] {
		// §5.2: already paused → charge headroom (cap per port per lossless pool, DC-3);
		// not pool-checked; drop when headroom would overflow.
		if ing.hdrm+b > s.fp.hdrmPerPort {
			s.rxDrop(int(i), h, b, lossless)
			return
		}
		ing.hdrm += b
		if pt.rxViews {
			pt.views.hdrm[pl].add(b)
		}
		inHdrm = true
	} else {
		// §5.2: Xoff test before the charge, strictly greater; the packet is still admitted.
		if lossless && ing.ingOcc+b > s.fp.xoff {
			s.sendPause(int(i), pl)
		}
		// Charge (lossy: same, no PFC test).
		ing.ingOcc += b
		s.pools[pl].ingTotal += b
		// §5.2 pool overflow: roll back and drop, whatever the class. A pause already
		// sent for this packet stands (DC-7).
		if s.pools[pl].ingTotal > s.fp.pool[pl].size {
			ing.ingOcc -= b
			s.pools[pl].ingTotal -= b
			s.rxDrop(int(i), h, b, lossless)
			return
		}
		s.chargeIngressViews(pt, pl, b)
	}

	// forward: the queue entry q carries the tag {tc, pool, ingressPort, bytes} (§2) for
	// the release.

	// §10 route lookup.
	e, dec := s.selectEgress(p, tc, now)
	if e < 0 {
		// No route: undo the ingress charge and count an rx drop (integration bug).
		if inHdrm {
			ing.hdrm -= b
			if pt.rxViews {
				pt.views.hdrm[pl].add(-b)
			}
		} else {
			ing.ingOcc -= b
			s.pools[pl].ingTotal -= b
			s.chargeIngressViews(pt, pl, -b)
		}
		s.c.NoRoute++
		s.rxDrop(int(i), h, b, lossless)
		return
	}
	s.egressAdmit(int(e), q, p, tc, dec, now)
}

// chargeIngressViews samples the ingressUsage and sharedBuffer views after an ingOcc change.
func (s *Switch) chargeIngressViews(pt *port, pl int, d int64) {
	s.pools[pl].ing[dir(pt.rxUplink)].add(d)
	s.pools[pl].shared.add(d)
	if pt.rxViews {
		pt.views.ing[pl].add(d)
	}
	if occ := pt.ing(pl).ingOcc; occ > s.c.MaxIngressPortBytes {
		s.c.MaxIngressPortBytes = occ
	}
	if s.pools[pl].ingTotal > s.c.MaxPoolBytes {
		s.c.MaxPoolBytes = s.pools[pl].ingTotal
	}
}

// rxDrop drops a packet at ingress admission: the arriving port's receive-drop counter
// (§5.2 rxDrop). The caller has undone any charge.
func (s *Switch) rxDrop(i int, h pkt.Handle, b int64, lossless bool) {
	pt := &s.ports[i]
	pt.rxDrops++
	pt.dropCharged += b
	s.c.RxDrops++
	s.c.DropsTC[s.classify(s.pool.Get(h))]++
	s.countDrop(b, lossless)
	s.pool.Free(h)
}

func (s *Switch) countDrop(b int64, lossless bool) {
	s.c.DroppedBytes += b
	if lossless {
		s.c.DropsLossless++
	} else {
		s.c.DropsLossy++
	}
}
