package nic

import (
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// pfcStat is one TC's PFC counters and received-pause time (nic.md §16.3).
type pfcStat struct {
	xoffTx, xoffRx, xonTx, xonRx int64
	pausedClosed                 sim.Time // received-pause time of ended episodes
	since                        sim.Time // start of the open episode (paused[c])
	ivlMax                       sim.Time // longest episode part in the current interval
	lastCum                      sim.Time // cumulative paused time at the previous row
}

// pfcCheck is the emission test of §12.1 for a received non-PFC frame of PFC-enabled TC
// c, before admission: no pause outstanding and occupancy + charge >= Xoff -> send
// QuantaValue[c], mark the pause outstanding, and refresh R[c] after its generation.
func (n *NIC) pfcCheck(c int, charge int64) {
	if !n.pauseOut[c] && n.inOcc[c]+charge >= n.lim[c].xoff {
		n.queuePFC(c, n.quanta[c])
		n.pauseOut[c] = true
		n.eng.Reset(n.refreshTimer[c], n.eng.Now()+n.refresh(c))
	}
}

// refresh is R[c], at least 1 ps so a zero pause time cannot spin at one instant.
func (n *NIC) refresh(c int) sim.Time { return max(n.P.Refresh[c], 1) }

// pfcRefresh runs every R[c] after the last pause frame [DC: from its generation]
// (§12.2): occupancy still >= Xoff sends the pause again; otherwise XON, even above Xon.
func (n *NIC) pfcRefresh(c int) {
	if !n.pauseOut[c] {
		return
	}
	if n.inOcc[c] >= n.lim[c].xoff {
		n.queuePFC(c, n.quanta[c])
		n.eng.Reset(n.refreshTimer[c], n.eng.Now()+n.refresh(c))
		return
	}
	n.queuePFC(c, 0)
	n.pauseOut[c] = false
}

// honourPFC applies a received PFC frame to every TC of its class-enable vector,
// whatever PFCEnableVector says (§12.3): q > 0 pauses until now + pauseTime(q) with this
// NIC's L and Delay (a new pause re-arms with its full duration); q = 0 resumes at once.
func (n *NIC) honourPFC(p *pkt.Packet) {
	now := n.eng.Now()
	for c := 0; c < 8; c++ {
		if p.PfcVector&(1<<c) == 0 {
			continue
		}
		q := int64(p.PfcQuanta)
		if q > 0 {
			n.pfc[c].xoffRx++
			n.cnt.PfcPauseRx++
			if !n.paused[c] {
				n.paused[c] = true
				n.pfc[c].since = now
			}
			n.eng.Reset(n.pauseTimer[c], now+sim.PauseTime(q, n.out.RateBps, n.out.Delay))
			continue
		}
		n.pfc[c].xonRx++
		n.cnt.PfcXonRx++
		n.resume(c)
	}
	n.kick()
}

// pauseEnd is the expiry of a received pause (§12.3).
func (n *NIC) pauseEnd(c int) {
	n.resume(c)
	n.kick()
}

// resume ends TC c's received pause, closing its paused-time episode.
func (n *NIC) resume(c int) {
	if !n.paused[c] {
		return
	}
	now := n.eng.Now()
	s := &n.pfc[c]
	s.pausedClosed += now - s.since
	part := now - max(s.since, n.last.at)
	s.ivlMax = max(s.ivlMax, part)
	n.paused[c] = false
	n.eng.Stop(n.pauseTimer[c])
}

// pausedTime is TC c's cumulative received-pause time at now, an open pause counted up
// to now (§16.3 [DC]).
func (n *NIC) pausedTime(c int, now sim.Time) sim.Time {
	t := n.pfc[c].pausedClosed
	if n.paused[c] {
		t += now - n.pfc[c].since
	}
	return t
}
