package nic

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// BenchmarkPairLineRate streams one long WRITE from A to B at line rate; one op is one data
// packet delivered (with its PCIe reads, completions, writes, link hops and ACK share).
// Setup and a 20,000-packet warm-up (rings and QP tables grow) are outside the timer.
func BenchmarkPairLineRate(b *testing.B) {
	ca, cb := defaultCfgs()
	pr := newPair(b, &ca, &cb)
	pr.nics[1].OnDelivered = nil
	const warm = 20000
	pr.post(0, 0, int64(warm+b.N+64)*4096, 1)
	B := pr.nics[1]
	step := func(target int64) {
		for B.roce.WritesRecvd < target {
			ev, ok := pr.eng.Next()
			if !ok {
				b.Fatal("engine ran dry")
			}
			switch ev.Kind.Owner() {
			case sim.OwnerLink:
				h := pr.links[ev.Dev].Deliver(pr.eng)
				pr.nics[1-ev.Dev].Receive(h)
			case sim.OwnerNIC:
				pr.nics[ev.Dev].Handle(&ev)
			}
		}
	}
	step(warm)
	b.ReportAllocs()
	b.ResetTimer()
	ev0 := pr.eng.Fired()
	step(warm + int64(b.N))
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
	b.ReportMetric(float64(pr.eng.Fired()-ev0)/float64(b.N), "events/pkt")
}
