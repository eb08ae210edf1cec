package switchdev

import (
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// pfcL3 makes a PFC frame 84 B on the wire (DC-8): Wire() = 66 + 18.
const pfcL3 = pkt.PfcWire - pkt.EthOverhead

// pauseLog accumulates received-pause time of one port × TC (records.md §4, RC-11).
type pauseLog struct {
	since       sim.Time // start of the open episode; valid while open
	open        bool
	total       sim.Time // closed episodes, cumulative
	ivlStart    sim.Time // start of the current report interval
	ivlClosed   sim.Time // closed time inside the current interval
	ivlMaxEpoch sim.Time // longest closed episode part inside the interval
}

func (l *pauseLog) start(now sim.Time) {
	if !l.open {
		l.open, l.since = true, now
	}
}

func (l *pauseLog) end(now sim.Time) {
	if !l.open {
		return
	}
	l.open = false
	l.total += now - l.since
	part := now - max(l.since, l.ivlStart)
	l.ivlClosed += part
	l.ivlMaxEpoch = max(l.ivlMaxEpoch, part)
}

// pauseTime is §7.1 for port i: q × 512 bit / link rate + link propagation delay.
func (s *Switch) pauseTime(i int, q int64) sim.Time {
	l := s.ports[i].out
	return sim.PauseTime(q, l.RateBps, l.Delay)
}

// PauseTime is the §7.1 pause time of port i for the 65,535 quanta a switch requests;
// its refresh period is half of it (§7.2). For explain and tests, not the packet path.
func (s *Switch) PauseTime(i int) sim.Time { return s.pauseTime(i, 65535) }

// queuePFC puts one PFC frame naming class tc with quanta q on port i's control queue.
func (s *Switch) queuePFC(i, tc int, q uint16) {
	pt := &s.ports[i]
	h, f := s.pool.New()
	f.Type = pkt.Pfc
	f.Size = pfcL3
	f.PfcVector = 1 << tc
	f.PfcQuanta = q
	pt.pfcQ.Push(h)
	pt.pfcQueued = true
	if q > 0 {
		pt.pauseTx[tc]++
		s.c.PfcPauseTx++
	} else {
		pt.resumeTx[tc]++
		s.c.PfcResumeTx++
	}
	if !pt.busy {
		s.startNext(i)
	}
}

// sendPause is §7.2 Send: set xoff, one frame (65535 quanta) per TC of the pool's
// priority group, refresh timer at pauseTime(65535)/2.
func (s *Switch) sendPause(i, pl int) {
	pt := &s.ports[i]
	pt.xoff[pl] = true
	pt.xoffSince[pl] = s.eng.Now()
	s.queueGroup(i, pl, pkt.PauseQuanta)
	s.eng.Reset(pt.refresh[pl], s.eng.Now()+s.pauseTime(i, pkt.PauseQuanta)/2)
}

func (s *Switch) queueGroup(i, pl int, q uint16) {
	g := s.buf.Group[pl]
	for tc := 0; tc < 8; tc++ {
		if g&(1<<tc) != 0 {
			s.queuePFC(i, tc, q)
		}
	}
}

// refreshPause is §7.2 Refresh: while xoff holds, the same frames again and re-arm.
func (s *Switch) refreshPause(i, pl int) {
	pt := &s.ports[i]
	if !pt.xoff[pl] {
		return
	}
	s.queueGroup(i, pl, pkt.PauseQuanta)
	s.eng.Reset(pt.refresh[pl], s.eng.Now()+s.pauseTime(i, pkt.PauseQuanta)/2)
}

// sendResume is §7.2 Resume: cancel the refresh, clear xoff, one quanta-0 frame per TC.
func (s *Switch) sendResume(i, pl int) {
	pt := &s.ports[i]
	s.eng.Stop(pt.refresh[pl])
	pt.xoff[pl] = false
	s.queueGroup(i, pl, 0)
}

// handleReceivedPFC is §7.3: q > 0 pauses the named classes for pauseTime(q) (a new
// pause restarts the full timer); q = 0 clears the pause at once and kicks the port.
func (s *Switch) handleReceivedPFC(e int, f *pkt.Packet, now sim.Time) {
	pt := &s.ports[e]
	s.c.RxPfcFrames++
	kick := false
	for tc := 0; tc < 8; tc++ {
		if f.PfcVector&(1<<tc) == 0 {
			continue
		}
		q := int64(f.PfcQuanta)
		if q > 0 {
			pt.pauseRx[tc]++
			s.c.PfcPauseRx++
			pt.pause[tc].start(now)
			pt.paused |= 1 << tc
			pt.rxPausedUntil[tc] = now + s.pauseTime(e, q)
			s.eng.Reset(pt.expiry[tc], pt.rxPausedUntil[tc])
		} else {
			pt.resumeRx[tc]++
			s.c.PfcResumeRx++
			if pt.pause[tc].open {
				pt.pause[tc].end(now)
			}
			pt.paused &^= 1 << tc
			pt.rxPausedUntil[tc] = 0
			s.eng.Stop(pt.expiry[tc])
			kick = true
		}
	}
	if kick && !pt.busy {
		s.startNext(e)
	}
}

// pauseExpired is §7.3 expiry: the class is eligible again and the port is kicked.
func (s *Switch) pauseExpired(e, tc int) {
	pt := &s.ports[e]
	pt.pause[tc].end(s.eng.Now())
	pt.paused &^= 1 << tc // the timer fires at rxPausedUntil[tc]: pausedBy is false from now
	if !pt.busy {
		s.startNext(e)
	}
}

func (l *pauseLog) cumulative(now sim.Time) sim.Time {
	if l.open {
		return l.total + now - l.since
	}
	return l.total
}
