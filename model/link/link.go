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
type Endpoint struct {
	Owner sim.Owner
	Dev   int32
	Port  int16
}

type inFlight struct {
	at    sim.Time
	h     pkt.Handle
	bytes int64
}

// Link is one direction of a cable between two device ports.
type Link struct {
	ID      int32    // index in the fabric's link slice; the Dev of its events
	From    Endpoint // sending port
	To      Endpoint // receiving port
	RateBps float64  // operating rate: the lower of the two ends' DataRate
	Delay   sim.Time // propagation delay: the lower-tier (larger tier number) end's Delay

	ring       []inFlight
	head, n    int
	bytes      int64 // wire bytes in flight
	FramesSent int64
	BytesSent  int64
}

// Send puts frame h (already serialized by the sender) on the link at time now; it arrives
// at now + Delay. Frames arrive in the order sent.
func (l *Link) Send(eng *sim.Engine, now sim.Time, h pkt.Handle, wireBytes int64) {
	if l.n == len(l.ring) {
		l.grow()
	}
	at := now + l.Delay
	l.ring[(l.head+l.n)&(len(l.ring)-1)] = inFlight{at: at, h: h, bytes: wireBytes} // power-of-2 ring
	l.n++
	l.bytes += wireBytes
	l.FramesSent++
	l.BytesSent += wireBytes
	if l.n == 1 {
		eng.Schedule(at, KindDeliver, l.ID, 0, 0)
	}
}

// Deliver pops the head frame when its KindDeliver event fires and schedules the next.
// The caller hands the frame to l.To.
func (l *Link) Deliver(eng *sim.Engine) pkt.Handle {
	f := l.ring[l.head]
	l.head = (l.head + 1) & (len(l.ring) - 1)
	l.n--
	l.bytes -= f.bytes
	if l.n > 0 {
		eng.Schedule(l.ring[l.head].at, KindDeliver, l.ID, 0, 0)
	}
	return f.h
}

// InFlight returns the frames and wire bytes on the link now.
func (l *Link) InFlight() (frames int, bytes int64) { return l.n, l.bytes }

func (l *Link) grow() {
	size := 2 * len(l.ring) // stays a power of 2: indices wrap with a mask
	if size == 0 {
		size = 16
	}
	r := make([]inFlight, size)
	for i := 0; i < l.n; i++ {
		r[i] = l.ring[(l.head+i)&(len(l.ring)-1)]
	}
	l.ring, l.head = r, 0
}
