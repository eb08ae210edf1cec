package switchdev

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/internal/invariants"
	"github.com/rocesweep/rocesweep/model/sim"
)

// HeldFrames counts the frames the switch holds: queued (data and PFC) or being
// serialised. With the links' in-flight frames it closes a fabric-wide frame ledger.
func (s *Switch) HeldFrames() int {
	n := 0
	for i := range s.ports {
		pt := &s.ports[i]
		n += pt.pfcQ.Len()
		for tc := range pt.fifo {
			n += pt.fifo[tc].Len()
		}
		if pt.busy {
			n++
		}
	}
	return n
}

// HeldDataFrames is HeldFrames without the PFC frames this switch made: the received
// frames it still holds, queued or on the wire (for the fabric's frame ledger:
// received = forwarded + dropped + held).
func (s *Switch) HeldDataFrames() int {
	n := 0
	for i := range s.ports {
		pt := &s.ports[i]
		for tc := range pt.fifo {
			n += pt.fifo[tc].Len()
		}
		if pt.busy && !pt.busyPfc {
			n++
		}
	}
	return n
}

// PortState is a read-only view of one port × pool for tests and `explain`-style tracing.
type PortState struct {
	IngOcc, Hdrm, EgQ int64
	Xoff              bool
	AvgQ              float64
}

// Port returns port i's state in pool pl.
func (s *Switch) Port(i, pl int) PortState {
	pt := &s.ports[i]
	return PortState{IngOcc: pt.ing(pl).ingOcc, Hdrm: pt.ing(pl).hdrm, EgQ: pt.eg(pl).egQ, Xoff: pt.xoff[pl], AvgQ: pt.eg(pl).avgQ}
}

// StuckPauses counts the port × pool pairs whose pause nothing can lift: xoff
// held since more than longer before now, headroom empty and ingress occupancy at or
// below Xon. Only a lossless departure re-checks Xon (§5.5, DC-9), so such a pause, left
// by lossy bytes in a pool shared with a lossless class (§4.6 condition 3), lasts until
// the port's next lossless packet.
func (s *Switch) StuckPauses(now, longer sim.Time) int {
	n := 0
	for i := range s.ports {
		pt := &s.ports[i]
		for pl := 0; pl < 8; pl++ {
			if pt.xoff[pl] && now-pt.xoffSince[pl] > longer && pt.ing(pl).hdrm == 0 && pt.ing(pl).ingOcc <= s.buf.Xon {
				n++
			}
		}
	}
	return n
}

// PoolTotals returns ingTotal[p] and egTotal[p].
func (s *Switch) PoolTotals(pl int) (ing, eg int64) { return s.pools[pl].ingTotal, s.pools[pl].egTotal }

// CheckConservation verifies the byte ledgers: Σ ingress holdings = Σ egress queues, no
// negative occupancy, and pool totals equal the sums of their parts; in invariant builds
// also, per port, charged bytes received on a port = sent + dropped + trimmed off + still
// held (ingOcc + hdrm), and bytes admitted to a port's egress = sent from it + still
// queued.
func (s *Switch) CheckConservation() error {
	var held, queued int64
	var ing, eg [8]int64
	for i := range s.ports {
		pt := &s.ports[i]
		var h, q int64
		for p := 0; p < 8; p++ {
			pi, pe := pt.ing(p), pt.eg(p)
			if pi.ingOcc < 0 || pi.hdrm < 0 || pe.egQ < 0 {
				return fmt.Errorf("%s port %d pool %d: negative ledger ingOcc %d hdrm %d egQ %d", s.id.Name, i, p, pi.ingOcc, pi.hdrm, pe.egQ)
			}
			h += pi.ingOcc + pi.hdrm
			q += pe.egQ
			ing[p] += pi.ingOcc
			eg[p] += pe.egQ
		}
		// The per-port charged-byte ledgers are kept in invariant builds only.
		if invariants.Enabled && pt.rxCharged != pt.sentCharged+pt.dropCharged+pt.trimCharged+h {
			return fmt.Errorf("%s port %d: received %d B ≠ sent %d + dropped %d + trimmed %d + held %d",
				s.id.Name, i, pt.rxCharged, pt.sentCharged, pt.dropCharged, pt.trimCharged, h)
		}
		if invariants.Enabled && pt.egAdmitted != pt.egSent+q {
			return fmt.Errorf("%s port %d: egress admitted %d B ≠ sent %d + queued %d", s.id.Name, i, pt.egAdmitted, pt.egSent, q)
		}
		held += h
		queued += q
	}
	if held != queued {
		return fmt.Errorf("%s: ingress holdings %d B ≠ egress queues %d B", s.id.Name, held, queued)
	}
	for p := 0; p < 8; p++ {
		if ing[p] != s.pools[p].ingTotal || eg[p] != s.pools[p].egTotal {
			return fmt.Errorf("%s pool %d: ingTotal %d vs Σ %d, egTotal %d vs Σ %d", s.id.Name, p, s.pools[p].ingTotal, ing[p], s.pools[p].egTotal, eg[p])
		}
	}
	return nil
}
