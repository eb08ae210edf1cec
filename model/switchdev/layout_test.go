package switchdev

import (
	"testing"
	"unsafe"

	"github.com/rocesweep/rocesweep/model/internal/ring"
)

// TestPortHotLines pins the port layout: what an egress touches per frame fills line 0
// (with its link's rate and pool 0's egQ and ECN average), what an ingress touches line 1 (with its own
// copies of uplink and views != nil, and pool 0's ingOcc and hdrm), a queue is 32 bytes
// and a queue entry 8 (the queues of classes 0 and 1 share a line), and the port is a
// whole number of lines.
func TestPortHotLines(t *testing.T) {
	var pt port
	checkLayout(t, []layoutCheck{
		{"offset of rate (line 0)", unsafe.Offsetof(pt.rate), 24},
		{"offset of eg0 (end of line 0)", unsafe.Offsetof(pt.eg0), 48},
		{"size of poolEg", unsafe.Sizeof(poolEg{}), 16},
		{"offset of xoff (first field of line 1)", unsafe.Offsetof(pt.xoff), 64},
		{"offset of rxUplink (line 1)", unsafe.Offsetof(pt.rxUplink), 72},
		{"offset of rxViews (line 1)", unsafe.Offsetof(pt.rxViews), 73},
		{"offset of ing0 (end of line 1)", unsafe.Offsetof(pt.ing0), 112},
		{"size of poolIng", unsafe.Sizeof(poolIng{}), 16},
		{"offset of fifo mod 64", unsafe.Offsetof(pt.fifo) % 64, 0},
		{"size of ring", unsafe.Sizeof(ring.Ring[qent]{}), 32},
		{"size of qent", unsafe.Sizeof(qent{}), 8},
		{"size of port mod 64", unsafe.Sizeof(pt) % 64, 0},
	})
	t.Logf("port: %d B", unsafe.Sizeof(pt))
}

// TestSwitchHotLines pins the switch layout: what every frame reads fills line 0 (with
// the pointer to the shared buffer parameters), the per-frame counters line 1, the
// buffer parameters and ECN settings hold the class maps and thresholds in their first 64
// bytes and each pool's 32 bytes follow (pools 0 and 1 together), the route cache's
// first line holds what every lookup reads, an ECMP set's first line what every frame
// through it reads, each pool's totals and views start a line, one view to a line, and a
// switch is an odd number of whole lines.
func TestSwitchHotLines(t *testing.T) {
	var s Switch
	var c Counters
	var fp frameParams
	var es ecmpState
	var set ecmpSet
	checkLayout(t, []layoutCheck{
		{"offset of fp (end of line 0)", unsafe.Offsetof(s.fp), 56},
		{"offset of c", unsafe.Offsetof(s.c), 64},
		{"offset of MaxPoolBytes (last per-frame counter)", unsafe.Offsetof(c.MaxPoolBytes), 56},
		{"offset of fp.ecnOn (line 0 of fp)", unsafe.Offsetof(fp.ecnOn), 57},
		{"offset of fp.pool", unsafe.Offsetof(fp.pool), 64},
		{"size of poolParams", unsafe.Sizeof(poolParams{}), 32},
		{"offset of ecmp mod 64", unsafe.Offsetof(s.ecmp) % 64, 0},
		{"offset of ecmpState.dst (line 0 of ecmp)", unsafe.Offsetof(es.dst), 40},
		{"size of ecmpState mod 64", unsafe.Sizeof(es) % 64, 0},
		{"offset of ecmpSet.formed (end of its line 0)", unsafe.Offsetof(set.formed), 56},
		{"size of ecmpSet", unsafe.Sizeof(set), 192},
		{"offset of pools mod 64", unsafe.Offsetof(s.pools) % 64, 0},
		{"size of lineSampler", unsafe.Sizeof(lineSampler{}), 64},
		{"offset of ing in swPool", unsafe.Offsetof(s.pools[0].ing), 64},
		{"size of swPool", unsafe.Sizeof(swPool{}), 320},
		{"size of Switch mod 64", unsafe.Sizeof(s) % 64, 0},
		{"size of Switch in lines mod 2 (odd)", unsafe.Sizeof(s) / 64 % 2, 1},
	})
}

// layoutCheck is one offset or size a layout test pins.
type layoutCheck struct {
	name      string
	got, want uintptr
}

func checkLayout(t *testing.T, checks []layoutCheck) {
	t.Helper()
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
