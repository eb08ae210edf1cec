package fabric

import (
	"testing"
)

// TestHostCompletionPCIeGen3 is nic.md §17 "A message at host memory": configs/pcie-gen3.yaml
// at 16 lanes (7 senders × 1 MiB into one receiver behind PCIe Gen3 x16, the NIC's Xoff
// at 0.95 of its pool). The ACKs leave on arrival, so the senders' completions come long
// before the data can have crossed the receiver's PCIe link; the completion at host
// memory cannot come before the link has carried all but what its transmit buffer holds:
//
//	payload                  7 × 2^20 B = 7,340,032 B = 14,336 transfers of 512 B
//	on the link              + 34 B each: 7,827,456 B
//	link rate                16 × 7.877 Gbps = 126.032 Gbps
//	payload alone            7,340,032 × 8 / 126.032 Gbps = 465.91 us (the 466 us)
//	with the headers         7,827,456 × 8 / 126.032 Gbps = 496.85 us
//	TX buffer at acceptance  16,000 B of headers / 34 B = 470 transfers of 546 B = 16.29 us
//	last byte accepted       ≥ (7,827,456 − 256,620) × 8 / 126.032 Gbps = 480.57 us after the first write starts
//
// The first packet reaches the receiver 0.73 us after the post (its PCIe fetch at Gen3
// rates and two 400 Gbps hops), and the link never idles after it (the NIC's pool stays
// above Xon): 481.30 us.
func TestHostCompletionPCIeGen3(t *testing.T) {
	cfg := job(t, "topology.hosts", "8", "workload.senders", "7", "workload.message_size", "1MiB",
		"nic.HostSide.PhysicalLayer.LaneBps", "7.877Gbps", "nic.NICSide.PhysicalLayer.LaneBps", "7.877Gbps",
		"nic.HostSide.PhysicalLayer.LaneCount", "16", "nic.NICSide.PhysicalLayer.LaneCount", "16",
		"nic.PfcStaticXoffThreshold", "[0.95, 0.8, 0, 0, 0, 0, 0, 0]", "duration", "1ms")
	_, res := run(t, cfg)
	s := res.Summary
	if s.MsgsStarted != 7 || s.MsgsCompleted != 7 || s.MsgsHostCompleted != 7 {
		t.Fatalf("started %d, completed %d, at host %d; want 7, 7, 7", s.MsgsStarted, s.MsgsCompleted, s.MsgsHostCompleted)
	}
	const (
		rate     = 16 * 7.877e9
		payload  = 7 << 20
		onLink   = payload + 34*(payload/512)
		inBuffer = (16_000 / 34) * (512 + 34)
	)
	payloadUsec := payload * 8 / rate * 1e6
	boundUsec := (onLink - inBuffer) * 8 / rate * 1e6
	if payloadUsec < 465.9 || payloadUsec > 465.92 || boundUsec < 480.56 || boundUsec > 480.57 {
		t.Fatalf("derivation: payload %.3f us, bound %.3f us; want 465.91, 480.57", payloadUsec, boundUsec)
	}
	if s.HostFctMaxUsec < boundUsec || s.HostFctMaxUsec > boundUsec+1 {
		t.Errorf("host_fct_max_usec %.6f; want at least %.2f us (PCIe write time less the TX buffer) and within 1 us of it", s.HostFctMaxUsec, boundUsec)
	}
	if s.HostFctP99UsecLossless != s.HostFctMaxUsec {
		t.Errorf("host_fct_p99_usec_lossless %v; want the maximum %v (7 messages)", s.HostFctP99UsecLossless, s.HostFctMaxUsec)
	}
	// At the sender the same messages complete before 300 us: ACKs do not wait for PCIe.
	if s.FctMaxUsec > 300 || s.FctMaxUsec >= s.HostFctMaxUsec {
		t.Errorf("fct_max_usec %.3f; want below 300 us, before host memory (%.3f)", s.FctMaxUsec, s.HostFctMaxUsec)
	}
	for _, m := range res.Rec.Messages {
		if m.HostFctUsec < m.FctUsec-1 || m.HostFctUsec > boundUsec+1 {
			t.Errorf("message %d: fct %.3f us, host_fct %.3f us", m.TransactionNumber, m.FctUsec, m.HostFctUsec)
		}
	}
	t.Logf("fct_max %.6f us, host_fct_max %.6f us (bound %.3f)", s.FctMaxUsec, s.HostFctMaxUsec, boundUsec)
}
