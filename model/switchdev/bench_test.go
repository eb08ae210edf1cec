package switchdev

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

const kindGen sim.Kind = sim.Kind(sim.OwnerTest)<<8 | 0x03 // Port = ingress port

// BenchmarkForward32: a 32-port switch forwarding at line rate, every port receiving
// 4,000 B TC0 packets at 400 Gbps for host (i+1) mod 32. "permutation": host k on port k
// (no congestion, every packet forwarded). "ecmp": host k over ports {k, k+16}
// (crc32WithSalt); hashing imbalance congests some ports and the scripted senders ignore
// pauses, so a few packets drop. One op = one offered packet.
func BenchmarkForward32(b *testing.B) {
	b.Run("permutation", func(b *testing.B) { benchForward(b, false) })
	b.Run("ecmp", func(b *testing.B) { benchForward(b, true) })
}

func benchForward(b *testing.B, ecmp bool) {
	const n = 32
	cfg := config.DefaultSwitch()
	f := newFab(b)
	f.keep = false
	routes := make([][]int16, n)
	for i := range routes {
		routes[i] = []int16{int16(i)}
		if ecmp {
			routes[i] = []int16{int16(i % 16), int16(i%16 + 16)}
		}
	}
	sw := f.addSwitch(&cfg, 1, n, rate400, delay, func(d int32) []int16 { return routes[d] })
	left := b.N
	for i := 0; i < n; i++ {
		f.eng.Schedule(sim.Time(i), kindGen, 0, int16(i), 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for {
		ev, ok := f.eng.Next()
		if !ok {
			break
		}
		if ev.Kind == kindGen {
			if left == 0 {
				continue
			}
			left--
			i := int32(ev.Port)
			sw.Receive(ev.Port, f.data(0, 4000, i, (i+1)%n, uint16(left)))
			f.eng.After(ser4000, kindGen, 0, ev.Port, 0)
			continue
		}
		f.step(ev)
	}
	b.StopTimer()
	c := sw.Counters()
	if c.TxFrames-c.TxPfcFrames+c.RxDrops+c.TxDrops != int64(b.N) || !ecmp && c.RxDrops+c.TxDrops != 0 {
		b.Fatalf("forwarded %d of %d, drops %d", c.TxFrames-c.TxPfcFrames, b.N, c.RxDrops+c.TxDrops)
	}
	if err := sw.CheckConservation(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
}
