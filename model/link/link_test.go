package link

import (
	"testing"
	"unsafe"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// TestLinkHotLine pins the layout that keeps a hop to one cache line of its link: every
// field Send and Deliver touch, and RateBps, lie in the first 64 bytes; a frame in flight
// is 16 bytes; a Link is two whole lines, so links in a slice start on a line.
func TestLinkHotLine(t *testing.T) {
	var l Link
	for _, f := range []struct {
		name      string
		off, size uintptr
	}{
		{"q", unsafe.Offsetof(l.q), unsafe.Sizeof(l.q)},
		{"Delay", unsafe.Offsetof(l.Delay), unsafe.Sizeof(l.Delay)},
		{"RateBps", unsafe.Offsetof(l.RateBps), unsafe.Sizeof(l.RateBps)},
		{"ID", unsafe.Offsetof(l.ID), unsafe.Sizeof(l.ID)},
		{"To", unsafe.Offsetof(l.To), unsafe.Sizeof(l.To)},
	} {
		if f.off+f.size > 64 {
			t.Errorf("Link.%s at bytes [%d, %d): outside the first cache line", f.name, f.off, f.off+f.size)
		}
	}
	if got := unsafe.Sizeof(inFlight{}); got != 16 {
		t.Errorf("inFlight is %d bytes, want 16", got)
	}
	if got := unsafe.Sizeof(l); got != 128 {
		t.Errorf("Link is %d bytes, want 128: two whole lines", got)
	}
}

// TestLinkFIFO sends frames through a link across ring growth and checks that they
// arrive in order, Delay after they were sent, with InFlight counting frames and bytes.
func TestLinkFIFO(t *testing.T) {
	eng := sim.NewEngine()
	l := &Link{ID: 3, Delay: 1000}
	const frames = 40 // grows the ring from 16 to 64
	for i := 1; i <= frames; i++ {
		l.Send(eng, sim.Time(i*10), pkt.Handle(i), int64(100+i))
	}
	n, b := l.InFlight()
	if want := int64(frames*100 + frames*(frames+1)/2); n != frames || b != want {
		t.Fatalf("InFlight = %d frames, %d B; want %d, %d", n, b, frames, want)
	}
	for i := 1; i <= frames; i++ {
		ev, ok := eng.Next()
		if !ok || ev.Kind != KindDeliver || ev.Dev != 3 || ev.At != sim.Time(i*10+1000) {
			t.Fatalf("event %d: %+v %v; want delivery of link 3 at %d", i, ev, ok, i*10+1000)
		}
		if h := l.Deliver(eng); h != pkt.Handle(i) {
			t.Fatalf("delivery %d: handle %d", i, h)
		}
	}
	if _, ok := eng.Next(); ok {
		t.Fatal("an event after the last delivery")
	}
	if n, b := l.InFlight(); n != 0 || b != 0 {
		t.Fatalf("InFlight after draining = %d, %d", n, b)
	}
}
