package nic

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// TestPCIeRangeClosedForm: the closed forms for the bytes and serialization time of a
// range of transfers equal the transfer-by-transfer sums, for every range of segments
// of 0 to 9,216 B (reads, completions, writes).
func TestPCIeRangeClosedForm(t *testing.T) {
	d := &pcieDir{rateBps: 504.32e9, readHdr: 64 + PCIeOverhead}
	d.fullSer = sim.SerializationNearest(PCIeMaxPayload+PCIeOverhead, d.rateBps)
	d.readSer = sim.SerializationNearest(int64(d.readHdr), d.rateBps)
	for payload := int32(0); payload <= 9216; payload += 37 {
		for _, op := range []uint8{opRead, opCompletion, opWrite} {
			x := xfer{op: op, payload: payload, total: transfers(int64(payload))}
			if op == opRead {
				x.total = 1
			}
			for a := int16(0); a < x.total; a++ {
				for b := a + 1; b <= x.total; b++ {
					var h, p int64
					var ser sim.Time
					for i := a; i < b; i++ {
						hi, pi := d.size(&x, i)
						h, p, ser = h+int64(hi), p+int64(pi), ser+d.ser(&x, i)
					}
					gh, gp := d.bytesOf(&x, a, b)
					if gh != h || gp != p || d.serOf(&x, a, b) != ser {
						t.Fatalf("op %d payload %d [%d,%d): closed form %d+%d B in %d ps, sum %d+%d B in %d ps",
							op, payload, a, b, gh, gp, d.serOf(&x, a, b), h, p, ser)
					}
				}
			}
		}
	}
}
