// Package link models one direction of a cable: frames leave a port at serialization end
// and reach the peer's port Delay later (nic.md §6, switch.md §5.4 step 3). As in htsim's
// pipe, a Link keeps its frames in flight in a ring and keeps only the head scheduled, so
// the event set holds one entry per busy link, not one per frame.
package link

import (
	"unsafe"

	"github.com/rocesweep/rocesweep/model/internal/ring"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// KindDeliver is the event that hands the head frame of link Dev to its far end; its Arg
// is that frame's handle (a hint for prefetching: Deliver pops the frame from the ring).
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
	q       ring.Ring[inFlight] // the frames in flight, oldest at head
	Delay   sim.Time            // propagation delay: the lower-tier (larger tier number) end's Delay
	RateBps float64             // operating rate: the lower of the two ends' DataRate
	ID      int32               // index in the fabric's link slice; the Dev of its events
	To      Endpoint            // receiving port

	From Endpoint // sending port
	_    [56]byte // 128 bytes: a slice's links start on line boundaries
}

// Send puts frame h (already serialized by the sender) on the link at time now; it arrives
// at now + Delay. Frames arrive in the order sent.
func (l *Link) Send(eng *sim.Engine, now sim.Time, h pkt.Handle, wireBytes int64) {
	at := now + l.Delay
	l.q.Push(inFlight{at: at, h: h, bytes: int32(wireBytes)})
	if l.q.Len() == 1 {
		eng.Schedule(at, KindDeliver, l.ID, 0, int64(h))
	}
}

// Deliver pops the head frame when its KindDeliver event fires and schedules the next.
// The caller hands the frame to l.To.
func (l *Link) Deliver(eng *sim.Engine) pkt.Handle {
	h := l.q.Pop().h
	if l.q.Len() > 0 {
		next := l.q.Peek()
		eng.Schedule(next.at, KindDeliver, l.ID, 0, int64(next.h))
	}
	return h
}

// InFlight returns the frames and wire bytes on the link now (ledger checks: the bytes
// are summed here rather than kept up to date on every frame).
func (l *Link) InFlight() (frames int, bytes int64) {
	for i := 0; i < l.q.Len(); i++ {
		bytes += int64(l.q.At(i).bytes)
	}
	return l.q.Len(), bytes
}

// PrefetchHead hints the processor to load the head frame's slot, which Deliver reads.
func (l *Link) PrefetchHead() {
	if h := l.q.Head(); h != nil {
		sim.Prefetch(unsafe.Pointer(h))
	}
}
