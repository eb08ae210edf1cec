package nic

// onAck handles ACK(a) at requester q (nic.md §10).
func (n *NIC) onAck(q *qp, a int64, peerQPN uint32) {
	if a > q.maxAssigned {
		n.roce.RxDropsGhostAck++ // ghost: names a never-assigned PSN; [DC] not in num_acks_recvd
		return
	}
	n.roce.AcksRecvd++
	if q.peerQPN == 0 {
		q.peerQPN = peerQPN
	}
	if a < q.una {
		return // nothing retired
	}
	now := n.eng.Now()
	q.una = a + 1
	// RTT [DC]: now minus the serialization end of the latest transmission of PSN a.
	n.rtt.sample(now - q.sentAt.get(a))
	if a >= q.nxt {
		// §10 [DC]: an ACK past nxt (after a rewind) advances nxt and the cursor; the epoch
		// bump makes reads already issued for the skipped segments stale.
		q.nxt = a + 1
		q.cursor = q.nxt - q.msgBase
		q.epoch++
	}
	if q.una < q.nxt {
		n.eng.Reset(q.rtxTimer, now+n.rto) // PSNs remain: restart
	} else {
		n.eng.Stop(q.rtxTimer) // window empty: stop
	}
	if q.active && q.una >= q.msgBase+q.msgSegs {
		n.complete(q)
	}
}

// onNak handles NAK(p) at requester q (§10): retire below p, then go back to p.
func (n *NIC) onNak(q *qp, p int64, peerQPN uint32) {
	if p > q.maxAssigned {
		n.roce.RxDropsGhostAck++
		return
	}
	n.roce.NacksRecvd++
	if q.peerQPN == 0 {
		q.peerQPN = peerQPN
	}
	if p < q.una {
		return // [DC] stale NAK: ignored
	}
	q.una = p
	n.roce.Rtx++
	n.cnt.RetransmitsTC[q.dataTC]++
	n.rewind(q, p)
}

// rtxExpired is the retransmission timer's expiry (§10): fixed interval, no backoff, no
// retry limit; rewind to una and resend the whole window.
func (n *NIC) rtxExpired(q *qp) {
	n.roce.Rto++
	n.roce.Rtx++
	n.cnt.RetransmitsTC[q.dataTC]++
	n.rewind(q, q.una)
}

// rewind goes back to PSN p (§10): nxt = p (the window empties, the timer stops), epoch++
// so reads issued before are discarded on arrival, the cursor moves to p's segment and the
// QP is re-queued. Already-numbered queued frames are still sent [DC]. The first re-sent
// PSN restarts the timer.
func (n *NIC) rewind(q *qp, p int64) {
	q.nxt = p
	n.eng.Stop(q.rtxTimer)
	q.epoch++
	q.cursor = p - q.msgBase
	if q.active {
		n.appendReady(q)
	}
}

// complete retires the active message once its last PSN is acknowledged (§10): host
// notified, num_wqe_completed++, the next WR becomes eligible. The epoch is bumped so no
// late read of this message can be numbered into the next one.
func (n *NIC) complete(q *qp) {
	n.roce.WqeCompleted++
	n.eng.Stop(q.rtxTimer)
	q.active = false
	q.epoch++
	m := q.msg
	if n.OnComplete != nil {
		n.OnComplete(Completion{Tag: m.Tag, Src: n.id.Host, Dst: m.Dst, QP: m.QP, Size: m.Size,
			Posted: m.posted, Completed: n.eng.Now(), DataTC: q.dataTC})
	}
	if !q.active && q.wrq.Len() > 0 {
		n.startMessage(q)
	}
}
