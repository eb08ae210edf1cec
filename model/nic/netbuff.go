package nic

import (
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// Values of net-buff-stats' buff_id (records.md §6.2).
const (
	BuffIngress = "ingressBuffer" // a receive pool (§11)
	BuffEgress  = "egressBuffer"  // a transmit pool (§11)
)

// poolSampler samples one pool's occupancy for net-buff-stats as buffer-stats samples a
// switch pool (records.md RC-15): one sample carried over at the start of each interval,
// plus one after every charge or release; the mean is not weighted by time.
type poolSampler struct {
	total, cnt, min, max int64
	sum                  float64
}

// add samples occupancy cur after a change of d bytes (a charge when d > 0).
func (s *poolSampler) add(cur, d int64) {
	if d > 0 {
		s.total += d
	}
	s.cnt++
	s.min = min(s.min, cur)
	s.max = max(s.max, cur)
	s.sum += float64(cur)
}

// restart begins an interval with the carried-over sample cur.
func (s *poolSampler) restart(cur int64) {
	s.cnt, s.min, s.max, s.sum = 1, cur, cur, float64(cur)
}

// bufStats is a NIC's net-buff-stats state (records.md §6.2): a sampler for each pool of
// both buffers, receive-pool admission drops per class, and the time packet generation
// spent blocked on each transmit pool (§3). A NIC holds one only when the record is on
// (EnableBufferStats and EnableNetworkBufferStatsReporting), so that without it nothing
// is sampled; it changes no state the model reads.
type bufStats struct {
	in, eg       [8]poolSampler
	drops        [8]int64    // receive-pool admission drops per class (§8 step 4)
	blocked      [8]sim.Time // ended blocked episodes, per transmit pool
	blockedSince sim.Time    // start of the open episode while gen == genBlocked
	last         struct {    // at the previous row
		drops   [8]int64
		blocked [8]sim.Time
	}
}

func newBufStats() *bufStats {
	b := &bufStats{}
	for c := range b.in {
		b.in[c].restart(0)
		b.eg[c].restart(0)
	}
	return b
}

// sampleIn and sampleEg record the occupancy of receive or transmit pool tc after a change
// of d bytes, when net-buff-stats is on.
func (n *NIC) sampleIn(tc int, d int64) {
	if n.bs != nil {
		n.bs.in[tc].add(n.inOcc[tc], d)
	}
}

func (n *NIC) sampleEg(tc int, d int64) {
	if n.bs != nil {
		n.bs.eg[tc].add(n.egOcc[tc], d)
	}
}

// blockedTime is transmit pool tc's cumulative generation-blocked time at now, an open
// episode counted up to now.
func (n *NIC) blockedTime(tc int, now sim.Time) sim.Time {
	t := n.bs.blocked[tc]
	if n.gen == genBlocked && n.blockedPool == tc {
		t += now - n.bs.blockedSince
	}
	return t
}

// ReportNetBuff appends this NIC's net-buff-stats rows for the interval ending at now
// (records.md §6.2, nic.md §16.5): one per class with a receive pool (ingressBuffer), then
// one per class with a transmit pool (egressBuffer), and starts the next interval. It does
// nothing unless the NIC's EnableBufferStats and the global
// EnableNetworkBufferStatsReporting are both on. The fabric calls it every
// NetworkBufferStatsReportingInterval and at a job's end.
func (n *NIC) ReportNetBuff(now sim.Time, rec *stats.Recorder) {
	b := n.bs
	if b == nil {
		return
	}
	utc, sec := rec.UTC(now), now.Seconds()
	row := func(id string, c int, s *poolSampler, limit int64) stats.NetBuffStats {
		mean := s.sum / float64(s.cnt)
		return stats.NetBuffStats{
			JobID: rec.JobID, TimeUTC: utc, SimTimeSec: sec, ComponentName: n.id.Name, ComponentType: "NIC",
			NodeID: n.id.NodeID, Tier: 3, Subtier: stats.Subtier, BuffID: id, Priority: int64(c),
			TotalBytes: s.total, BufferLimit: limit, IvlCount: s.cnt, IvlMinBytes: s.min, IvlMaxBytes: s.max,
			IvlMeanBytes: mean, IvlMaxPctUtil: 100 * float64(s.max) / float64(limit), IvlMeanPctUtil: 100 * mean / float64(limit),
		}
	}
	for c := 0; c < 8; c++ {
		if n.P.Ingress[c] == 0 {
			continue
		}
		r := row(BuffIngress, c, &b.in[c], n.P.Ingress[c])
		r.Drops, r.IvlDrops = b.drops[c], b.drops[c]-b.last.drops[c]
		rec.NetBuffStats = append(rec.NetBuffStats, r)
	}
	for c := 0; c < 8; c++ {
		if n.P.Egress[c] == 0 {
			continue
		}
		r := row(BuffEgress, c, &b.eg[c], n.P.Egress[c])
		cum := n.blockedTime(c, now)
		r.GenBlockedUsec, r.IvlGenBlockedUsec = cum.Micros(), (cum - b.last.blocked[c]).Micros()
		b.last.blocked[c] = cum
		rec.NetBuffStats = append(rec.NetBuffStats, r)
	}
	for c := 0; c < 8; c++ {
		b.in[c].restart(n.inOcc[c])
		b.eg[c].restart(n.egOcc[c])
	}
	b.last.drops = b.drops
}
