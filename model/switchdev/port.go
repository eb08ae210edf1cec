package switchdev

import (
	"github.com/rocesweep/rocesweep/model/internal/ring"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// qent is a queued data frame with its admission tag {ingressPort, bytes} (switch.md §2):
// what scheduling, transmission and release need, so that a frame's 64-byte packet is read
// only at Receive. Its class is the FIFO it waits in, its pool and losslessness follow
// from the class (PoolOfTC, LosslessTC; a trimmed frame is TC1 in pool 1, and the UET
// policy maps TC1 to pool 1, §6.1, §6.3). 8 bytes, eight to a cache line.
type qent struct {
	h  pkt.Handle
	in int16  // ingress port
	b  uint16 // charged bytes (at most MSS + 58 < 2^15); top bit: ECN-capable transport
}

const qentECT = 1 << 15

func (q qent) bytes() int64 { return int64(q.b &^ qentECT) }

func (q qent) ect() bool { return q.b&qentECT != 0 }

// poolIng is one port's ingress ledger in one pool (switch.md §2): what admission (§5.2)
// and release (§5.5) read and write for a frame that entered on the port.
type poolIng struct {
	ingOcc int64 // ingress occupancy charged to this port and pool (headroom excluded)
	hdrm   int64 // headroom charged (lossless pools)
}

// poolEg is one port's egress queue in one pool (switch.md §2) and its §9 ECN average:
// what egress admission (§5.3), marking (§9) and transmission (§5.4) read and write for
// a frame that leaves by the port.
type poolEg struct {
	egQ  int64   // egress queue bytes of this port and pool
	avgQ float64 // §9 ECN moving average of egQ
}

// port is one connected port: its transmit side (queues, scheduler, received pauses)
// and its ingress ledger (ingOcc, hdrm, xoff) per pool (switch.md §2).
//
// Layout (TestPortHotLines): line 0 holds what the port touches as an egress for every
// frame (flags, the frame on the wire, the link and its rate, transmit counters, pool 0's
// egQ and ECN average), line 1 what it touches as an ingress (xoff, its own copies of uplink and
// views != nil, receive counters, pool 0's ingOcc and hdrm), then the other pools'
// state, the queues of classes 0 and 1 in one line, and last what only PFC, records and
// checks read. Pool 0 is the data pool of the default TrafficClassPoolMapping, so a data
// frame's hop touches one line of its ingress port and one of its egress port, besides
// the queue; a frame of another pool one more line of each.
type port struct {
	busy      bool  // a frame is being serialised
	busyPfc   bool  // ... and it is a PFC frame this switch made
	queued    uint8 // bit tc set: fifo[tc] holds frames (the scheduler skips empty classes)
	paused    uint8 // bit tc set: a pause received on this port may hold tc (pausedBy)
	pfcQueued bool  // pfcQ holds frames
	txTC      uint8 // class of the data frame being serialised
	uplink    bool  // peer has a smaller tier number ("ul"), else "dl"
	egViews   bool  // views != nil, for the egress side
	tx        qent  // the data frame being serialised
	out       *link.Link
	rate      float64 // out.RateBps, so that a transmission start reads no line of the link
	// Counters (§8; DC-13: frames and wire bytes incl. PFC).
	txFrames, txBytes int64
	eg0               poolEg // pool 0's egress state (eg)

	xoff [8]bool // per pool: a pause is out (§2)
	// uplink and views != nil again, for the ingress side, so that charging and releasing a
	// frame's ingress views reads line 1 only.
	rxUplink, rxViews bool
	peerTier          int8 // 0..3 (3 = NIC)
	_                 [5]byte
	rxFrames, rxBytes int64
	txDrops, rxDrops  int64
	ing0              poolIng // pool 0's ingress ledger (ing)

	egN  [7]poolEg  // pools 1-7 (eg)
	ingN [7]poolIng // pools 1-7 (ing)

	// The conservation ledger in charged bytes (by ingress port: received, sent; by
	// egress port: admitted, sent), kept in invariant builds only (CheckConservation):
	// in others nothing reads it, and every frame would write it.
	rxCharged, sentCharged int64
	egAdmitted, egSent     int64

	fifo [8]ring.Ring[qent]    // per TC, no length limit of its own
	pfcQ ring.Ring[pkt.Handle] // §5.4 step 1: control frames, served first

	rxPausedUntil [8]sim.Time // per TC (§7.3)
	refresh       [8]sim.TimerID
	expiry        [8]sim.TimerID
	pause         [8]pauseLog
	xoffSince     [8]sim.Time // per pool: when xoff last went true (StuckPauses; PFC only, so cold)

	pauseTx, pauseRx   [8]int64
	resumeTx, resumeRx [8]int64
	ecnMarks           [8]int64
	ivlTxBytes         int64 // txBytes at the previous nd-stats row
	ivlRxBytes         int64

	trimCharged int64
	dropCharged int64
	// port-buffer-stats views: nil unless ReportPerPortBufferStats (1,152 B a port that
	// a large fabric should not pay for when nobody asked); egViews and rxViews say
	// whether there are any without reading this line.
	views *portViews
	_     [56]byte // the port is a whole number of lines: every port of a switch starts a line
}

// eg is the port's egress state in pool pl: pool 0's in line 0, with the rest of what
// an egress touches per frame.
func (pt *port) eg(pl int) *poolEg {
	if pl == 0 {
		return &pt.eg0
	}
	return &pt.egN[pl-1]
}

// ing is the port's ingress ledger in pool pl: pool 0's in line 1, with the rest of
// what an ingress touches per frame.
func (pt *port) ing(pl int) *poolIng {
	if pl == 0 {
		return &pt.ing0
	}
	return &pt.ingN[pl-1]
}

// portViews are one port's egressQueue, ingressUsage and hdrm samplers per pool (RC-17).
type portViews struct {
	eg, ing, hdrm [8]sampler
}

// dir is the index of a port's direction in the per-direction views: 0 = ul, 1 = dl.
func dir(uplink bool) int {
	if uplink {
		return 0
	}
	return 1
}

// pausedBy reports whether the peer of port e has paused class tc (§5.4: now <
// rxPausedUntil). The paused bit is set with rxPausedUntil and cleared when the pause is
// lifted or expires (at now = rxPausedUntil), so a clear bit means not paused without
// reading rxPausedUntil's cache line.
func (pt *port) pausedBy(tc int, now sim.Time) bool {
	return pt.paused&(1<<tc) != 0 && now < pt.rxPausedUntil[tc]
}
