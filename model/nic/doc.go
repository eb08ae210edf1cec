// Package nic is the RoCEv2 NIC model of docs/nic.md: queue pairs and the go-back-N
// transport, the PCIe host link, the NIC's ingress and egress buffer pools and PFC, the
// transmit scheduler, DCQCN rate control, and the NIC's records. One NIC serves one host
// and has one Ethernet port toward its rack switch.
//
// Where each rule lives (every rule sits next to a comment naming its section):
//
//	pools.go   §11, §12, §17 derived numbers (ComputePools, also for `rocesweep explain`)
//	qp.go      §3 QPs, WR FIFO, ready queue, generation state machine; §4 segmentation and
//	           egress reservation, half-pool unblock
//	pcie.go    §5 both PCIe directions, credit-gated TX/RX buffers, 512 B + 34 B transfers,
//	           read requests, received-data writes releasing the ingress charge
//	tx.go      §6 frames, §7 dedicated queue and SP/RR/WRR, port serialization
//	rx.go      §8 receive path, §9 ACK coalescing, ingress release and XON-on-release
//	sender.go  §10 ACK/NAK, ghosts, rewind/epochs, retransmission timer, completion
//	pfc.go     §12 PFC emission, refresh, honouring received pauses
//	dcqcn.go   §13 DCQCN loop
//	report.go  §16 nd-stats, ecn-pfc-stats, roce-transport-stats; Counters
//
// Integration contract (the fabric):
//   - Build with New; out is the NIC's transmit link (RateBps = L = min of the NIC's and
//     the switch downlink's DataRate, Delay = the NIC's Delay). The NIC calls
//     out.Send(eng, now, h, wire) at each frame's serialization end and hands over the
//     frame; wire is the nic.md size (payload + 58, 126, 122, 84), not padded.
//   - Dispatch events of owner sim.OwnerNIC with Dev = Identity.Dev to Handle.
//   - Give every frame arriving from the switch to Receive; the NIC frees it.
//   - Post doorbells; set OnComplete (sender, per WR), OnDelivered and OnReceived
//     (receiver) before the run. Callbacks run synchronously and may Post.
//   - Call ReportND every NDStatsReportInterval; check Stalled() when a run ends or
//     stops making progress: a data-TC egress pool smaller than one packet blocks the NIC
//     for good (nic.md §4), and that is reported there rather than as a silent hang.
//
// Frames carry Proto UDP, DPort 4791, DSCP = TC × 8, SrcIP/DstIP = host + 1 and a per-QP
// UDP source port (sourcePort) for ECMP entropy; data frames carry the sender's host, QPN
// and TC pair as metadata so the receiver can create the responder QP (§3 [DC]).
package nic
