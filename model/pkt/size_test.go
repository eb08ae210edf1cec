package pkt

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestPacketSize keeps a packet in flight a small fixed struct: every in-flight frame of
// a large fabric costs this much (the pool allocates them in chunks of 1,024), and one
// cache line: 64 bytes, so that no packet straddles two lines.
func TestPacketSize(t *testing.T) {
	if got := unsafe.Sizeof(Packet{}); got != 64 {
		t.Fatalf("pkt.Packet is %d bytes, want 64: one cache line", got)
	}
}

// BenchmarkPoolInFlight holds 100,000 packets in flight from a pool and reports the heap
// each costs (B/packet: the struct, its live flag and its free-list slot) and the cost of
// a New/Free pair in steady state (0 allocs/op).
func BenchmarkPoolInFlight(b *testing.B) {
	const inFlight = 100_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	pl := &Pool{}
	hs := make([]Handle, inFlight)
	for i := range hs {
		hs[i], _ = pl.New()
	}
	for _, h := range hs {
		pl.Free(h)
	}
	for i := range hs {
		hs[i], _ = pl.New()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perPacket := float64(after.HeapAlloc-before.HeapAlloc-uint64(len(hs))*4) / inFlight
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % inFlight
		pl.Free(hs[k])
		hs[k], _ = pl.New()
	}
	b.ReportMetric(perPacket, "B/packet")
	runtime.KeepAlive(pl)
}

// TestFreeTwicePanics: a handle freed twice, never handed out, or 0 is a model bug.
func TestFreeTwicePanics(t *testing.T) {
	var pl Pool
	h, _ := pl.New()
	c, _ := pl.Clone(h)
	pl.Free(h)
	pl.Free(c)
	for _, bad := range []Handle{h, c, 0, -1, 99} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Free(%d) did not panic", bad)
				}
			}()
			pl.Free(bad)
		}()
	}
	if h2, p := pl.New(); h2 != c || !p.live || pl.InUse() != 1 {
		t.Errorf("New after frees: handle %d live %v in use %d, want %d true 1", h2, p.live, pl.InUse(), c)
	}
}
