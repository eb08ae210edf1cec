package nic

import (
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// Counters are a NIC's cumulative totals for the job summary and for tests. The first
// eight are what a data frame updates at its sender and its receiver, one cache line
// (TestNICHotLines), and PayloadDeliveredTC the next.
type Counters struct {
	TxFrames, TxBytes int64 // frames and wire bytes sent on the port, PFC included (§16.2)
	RxFrames, RxBytes int64 // frames and wire bytes received
	DataFramesSent    int64 // data frames serialized (retransmissions included)
	DataPayloadSent   int64 // their payload bytes
	PayloadDelivered  int64 // in-order payload written to host memory (receiver)
	MessagesReceived  int64 // SE packets written to host
	// Per data traffic class (the classes table): PayloadDelivered by the QP's data TC,
	// and retransmissions (NAK or timeout rewinds, = Retransmits) by the QP's data TC.
	PayloadDeliveredTC [8]int64
	RetransmitsTC      [8]int64

	RxDrops int64 // ingress admission drops (§8 step 4; nd-stats rx_drops)

	PfcPauseTx, PfcXonTx int64    // PFC frames emitted (all TCs; refreshes included)
	PfcPauseRx, PfcXonRx int64    // PFC frames received (per TC named)
	PfcPausedTime        sim.Time // received-pause time summed over TCs, open pauses to now

	CnpSent, CnpRecvd int64 // = roce num_cnp_sent / num_cnp_recvd
	Retransmits, RTO  int64 // = roce num_rtx / num_rto

	PayloadWritten int64 // in-order payload accepted, incl. writes still on PCIe
	BufferedBytes  int64 // ingress + egress pool occupancy now
	QPs            int   // queue pairs (both roles)

	Roce RoceCounters
}

// RoceCounters are the counters of roce-transport-stats (nic.md §16.1), cumulative. The
// first eight are what a data frame and its ACK update, one cache line (TestNICHotLines).
type RoceCounters struct {
	PktsSent, VerbPktsSent, NonVerbPktsSent int64
	RdmaWriteCnt                            int64
	AcksSent, AcksRecvd                     int64
	WritesRecvd                             int64
	NacksSent                               int64

	ConnPktsSent, ConnPktsRecvd      int64 // 0: connections out of band (§3 [DC])
	RdmaSendCnt, RdmaAtomicCnt       int64
	SacksSent, SacksRecvd            int64
	NacksRecvd                       int64
	SendsRecvd                       int64
	CnpSent, CnpRecvd                int64
	SeqOutOfOrder, Duplicate         int64
	WqeCreated, WqeCompleted         int64
	Rtx, Rto                         int64
	RxDropsNoQpData, RxDropsNoQpCtrl int64
	RxDropsAfterNak, RxDropsGhostAck int64
	TxPayloadDiscards                int64
}

// RxDrops is num_rx_drops: the sum of the four receive-discard reasons (§16.1).
func (r *RoceCounters) RxDrops() int64 {
	return r.RxDropsNoQpData + r.RxDropsNoQpCtrl + r.RxDropsAfterNak + r.RxDropsGhostAck
}

// rttStat accumulates RTT samples (§16.1 calc_rtt_usec): overall max and mean, interval
// min, max and mean.
type rttStat struct {
	n, ivlN             int64
	sum, ivlSum         sim.Time
	max, ivlMin, ivlMax sim.Time
}

func (r *rttStat) sample(t sim.Time) {
	r.n++
	r.sum += t
	r.max = max(r.max, t)
	if r.ivlN == 0 || t < r.ivlMin {
		r.ivlMin = t
	}
	r.ivlMax = max(r.ivlMax, t)
	r.ivlN++
	r.ivlSum += t
}

// reportSnap is the state at the previous report row.
type reportSnap struct {
	at      sim.Time
	txBytes int64
	rxBytes int64
	roce    RoceCounters
}

// Counters returns the NIC's totals at the engine's current time.
func (n *NIC) Counters() Counters {
	c := n.cnt
	c.Roce = n.roce
	c.CnpSent, c.CnpRecvd = n.roce.CnpSent, n.roce.CnpRecvd
	c.Retransmits, c.RTO = n.roce.Rtx, n.roce.Rto
	c.PayloadWritten = n.written
	now := n.eng.Now()
	for tc := 0; tc < 8; tc++ {
		c.PfcPausedTime += n.pausedTime(tc, now)
		c.BufferedBytes += n.inOcc[tc] + n.egOcc[tc]
	}
	c.QPs = len(n.qps)
	return c
}

// PausedTime is TC tc's cumulative received-pause time at the current time (§16.3).
func (n *NIC) PausedTime(tc int) sim.Time { return n.pausedTime(tc, n.eng.Now()) }

// Occupancy returns ingress and egress pool occupancy of tc in bytes.
func (n *NIC) Occupancy(tc int) (ingress, egress int64) { return n.inOcc[tc], n.egOcc[tc] }

func usec(t sim.Time) float64 { return t.Micros() }

// ReportND appends this NIC's rows for the interval ending at now (nic.md §16): one
// nd-stats row (tier 3, ifid 0, "ul"), ecn-pfc-stats rows per TC with an ingress pool
// (skipped while all counters are zero, records.md RC-10) and one roce-transport-stats
// row, each as enabled by the records.md §1 switches of config.Global
// (EnableNetDeviceStatLogging, EnablePFCECNStatsLogging, EnableRoceTransportStats). The
// fabric calls it every NDStatsReportInterval; interval columns cover the span since the
// previous call (or t = 0).
func (n *NIC) ReportND(now sim.Time, rec *stats.Recorder) {
	nd, pfc, roce := n.recND, n.recPFC, n.recRoce
	utc := rec.UTC(now)
	// Rates divide by the configured NDStatsReportInterval, or the actual span when it is
	// shorter (a job's last, partial row), as the switch does (records.md §3).
	ivl := now - n.last.at
	if cfg := n.ndIvl; cfg > 0 && ivl > cfg {
		ivl = cfg
	}
	secs := ivl.Seconds()
	if nd {
		dtx, drx := n.cnt.TxBytes-n.last.txBytes, n.cnt.RxBytes-n.last.rxBytes
		var txr, rxr float64
		if secs > 0 {
			txr = float64(dtx) * 8 / secs / 1e9
			rxr = float64(drx) * 8 / secs / 1e9
		}
		rec.NdStats = append(rec.NdStats, stats.NdStats{
			JobID: rec.JobID, TimeUTC: utc, SimTimeSec: now.Seconds(),
			ComponentName: n.id.Name, NdName: "nic::RoceNetDevice", ComponentType: "NIC",
			Ifid: 0, Uldl: "ul", NodeID: n.id.NodeID, Tier: 3, Subtier: stats.Subtier,
			TotalPacketsTx: n.cnt.TxFrames, TotalPacketsRx: n.cnt.RxFrames,
			TotalBytesTxGB: float64(n.cnt.TxBytes) / 1e9, TotalBytesRxGB: float64(n.cnt.RxBytes) / 1e9,
			IntervalBytesTxMB: float64(dtx) / 1e6, IntervalBytesRxMB: float64(drx) / 1e6,
			TxRateGbps: txr, RxRateGbps: rxr,
			TxLinkPercentUtil: txr / (n.L / 1e9) * 100, RxLinkPercentUtil: rxr / (n.L / 1e9) * 100,
			TxDrops: 0, RxDrops: n.cnt.RxDrops,
		})
	}
	for c := 0; c < 8; c++ {
		s := &n.pfc[c]
		cum := n.pausedTime(c, now)
		ivlPaused := cum - s.lastCum
		ivlMax := s.ivlMax
		if n.paused[c] {
			ivlMax = max(ivlMax, now-max(s.since, n.last.at)) // open pause counts to the row time
		}
		s.lastCum, s.ivlMax = cum, 0
		if !pfc || n.P.Ingress[c] == 0 {
			continue
		}
		if s.xoffTx == 0 && s.xoffRx == 0 && s.xonTx == 0 && s.xonRx == 0 && cum == 0 {
			continue // RC-10: all-zero rows are not written
		}
		pxon := 100.0
		if ivl > 0 {
			pxon = 100 * (1 - float64(ivlPaused)/float64(ivl))
		}
		rec.EcnPfcStats = append(rec.EcnPfcStats, stats.EcnPfcStats{
			JobID: rec.JobID, TimeUTC: utc, SimTimeSec: now.Seconds(), NodeID: n.id.NodeID,
			ComponentName: n.id.Name, ComponentType: "NIC", Ifid: 0, Uldl: "ul", Tier: 3, Subtier: stats.Subtier,
			Priority: int64(c), PfcxoffTx: s.xoffTx, PfcxoffRx: s.xoffRx, PfcxonTx: s.xonTx, PfcxonRx: s.xonRx,
			PfcTimePausedUsec: usec(cum), IntervalTotalTimeXoffUsec: usec(ivlPaused), IntervalMaxTimeXoffUsec: usec(ivlMax),
			PercentXon: pxon,
		})
	}
	if roce {
		rec.RoceTransportStats = append(rec.RoceTransportStats, n.roceRow(now, utc, rec.JobID))
	}
	n.last.at = now
	n.last.txBytes, n.last.rxBytes = n.cnt.TxBytes, n.cnt.RxBytes
	n.last.roce = n.roce
	n.rtt.ivlN, n.rtt.ivlSum, n.rtt.ivlMin, n.rtt.ivlMax = 0, 0, 0, 0
}

func (n *NIC) roceRow(now sim.Time, utc, job string) stats.RoceTransportStats {
	c, l := &n.roce, &n.last.roce
	r := stats.RoceTransportStats{JobID: job, TimeUTC: utc, SimTimeSec: now.Seconds(), ComponentName: n.id.Name, NodeID: n.id.NodeID}
	r.NumPktsSent, r.IvlNumPktsSent = c.PktsSent, c.PktsSent-l.PktsSent
	r.NumVerbPktsSent, r.IvlNumVerbPktsSent = c.VerbPktsSent, c.VerbPktsSent-l.VerbPktsSent
	r.NumNonVerbPktsSent, r.IvlNumNonVerbPktsSent = c.NonVerbPktsSent, c.NonVerbPktsSent-l.NonVerbPktsSent
	r.NumConnPktsSent, r.IvlNumConnPktsSent = c.ConnPktsSent, c.ConnPktsSent-l.ConnPktsSent
	r.NumConnPktsRecvd, r.IvlNumConnPktsRecvd = c.ConnPktsRecvd, c.ConnPktsRecvd-l.ConnPktsRecvd
	r.RdmaWriteCnt, r.IvlRdmaWriteCnt = c.RdmaWriteCnt, c.RdmaWriteCnt-l.RdmaWriteCnt
	r.RdmaSendCnt, r.IvlRdmaSendCnt = c.RdmaSendCnt, c.RdmaSendCnt-l.RdmaSendCnt
	r.RdmaAtomicCnt, r.IvlRdmaAtomicCnt = c.RdmaAtomicCnt, c.RdmaAtomicCnt-l.RdmaAtomicCnt
	r.NumAcksSent, r.IvlNumAcksSent = c.AcksSent, c.AcksSent-l.AcksSent
	r.NumAcksRecvd, r.IvlNumAcksRecvd = c.AcksRecvd, c.AcksRecvd-l.AcksRecvd
	r.NumSacksSent, r.IvlNumSacksSent = c.SacksSent, c.SacksSent-l.SacksSent
	r.NumSacksRecvd, r.IvlNumSacksRecvd = c.SacksRecvd, c.SacksRecvd-l.SacksRecvd
	r.NumNacksSent, r.IvlNumNacksSent = c.NacksSent, c.NacksSent-l.NacksSent
	r.NumNacksRecvd, r.IvlNumNacksRecvd = c.NacksRecvd, c.NacksRecvd-l.NacksRecvd
	r.NumWritesRecvd, r.IvlNumWritesRecvd = c.WritesRecvd, c.WritesRecvd-l.WritesRecvd
	r.NumSendsRecvd, r.IvlNumSendsRecvd = c.SendsRecvd, c.SendsRecvd-l.SendsRecvd
	r.NumCnpSent, r.IvlNumCnpSent = c.CnpSent, c.CnpSent-l.CnpSent
	r.NumCnpRecvd, r.IvlNumCnpRecvd = c.CnpRecvd, c.CnpRecvd-l.CnpRecvd
	r.NumSeqOutOfOrder, r.IvlNumSeqOutOfOrder = c.SeqOutOfOrder, c.SeqOutOfOrder-l.SeqOutOfOrder
	r.NumDuplicate, r.IvlNumDuplicate = c.Duplicate, c.Duplicate-l.Duplicate
	// size_reorder_buf_psn: no reorder buffer, always 0 (§16.1).
	r.NumWqeCreated, r.IvlNumWqeCreated = c.WqeCreated, c.WqeCreated-l.WqeCreated
	r.NumWqeCompleted, r.IvlNumWqeCompleted = c.WqeCompleted, c.WqeCompleted-l.WqeCompleted
	r.NumRtx, r.IvlNumRtx = c.Rtx, c.Rtx-l.Rtx
	r.NumRto, r.IvlNumRto = c.Rto, c.Rto-l.Rto
	// RTT [DC]: 0 with no sample.
	if n.rtt.ivlN > 0 {
		r.IvlMinCalcRttUsec = usec(n.rtt.ivlMin)
		r.IvlMaxCalcRttUsec = usec(n.rtt.ivlMax)
		r.IvlAvgCalcRttUsec = float64(n.rtt.ivlSum) / float64(n.rtt.ivlN) / 1e6
	}
	if n.rtt.n > 0 {
		r.MaxCalcRttUsec = usec(n.rtt.max)
		r.AvgCalcRttUsec = float64(n.rtt.sum) / float64(n.rtt.n) / 1e6
	}
	r.NumRxDrops, r.IvlNumRxDrops = c.RxDrops(), c.RxDrops()-l.RxDrops()
	r.NumRxDropsNoQpData, r.IvlNumRxDropsNoQpData = c.RxDropsNoQpData, c.RxDropsNoQpData-l.RxDropsNoQpData
	r.NumRxDropsNoQpCtrl, r.IvlNumRxDropsNoQpCtrl = c.RxDropsNoQpCtrl, c.RxDropsNoQpCtrl-l.RxDropsNoQpCtrl
	r.NumRxDropsAfterNak, r.IvlNumRxDropsAfterNak = c.RxDropsAfterNak, c.RxDropsAfterNak-l.RxDropsAfterNak
	r.NumRxDropsGhostAck, r.IvlNumRxDropsGhostAck = c.RxDropsGhostAck, c.RxDropsGhostAck-l.RxDropsGhostAck
	r.NumTxPayloadDiscards, r.IvlNumTxPayloadDiscards = c.TxPayloadDiscards, c.TxPayloadDiscards-l.TxPayloadDiscards
	return r
}
