package nic

import (
	"testing"
	"unsafe"
)

// TestNICHotLines pins the NIC's per-frame lines: the pointers and rates fill line 0, the
// egress and ingress occupancies lines 1 and 2, the limits of classes 0 and 1 line 3, and
// the transmit parameters share line 7 with the transmit state and class flags.
func TestNICHotLines(t *testing.T) {
	var n NIC
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"offset of egOcc", unsafe.Offsetof(n.egOcc), 64},
		{"offset of inOcc", unsafe.Offsetof(n.inOcc), 128},
		{"offset of lim", unsafe.Offsetof(n.lim), 192},
		{"size of tcLimits", unsafe.Sizeof(tcLimits{}), 32},
		{"offset of txJitter", unsafe.Offsetof(n.txJitter), 448},
		{"offset of pfcEnable (end of line 7)", unsafe.Offsetof(n.pfcEnable), 497},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
