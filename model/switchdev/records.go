package switchdev

import (
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// Names the switch writes into the records (records.md §2, RC-5).
const (
	ComponentType = "Switch"
	NdName        = "switch::EthNetDevice"
)

func uldl(uplink bool) string {
	if uplink {
		return "ul"
	}
	return "dl"
}

// ReportND appends the nd-stats rows (records.md §3: every port, no skipping) and the
// ecn-pfc-stats rows (§4: port × TC with a non-zero pool, all-zero rows skipped) for the
// interval ending now, each when its global Enable flag is on. Rates use the configured
// NDStatsReportInterval as the interval length (records.md §3 test vector), or the time
// since the previous call when that is shorter; paused-time shares use the time since
// the previous call.
func (s *Switch) ReportND(now sim.Time, rec *stats.Recorder) {
	utc := rec.UTC(now)
	// Rates divide by the interval length: the configured NDStatsReportInterval (the
	// records.md §3 test vector divides by it even for a first row that covers more), or
	// the actual span when it is shorter (the last, partial row at a job's end).
	span := now - s.lastND
	ivl := s.g.NDStatsReportInterval
	if ivl <= 0 || (span > 0 && span < ivl) {
		ivl = span
	}
	sec := now.Seconds()
	for i := range s.ports {
		pt := &s.ports[i]
		if s.g.EnableNetDeviceStatLogging {
			dTx := pt.txBytes - pt.ivlTxBytes
			dRx := pt.rxBytes - pt.ivlRxBytes
			var txRate, rxRate float64
			if ivl > 0 {
				txRate = float64(dTx) * 8 / ivl.Seconds() / 1e9
				rxRate = float64(dRx) * 8 / ivl.Seconds() / 1e9
			}
			gbps := pt.out.RateBps / 1e9
			rec.NdStats = append(rec.NdStats, stats.NdStats{
				JobID: rec.JobID, TimeUTC: utc, SimTimeSec: sec,
				ComponentName: s.id.Name, NdName: NdName, ComponentType: ComponentType,
				Ifid: int64(i), Uldl: uldl(pt.uplink), NodeID: s.id.NodeID, Tier: int32(s.id.Tier), Subtier: stats.Subtier,
				TotalPacketsTx: pt.txFrames, TotalPacketsRx: pt.rxFrames,
				TotalBytesTxGB: float64(pt.txBytes) / 1e9, TotalBytesRxGB: float64(pt.rxBytes) / 1e9,
				IntervalBytesTxMB: float64(dTx) / 1e6, IntervalBytesRxMB: float64(dRx) / 1e6,
				TxRateGbps: txRate, RxRateGbps: rxRate,
				TxLinkPercentUtil: 100 * txRate / gbps, RxLinkPercentUtil: 100 * rxRate / gbps,
				TxDrops: pt.txDrops, RxDrops: pt.rxDrops,
			})
		}
		pt.ivlTxBytes, pt.ivlRxBytes = pt.txBytes, pt.rxBytes

		for tc := 0; tc < 8; tc++ {
			l := &pt.pause[tc]
			total := l.cumulative(now)
			ivlTotal, ivlMax := l.ivlClosed, l.ivlMaxEpoch
			if l.open {
				part := now - max(l.since, l.ivlStart)
				ivlTotal += part
				ivlMax = max(ivlMax, part)
			}
			l.ivlStart, l.ivlClosed, l.ivlMaxEpoch = now, 0, 0
			if !s.g.EnablePFCECNStatsLogging || !s.tcHasPool(tc) {
				continue
			}
			// RC-10: a row whose C and I columns are all zero is not written.
			if pt.pauseTx[tc] == 0 && pt.pauseRx[tc] == 0 && pt.resumeTx[tc] == 0 && pt.resumeRx[tc] == 0 &&
				total == 0 && ivlTotal == 0 && pt.ecnMarks[tc] == 0 {
				continue
			}
			pctXon := 100.0
			if span > 0 {
				pctXon = max(0, 100*(1-float64(ivlTotal)/float64(span)))
			}
			rec.EcnPfcStats = append(rec.EcnPfcStats, stats.EcnPfcStats{
				JobID: rec.JobID, TimeUTC: utc, SimTimeSec: sec, NodeID: s.id.NodeID,
				ComponentName: s.id.Name, ComponentType: ComponentType,
				Ifid: int64(i), Uldl: uldl(pt.uplink), Tier: int32(s.id.Tier), Subtier: stats.Subtier,
				Priority:  int64(tc),
				PfcxoffTx: pt.pauseTx[tc], PfcxoffRx: pt.pauseRx[tc], PfcxonTx: pt.resumeTx[tc], PfcxonRx: pt.resumeRx[tc],
				PfcTimePausedUsec:         total.Micros(),
				IntervalTotalTimeXoffUsec: ivlTotal.Micros(), IntervalMaxTimeXoffUsec: ivlMax.Micros(),
				PercentXon:    pctXon,
				PktsEcnMarked: pt.ecnMarks[tc],
			})
		}
	}
	s.lastND = now
}

// tcHasPool: records.md §4 writes TCs mapped to a pool of non-zero size (UET: TC0–TC2).
func (s *Switch) tcHasPool(tc int) bool {
	if s.uet {
		return tc <= 2
	}
	return s.buf.PoolSize[s.buf.PoolOfTC[tc]] > 0
}

func pct(x, limit float64) float64 {
	if limit <= 0 {
		return 0
	}
	return 100 * x / limit
}

func bufferRow(rec *stats.Recorder, s *Switch, utc string, sec float64, view, ud string, pl int, v *sampler) stats.BufferStats {
	limit := s.buf.PoolSize[pl]
	mean := v.sum / float64(v.cnt)
	return stats.BufferStats{
		JobID: rec.JobID, TimeUTC: utc, SimTimeSec: sec, ComponentName: s.id.Name,
		Tier: int32(s.id.Tier), NodeID: s.id.NodeID, BuffID: view, Uldl: ud, PoolNum: int32(pl),
		TotalBytes: v.total, BufferLimit: limit, IvlCount: v.cnt, IvlMinBytes: v.min, IvlMaxBytes: v.max,
		IvlMeanBytes: mean, IvlMaxPctUtil: pct(float64(v.max), float64(limit)), IvlMeanPctUtil: pct(mean, float64(limit)),
	}
}

// ReportBuffer appends the buffer-stats rows (records.md §6: non-zero pool × five views,
// views of directions without ports omitted, RC-13) and, with ReportPerPortBufferStats,
// the port-buffer-stats rows (§6.1), then starts new sampling intervals (RC-15).
func (s *Switch) ReportBuffer(now sim.Time, rec *stats.Recorder) {
	utc := rec.UTC(now)
	sec := now.Seconds()
	var hasDir [2]bool
	for i := range s.ports {
		hasDir[dir(s.ports[i].uplink)] = true
	}
	for pl := 0; pl < 8; pl++ {
		if s.buf.PoolSize[pl] == 0 {
			continue
		}
		for d := 0; d < 2; d++ {
			if hasDir[d] {
				rec.BufferStats = append(rec.BufferStats, bufferRow(rec, s, utc, sec, "egressQueue", uldl(d == 0), pl, &s.pools[pl].eg[d].sampler))
			}
		}
		for d := 0; d < 2; d++ {
			if hasDir[d] {
				rec.BufferStats = append(rec.BufferStats, bufferRow(rec, s, utc, sec, "ingressUsage", uldl(d == 0), pl, &s.pools[pl].ing[d].sampler))
			}
		}
		rec.BufferStats = append(rec.BufferStats, bufferRow(rec, s, utc, sec, "sharedBuffer", "-", pl, &s.pools[pl].shared))
		for d := 0; d < 2; d++ {
			s.pools[pl].eg[d].restart()
			s.pools[pl].ing[d].restart()
		}
		s.pools[pl].shared.restart()
	}
	if !s.cfg.SharedBufferManager.ReportPerPortBufferStats {
		s.lastBuf = now
		return
	}
	for i := range s.ports {
		pt := &s.ports[i]
		for pl := 0; pl < 8; pl++ {
			if s.buf.PoolSize[pl] == 0 {
				continue
			}
			// RC-17: per-port limits: egress = static limit S, ingress = Xoff, hdrm = HeadRoomPerPortLimit.
			views := [3]struct {
				id    string
				v     *sampler
				limit int64
			}{{"egressQueue", &pt.views.eg[pl], s.buf.StaticLimit[pl]}, {"ingressUsage", &pt.views.ing[pl], s.buf.Xoff}, {"hdrm", &pt.views.hdrm[pl], s.buf.HeadroomPerPort}}
			for k, vw := range views {
				if k == 2 && s.buf.Group[pl] == 0 {
					continue // hdrm only for lossless pools
				}
				mean := vw.v.sum / float64(vw.v.cnt)
				rec.PortBufferStats = append(rec.PortBufferStats, stats.PortBufferStats{
					JobID: rec.JobID, TimeUTC: utc, SimTimeSec: sec, ComponentName: s.id.Name,
					Tier: int32(s.id.Tier), NodeID: s.id.NodeID, BuffID: vw.id, Ifid: int64(i), Uldl: uldl(pt.uplink),
					PoolNum: int32(pl), BuffLimit: vw.limit, IvlCount: vw.v.cnt, IvlMinBytes: vw.v.min, IvlMaxBytes: vw.v.max,
					IvlMeanBytes:  mean,
					IvlMaxPctUtil: min(100, pct(float64(vw.v.max), float64(vw.limit))), IvlMeanPctUtil: min(100, pct(mean, float64(vw.limit))),
				})
				vw.v.restart()
			}
		}
	}
	s.lastBuf = now
}

// ReportLB appends one load-balancing-stats row per member of every set created so far
// (records.md §7), when EnableLoadBalancingStats is on. The fabric calls it every
// LoadBalancingStatsReportInterval and once at the end.
func (s *Switch) ReportLB(now sim.Time, rec *stats.Recorder) {
	if !s.cfg.EnableLoadBalancingStats {
		return
	}
	utc := rec.UTC(now)
	sec := now.Seconds()
	for id := range s.ecmp.sets {
		set := &s.ecmp.sets[id]
		var setIvl int64
		for k := range set.traffic {
			setIvl += set.traffic[k].bytes - set.prevT[k].bytes
		}
		slots := int64(0)
		if set.table != nil {
			slots = FlowTableSlots
		}
		for k, m := range set.members {
			c, p := set.cnt[k], set.prev[k]
			t, pt := set.traffic[k], set.prevT[k]
			share := 0.0
			if setIvl > 0 {
				share = float64(t.bytes-pt.bytes) / float64(setIvl)
			}
			rec.LbStats = append(rec.LbStats, stats.LbStats{
				JobID: rec.JobID, TimeUTC: utc, SimTimeSec: sec, ComponentName: s.id.Name, ComponentType: ComponentType,
				NodeID: s.id.NodeID, Tier: int32(s.id.Tier), Subtier: stats.Subtier, Ifid: int64(m),
				EcmpGroupID: int64(id), EcmpGroupIfids: set.ifids, GroupSize: int64(len(set.members)),
				GroupFormedNs: int64(set.formed / sim.Nanosecond), FlowTableSlots: slots,
				Bytes: t.bytes, IvlBytes: t.bytes - pt.bytes, Packets: t.packets, IvlPackets: t.packets - pt.packets,
				Assignments: c.assignments, IvlAssignments: c.assignments - p.assignments,
				MovementsIn: c.movIn, IvlMovementsIn: c.movIn - p.movIn,
				MovementsOut: c.movOut, IvlMovementsOut: c.movOut - p.movOut,
				IvlShare:    share,
				PausedSkips: c.pausedSkips, IvlPausedSkips: c.pausedSkips - p.pausedSkips,
				PausedSelections: c.pausedSels, IvlPausedSelections: c.pausedSels - p.pausedSels,
			})
		}
		copy(set.prevT, set.traffic)
		copy(set.prev, set.cnt)
	}
	s.lastLB = now
}
