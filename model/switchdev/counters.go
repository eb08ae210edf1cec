package switchdev

import (
	"github.com/rocesweep/rocesweep/model/sim"
)

// sampler is one buffer-stats view (records.md §6, RC-15): the current occupancy, bytes
// ever charged, and the interval samples (one carried over at interval start, one after
// every charge or release).
type sampler struct {
	cur, total    int64
	cnt, min, max int64
	sum           float64
}

func (s *sampler) add(d int64) {
	s.cur += d
	if d > 0 {
		s.total += d
	}
	s.cnt++
	if s.cur < s.min {
		s.min = s.cur
	}
	if s.cur > s.max {
		s.max = s.cur
	}
	s.sum += float64(s.cur)
}

// restart begins a new interval with the carried-over sample.
func (s *sampler) restart() {
	s.cnt, s.min, s.max, s.sum = 1, s.cur, s.cur, float64(s.cur)
}

// Counters are the switch totals the job summary and conservation checks read. The
// eight that every frame updates come first: one cache line.
type Counters struct {
	RxFrames, RxBytes   int64 // every frame received, wire bytes, PFC included
	TxFrames, TxBytes   int64 // every frame sent, wire bytes, PFC included
	Forwarded           int64 // egress-admitted packets (tier-hop, records.md RC-20)
	MaxEgressQueueBytes int64 // max egQ[e][p] ever
	MaxIngressPortBytes int64 // max ingOcc[i][p] ever
	MaxPoolBytes        int64 // max ingTotal[p] ever

	RxPfcFrames      int64    // PFC frames received (consumed at ingress)
	TxPfcFrames      int64    // PFC frames sent
	DropsLossless    int64    // packets of lossless classes dropped (rx + tx)
	DropsLossy       int64    // packets of lossy classes dropped (rx + tx)
	DropsTC          [8]int64 // packets dropped (rx + tx) by the TC they were classified in
	RxDrops, TxDrops int64    // ingress-admission / egress-admission drops
	NoRoute          int64    // packets dropped for an empty route (integration bug; in RxDrops)
	DroppedBytes     int64    // charged bytes of dropped packets
	BufferedBytes    int64    // charged bytes currently held (Σ ingOcc + hdrm)
	PfcPauseTx       int64    // pause frames sent, refreshes included
	PfcResumeTx      int64    // resume frames sent
	PfcPauseRx       int64    // pause frames received
	PfcResumeRx      int64    // resume frames received
	PfcPausedTime    sim.Time // received-pause time over ports × TCs, open pauses to now
	EcnMarked        int64    // packets marked CE
	Trimmed          int64    // packets trimmed (§6.3)
}

// Counters returns the switch totals; open received pauses count up to now.
func (s *Switch) Counters() Counters {
	c := s.c
	now := s.eng.Now()
	c.BufferedBytes = 0
	c.PfcPausedTime = 0
	for i := range s.ports {
		pt := &s.ports[i]
		for p := 0; p < 8; p++ {
			c.BufferedBytes += pt.ing(p).ingOcc + pt.ing(p).hdrm
		}
		for tc := 0; tc < 8; tc++ {
			c.PfcPausedTime += pt.pause[tc].cumulative(now)
		}
	}
	return c
}
