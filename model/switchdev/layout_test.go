package switchdev

import (
	"testing"
	"unsafe"
)

// TestPortHotLines pins the port layout of issue 15: the flags, the link and the
// per-frame counters fill the first two 64-byte lines, each pool's state is 32 bytes
// (pools 0 and 1, the usual data and control pools, share the third line), and a queue
// is 32 bytes.
func TestPortHotLines(t *testing.T) {
	var pt port
	checks := []struct {
		name string
		got  uintptr
		want uintptr
	}{
		{"offset of rxBytes (last field of line 0)", unsafe.Offsetof(pt.rxBytes), 56},
		{"offset of rxDrops (last field of line 1)", unsafe.Offsetof(pt.rxDrops), 120},
		{"offset of pl", unsafe.Offsetof(pt.pl), 128},
		{"size of poolState", unsafe.Sizeof(poolState{}), 32},
		{"size of ring", unsafe.Sizeof(ring{}), 32},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
	t.Logf("port: %d B", unsafe.Sizeof(pt))
}
