package pkt

import (
	"testing"
	"unsafe"
)

// TestPacketSize keeps a packet in flight a small fixed struct: every in-flight frame of
// a large fabric costs this much (the pool allocates them in chunks of 1,024).
func TestPacketSize(t *testing.T) {
	if got := unsafe.Sizeof(Packet{}); got > 80 {
		t.Fatalf("pkt.Packet is %d bytes, want at most 80", got)
	}
}
