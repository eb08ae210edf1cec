package nic

import (
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Building blocks of the 1 MiB arithmetic (nic.md §17): data frame 83.08 ns, ACK 2.52 ns,
// link 100 ns, first packet fetched at 150.843 ns (80 + 1.555 + 8 x 8.661).
const (
	tData   = 83080 * sim.Picosecond
	tAck    = 2520 * sim.Picosecond
	tDelay  = 100 * sim.Nanosecond
	tFetch1 = 150843 * sim.Picosecond
)

// TestFirstPacketTiming checks nic.md §17 [DC-derived] first packet (tol 0.01 ns).
func TestFirstPacketTiming(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	got := map[string]sim.Time{}
	pr.nics[0].trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if _, ok := got[ev]; !ok {
			got[ev] = pr.eng.Now()
		}
	}
	var arrive sim.Time
	var sent int64
	pr.sw = func(from int, h pkt.Handle, p *pkt.Packet) bool {
		if from == 0 && arrive == 0 {
			arrive, sent = pr.eng.Now(), p.Sent
		}
		return true
	}
	pr.post(0, 0, 4096, 1)
	pr.run(sim.Second)
	checks := []struct {
		name string
		got  sim.Time
		want float64 // ns
	}{
		{"request at host", got["read-at-host"], 81.555},
		{"last completion at NIC", got["fetched"], 150.843},
		{"serialization start", got["start"], 150.843},
		{"serialization end", sim.Time(sent), 233.923},
		{"at switch", arrive, 333.923},
	}
	for _, c := range checks {
		if d := c.got - ns(c.want); d < -10 || d > 10 {
			t.Errorf("%s: got %v, want %.3f ns (tol 0.01 ns)", c.name, c.got, c.want)
		}
	}
}

// ackPSNs records the PSNs of ACKs B sends.
func ackPSNs(pr *pair) *[]int64 {
	var acks []int64
	pr.nics[1].trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
		if ev == "start" && p.Type == pkt.Ack {
			acks = append(acks, p.PSN)
		}
	}
	return &acks
}

// Test1MiBWrite is the §17 ACK cadence: 256 data packets, 16 ACKs (15 by count on
// 17, 34, ..., 255 and one SE ACK on 256), completion one ACK after the last packet.
func Test1MiBWrite(t *testing.T) {
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	acks := ackPSNs(pr)
	pr.post(0, 0, 1<<20, 7)
	pr.run(sim.Second)
	A, B := pr.nics[0].Counters(), pr.nics[1].Counters()
	if len(pr.done) != 1 {
		t.Fatalf("completions: %d", len(pr.done))
	}
	var want []int64
	for k := int64(1); k <= 15; k++ {
		want = append(want, 17*k-1) // ACK on packet 17k names PSN 17k-1
	}
	want = append(want, 255)
	if len(*acks) != 16 || !slices.Equal(*acks, want) {
		t.Errorf("ACK PSNs: got %v, want %v", *acks, want)
	}
	ints := []struct {
		name      string
		got, want int64
	}{
		{"A rdma_write_cnt", A.Roce.RdmaWriteCnt, 256},
		{"A data frames", A.DataFramesSent, 256},
		{"B num_writes_recvd", B.Roce.WritesRecvd, 256},
		{"B num_acks_sent", B.Roce.AcksSent, 16},
		{"A num_acks_recvd", A.Roce.AcksRecvd, 16},
		{"B reverse bytes", B.TxBytes, 16 * 126},
		{"A wqe created", A.Roce.WqeCreated, 1},
		{"A wqe completed", A.Roce.WqeCompleted, 1},
		{"B payload delivered", B.PayloadDelivered, 1 << 20},
		{"A rtx", A.Roce.Rtx, 0},
		{"B nacks", B.Roce.NacksSent, 0},
		{"buffers empty A", A.BufferedBytes, 0},
		{"buffers empty B", B.BufferedBytes, 0},
		{"packets leaked", int64(pr.pool.InUse()), 0},
		{"tag", pr.done[0].Tag, 7},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
	// FCT: first fetch 150.843 ns, 256 frames back to back, link, SE ACK, link.
	fct := pr.done[0].FCT()
	exact := tFetch1 + 256*tData + tDelay + tAck + tDelay
	if fct != exact {
		t.Errorf("FCT: got %v, want %v", fct, exact)
	}
	// Within one packet time plus the RTT (path latency of the first packet and its ACK)
	// of the ideal serialization of 256 frames at 400 Gbps.
	rtt := tFetch1 + 2*tDelay + tAck
	if ideal := 256 * tData; fct-ideal > tData+rtt {
		t.Errorf("FCT %v exceeds ideal %v by more than a packet time plus RTT", fct, ideal)
	}
}

// TestAckCadence covers the other §17 cadence lines: <= 17 packets give exactly one ACK
// (SE); coalescing off gives one ACK per packet; 0 B is one 58 B frame with SE.
func TestAckCadence(t *testing.T) {
	cases := []struct {
		name     string
		size     int64
		coalesce bool
		acks     int64
		frames   int64
	}{
		{"17 packets", 17 * 4096, true, 1, 17},
		{"18 packets", 18 * 4096, true, 2, 18},
		{"4097 B", 4097, true, 1, 2},
		{"0 B", 0, true, 1, 1},
		{"coalescing off", 1 << 20, false, 256, 256},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, b := defaultCfgs()
			b.TransportProcessingLayers.RoceTransportLayer.AckCoalescingEnabled = c.coalesce
			pr := newPair(t, &a, &b)
			var wire []int64
			pr.nics[0].trace = func(ev string, h pkt.Handle, p *pkt.Packet) {
				if ev == "start" && p.Type == pkt.Data {
					wire = append(wire, wireBytes(p))
				}
			}
			pr.post(0, 0, c.size, 1)
			pr.run(sim.Second)
			B := pr.nics[1].Counters()
			if B.Roce.AcksSent != c.acks || int64(len(wire)) != c.frames || len(pr.done) != 1 {
				t.Errorf("acks %d (want %d), frames %d (want %d), completions %d", B.Roce.AcksSent, c.acks, len(wire), c.frames, len(pr.done))
			}
			if c.size == 0 && (len(wire) != 1 || wire[0] != 58) {
				t.Errorf("0 B frame: %v, want [58]", wire)
			}
		})
	}
}
