package nic

import (
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// dcqcnParams are the ECNHandler attributes resolved against L (nic.md §13).
type dcqcnParams struct {
	enable bool
	floor  float64  // F = MinimumRatePercentage × L
	half   sim.Time // H = ControlIntervalDurationNs / 2
	g      float64  // CongestionProbabilityWeight
	fra    int      // FastRecoveryAttempt
	n      int      // NumOfControlLoopsPerIncrease
	itrp   float64  // InitialTargetRatePercentage
	nais   float64  // NumberActiveIncreaseSteps
	line   float64  // L
}

// EpisodeEndGap is how close to L an increase must bring Rc to end the episode (§13).
const EpisodeEndGap = 0.1e9

func newDcqcnParams(e *config.ECNHandler, line float64) dcqcnParams {
	return dcqcnParams{
		enable: e.EnableECN,
		floor:  e.MinimumRatePercentage * line,
		half:   sim.Time(e.ControlIntervalDurationNs) * sim.Nanosecond / 2,
		g:      e.CongestionProbabilityWeight,
		fra:    int(e.FastRecoveryAttempt),
		n:      int(e.NumOfControlLoopsPerIncrease),
		itrp:   e.InitialTargetRatePercentage,
		nais:   float64(e.NumberActiveIncreaseSteps),
		line:   line,
	}
}

// dcqcnState is one QP's rate control state (§13).
type dcqcnState struct {
	congested   bool    // what every packet's transmission reads: first (qp line 1)
	p           int64   // data packets sent in the current interval
	rc, rt      float64 // Rc current, Rt target, bit/s
	alpha       float64
	rcount      int // rc: recovery count
	step        float64
	c           int64 // CNPs in the current interval
	cnpSinceRed bool
	k           int
	reduceNext  bool // which half the rate timer runs next
}

// onCNP feeds a CNP to requester q's loop (§13 onCNP). With EnableECN false CNPs are only
// counted (by the caller).
func (n *NIC) onCNP(q *qp) {
	if !n.dc.enable || !q.requester {
		return
	}
	s := &q.cc
	if s.congested {
		s.c++
		s.cnpSinceRed = true
		return
	}
	s.congested = true
	s.rt = s.rc                                 // Rc == L here
	s.step = s.rt * (1 - n.dc.itrp) / n.dc.nais // fixed for the episode
	s.c, s.p, s.k, s.rcount = 1, 0, 0, 0        // [DC] reset, then count the triggering CNP
	n.reductionHalf(q, true)
}

// updateAlpha is the [DC] estimate alpha = (1-g)·alpha + g·m, m = min(1, C/P), m = 1 when
// P = 0 and C > 0, m = 0 when C = 0; run at every loop half (§13, §18 DC-1).
func (n *NIC) updateAlpha(s *dcqcnState) {
	var m float64
	switch {
	case s.c == 0:
		m = 0
	case s.p == 0:
		m = 1
	default:
		m = min(1, float64(s.c)/float64(s.p))
	}
	s.alpha = (1-n.dc.g)*s.alpha + n.dc.g*m
}

// reductionHalf: cut in fast recovery (or on the episode's first run), else lower Rt by
// step and move Rc halfway to it (§13). Schedules the increase half H later.
func (n *NIC) reductionHalf(q *qp, first bool) {
	s := &q.cc
	n.updateAlpha(s)
	if s.c > 0 {
		if first || s.rcount < n.dc.fra {
			s.rc = s.rc * (1 - s.alpha/2) // cut
			s.rcount = 0
		} else {
			s.rt = max(n.dc.floor, s.rt-s.step) // [DC] floor on Rt
			s.rc = (s.rc + s.rt) / 2
			s.rcount--
		}
		s.rc = max(s.rc, n.dc.floor)
	}
	s.c, s.p, s.cnpSinceRed = 0, 0, false
	s.reduceNext = false
	n.eng.Reset(q.rateTimer, n.eng.Now()+n.dc.half)
}

// increaseHalf: while CNPs continue, only every (N+1)-th increase half raises the rate
// ([DC] k per episode); fast recovery moves Rc halfway to Rt, additive increase first
// raises Rt by step (capped at L). The episode ends when Rc is within 0.1 Gbps of L (§13).
func (n *NIC) increaseHalf(q *qp) {
	s := &q.cc
	n.updateAlpha(s)
	now := n.eng.Now()
	s.reduceNext = true
	if s.cnpSinceRed {
		s.k++
		if s.k < n.dc.n+1 {
			n.eng.Reset(q.rateTimer, now+n.dc.half)
			return
		}
		s.k = 0
	}
	if s.rcount < n.dc.fra {
		s.rc = (s.rc + s.rt) / 2 // fast recovery
	} else {
		s.rt = min(n.dc.line, s.rt+s.step) // additive increase
		s.rc = (s.rc + s.rt) / 2
	}
	s.rcount++
	s.rc = max(s.rc, n.dc.floor)
	if n.dc.line-s.rc < EpisodeEndGap {
		s.rc = n.dc.line
		s.congested = false
		n.eng.Stop(q.rateTimer)
		return
	}
	n.eng.Reset(q.rateTimer, now+n.dc.half)
}

// rateTimer runs the loop half that is due (reduce and increase alternate every H).
func (n *NIC) rateTimer(q *qp) {
	if !q.cc.congested {
		return
	}
	if q.cc.reduceNext {
		n.reductionHalf(q, false)
	} else {
		n.increaseHalf(q)
	}
}

// Rate returns the allowed rate of the requester QP (Dst, QP) and whether it is congested
// (§13). Rates are not in any record; this is for tests and `explain`-style tools.
func (n *NIC) Rate(dst, qpIndex int32) (bps float64, congested bool) {
	i, ok := n.reqIndex[qpKey{dst, qpIndex}]
	if !ok {
		return n.L, false
	}
	s := &n.qps[i].cc
	if !s.congested {
		return n.L, false
	}
	return max(s.rc, n.dc.floor), true
}
