package nic

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// TestNoControlPool: a control class without an egress pool sends no ACK or NAK (nic.md
// §4, §6); only the sender's retransmission timer moves the QP (§10), round after round,
// and the message never completes. Both NICs have the egress vector [1, 0, …]: TC0 holds
// 256,000 B, control TC1 has no pool. A posts one 32 KiB WRITE (8 packets) at t = 0 and
// the pair runs 200 ms:
//
//   - the 8 frames (8 × 4,154 B) fit TC0's pool and all go out; B accepts them in order
//     (E = 8) and writes 32,768 B to its host. Coalescing (AckThreshold 16) holds packets
//     1-7, and packet 8's SE would send the one ACK of the round: it is never built, so
//     B's num_acks_sent stays 0 and B sends no frame at all.
//   - A's timer started when PSN 0 was numbered, 150.843 ns after the post (§17), so it
//     fires at 64 ms + 150.843 ns: num_rto 1, rewind to PSN 0, the 8 packets are fetched
//     and sent again, the timer restarting when PSN 0 is numbered again 150.843 ns after
//     the expiry (the 80 ns generation start, the read and its completion). Expiries at
//     k × (64 ms + 150.843 ns): 3 by 200 ms (the 4th is due at 256.0006 ms).
//   - Each resent round is 8 duplicates at B (PSN < E), its SE duplicate again an ACK
//     that is never built.
//
// So A: rdma_write_cnt 4 × 8 = 32, num_rto = num_rtx = 3, num_acks_recvd 0, no
// completion; B: num_writes_recvd 32, num_duplicate 24, num_acks_sent = num_nacks_sent = 0.
// The same pair with the default vector (a 25,600 B TC1 pool) sends exactly the one ACK
// and completes the message with no timeout.
func TestNoControlPool(t *testing.T) {
	for _, c := range []struct {
		name                                   string
		vec                                    config.Vec8
		writes, rto, acks, dups, done, bFrames int64
	}{
		{"no control pool", config.Vec8{1}, 32, 3, 0, 24, 0, 0},
		{"default pools", config.Vec8{0.9, 0.1}, 8, 0, 1, 0, 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, b := defaultCfgs()
			a.NetworkInterface.EgressBufferManager.PoolAllocationVector = c.vec
			b.NetworkInterface.EgressBufferManager.PoolAllocationVector = c.vec
			pr := newPair(t, &a, &b)
			pr.post(0, 0, 32<<10, 1)
			pr.run(200 * sim.Millisecond)
			A, B := pr.nics[0].Counters(), pr.nics[1].Counters()
			if A.Roce.RdmaWriteCnt != c.writes || A.Roce.Rto != c.rto || A.Roce.Rtx != c.rto || A.Roce.AcksRecvd != c.acks {
				t.Errorf("A: rdma_write_cnt %d num_rto %d num_rtx %d num_acks_recvd %d, want %d, %d, %d, %d",
					A.Roce.RdmaWriteCnt, A.Roce.Rto, A.Roce.Rtx, A.Roce.AcksRecvd, c.writes, c.rto, c.rto, c.acks)
			}
			if B.Roce.WritesRecvd != c.writes || B.Roce.Duplicate != c.dups || B.Roce.AcksSent != c.acks || B.Roce.NacksSent != 0 || B.TxFrames != c.bFrames {
				t.Errorf("B: num_writes_recvd %d num_duplicate %d num_acks_sent %d num_nacks_sent %d frames sent %d, want %d, %d, %d, 0, %d",
					B.Roce.WritesRecvd, B.Roce.Duplicate, B.Roce.AcksSent, B.Roce.NacksSent, B.TxFrames, c.writes, c.dups, c.acks, c.bFrames)
			}
			if int64(len(pr.done)) != c.done || B.PayloadDelivered != 32<<10 {
				t.Errorf("%d completions, %d B delivered; want %d, 32,768", len(pr.done), B.PayloadDelivered, c.done)
			}
			if err := pr.nics[1].Stalled(); err != nil {
				t.Errorf("Stalled() = %v: a missing control pool is no stall", err)
			}
			if pr.pool.InUse() != 0 {
				t.Errorf("%d frames still held: an ACK that can never be sent must not wait", pr.pool.InUse())
			}
		})
	}
}
