// Package link models one direction of a cable: frames leave a port at serialization end
// and reach the peer's port Delay later (nic.md §6, switch.md §5.4 step 3). As in htsim's
// pipe, a Link keeps its frames in flight in a ring and keeps only the head scheduled, so
// the event set holds one entry per busy link, not one per frame.
package link

import (
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// KindDeliver is the event that hands the head frame of link Dev to its far end.
const KindDeliver sim.Kind = sim.Kind(sim.OwnerLink)<<8 | 0x01

// Endpoint names a device port: the owner package, the device index and the port.
// 8 bytes (TestLinkHotLine).
type Endpoint struct {
	Owner sim.Owner
	Port  int16
	Dev   int32
}

// inFlight is one frame on the link: 16 bytes, four to a cache line.
type inFlight struct {
	at    sim.Time
	h     pkt.Handle
	bytes int32 // wire bytes (at most MSS + 58)
}

// Link is one direction of a cable between two device ports.
//
// Layout: what every Send and Deliver reads or writes (the ring, its head and length,
// Delay, the far end and ID) and what the sending switch reads at each frame (RateBps)
// share the first 64-byte cache line, so a hop touches one line of the link besides the
// ring slot (TestLinkHotLine); From, read only when building records, follows, padded to
// a second line so that in a slice of links every link's first line is a whole line.
type Link struct {
	ring    []inFlight // power-of-2 ring of the frames in flight, oldest at head
	head, n uint32
	Delay   sim.Time // propagation delay: the lower-tier (larger tier number) end's Delay
	RateBps float64  // operating rate: the lower of the two ends' DataRate
	ID      int32    // index in the fabric's link slice; the Dev of its events
	To      Endpoint // receiving port

	From Endpoint // sending port
	_    [56]byte // 128 bytes: a slice's links start on line boundaries
}

// Send puts frame h (already serialized by the sender) on the link at time now; it arrives
// at now + Delay. Frames arrive in the order sent.
func (l *Link) Send(eng *sim.Engine, now sim.Time, h pkt.Handle, wireBytes int64) {
	if int(l.n) == len(l.ring) {
		l.grow()
	}
	at := now + l.Delay
	l.ring[int(l.head+l.n)&(len(l.ring)-1)] = inFlight{at: at, h: h, bytes: int32(wireBytes)} // power-of-2 ring
	l.n++
	if l.n == 1 {
		eng.Schedule(at, KindDeliver, l.ID, 0, 0)
	}
}

// Deliver pops the head frame when its KindDeliver event fires and schedules the next.
// The caller hands the frame to l.To.
func (l *Link) Deliver(eng *sim.Engine) pkt.Handle {
	mask := uint32(len(l.ring) - 1)
	h := l.ring[l.head&mask].h
	l.head = (l.head + 1) & mask
	l.n--
	if l.n > 0 {
		eng.Schedule(l.ring[l.head&mask].at, KindDeliver, l.ID, 0, 0)
	}
	return h
}

// InFlight returns the frames and wire bytes on the link now (ledger checks: the bytes
// are summed here rather than kept up to date on every frame).
func (l *Link) InFlight() (frames int, bytes int64) {
	for i := uint32(0); i < l.n; i++ {
		bytes += int64(l.ring[int(l.head+i)&(len(l.ring)-1)].bytes)
	}
	return int(l.n), bytes
}

func (l *Link) grow() {
	size := 2 * len(l.ring) // stays a power of 2: indices wrap with a mask
	if size == 0 {
		size = 16
	}
	r := make([]inFlight, size)
	for i := uint32(0); i < l.n; i++ {
		r[i] = l.ring[int(l.head+i)&(len(l.ring)-1)]
	}
	l.ring, l.head = r, 0
}
