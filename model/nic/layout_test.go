package nic

import (
	"testing"
	"unsafe"
)

// TestNICHotLines pins the NIC's per-frame lines: the pointers and rates fill line 0, the
// egress and ingress occupancies lines 1 and 2, the per-frame flags and parameters lines 3
// and 4 (with the pointer to the shared per-class limits), the dedicated queue shares
// line 5 with class 0's egress queue, the per-frame counters of Counters and RoceCounters are a line
// each, each PCIe direction takes three lines of its own, and a NIC is an odd number of
// whole lines.
func TestNICHotLines(t *testing.T) {
	var n NIC
	var c Counters
	var r RoceCounters
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"offset of egOcc", unsafe.Offsetof(n.egOcc), 64},
		{"offset of inOcc", unsafe.Offsetof(n.inOcc), 128},
		{"size of tcLimits", unsafe.Sizeof(tcLimits{}), 32},
		{"offset of txCur (line 3)", unsafe.Offsetof(n.txCur), 192},
		{"offset of rto (end of line 3)", unsafe.Offsetof(n.rto), 248},
		{"offset of OnDelivered (line 4)", unsafe.Offsetof(n.OnDelivered), 296},
		{"offset of lim (line 4)", unsafe.Offsetof(n.lim), 304},
		{"offset of dedicated (line 5)", unsafe.Offsetof(n.dedicated), 320},
		{"offset of txq (line 5)", unsafe.Offsetof(n.txq), 352},
		{"offset of cnt mod 64", unsafe.Offsetof(n.cnt) % 64, 0},
		{"offset of Counters.MessagesReceived (end of its first line)", unsafe.Offsetof(c.MessagesReceived), 56},
		{"offset of roce mod 64", unsafe.Offsetof(n.roce) % 64, 0},
		{"offset of RoceCounters.NacksSent (end of its first line)", unsafe.Offsetof(r.NacksSent), 56},
		{"offset of n2h mod 64", unsafe.Offsetof(n.n2h) % 64, 0},
		{"size of pcieDir", unsafe.Sizeof(pcieDir{}), 192},
		{"size of NIC mod 64", unsafe.Sizeof(n) % 64, 0},
		{"size of NIC in lines mod 2 (odd)", unsafe.Sizeof(n) / 64 % 2, 1},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

// TestQPHotLines pins the QP layout: both roles' per-packet fields and a requester's
// fetch state fill line 0, a requester's window, RTT ring and DCQCN flag line 1, a
// responder's state line 3, and a QP is a whole number of lines (the NIC holds them by
// value in one table).
func TestQPHotLines(t *testing.T) {
	var q qp
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"offset of una (end of line 0)", unsafe.Offsetof(q.una), 56},
		{"offset of cc.congested (line 1)", unsafe.Offsetof(q.cc) + unsafe.Offsetof(q.cc.congested), 112},
		{"offset of cc.p (end of line 1)", unsafe.Offsetof(q.cc) + unsafe.Offsetof(q.cc.p), 120},
		{"offset of expected (line 3)", unsafe.Offsetof(q.expected), 200},
		{"offset of gap (line 3)", unsafe.Offsetof(q.gap), 228},
		{"size of qp", unsafe.Sizeof(q), 320},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
