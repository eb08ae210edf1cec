package nic

import (
	"math"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/internal/doctest"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// TestDocFrames computes the frame table of docs/nic.md §17 with the model's frame
// arithmetic (pkt.Packet.Wire and Charge, sim.SerializationNearest at 400 Gbps).
func TestDocFrames(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-frames")
	for _, row := range tb.Rows {
		key := row[0]
		var p pkt.Packet
		charged := true
		switch {
		case strings.HasPrefix(key, "data"):
			payload := doctest.Int(t, tb, tb.Cell(t, key, "payload"))
			p.Size = uint16(payload + pkt.DataL3Extra)
		case key == "ACK/NAK":
			p.Size = pkt.AckWire - pkt.EthOverhead
		case key == "CNP":
			p.Size = pkt.CnpWire - pkt.EthOverhead
		case key == "PFC":
			p.Size, charged = pkt.PfcWire-pkt.EthOverhead, false
		default:
			t.Errorf("%s: unknown frame %q", tb.Where(), key)
			continue
		}
		if want := doctest.Int(t, tb, tb.Cell(t, key, "on the wire")); p.Wire() != want {
			t.Errorf("%s: %s frame is %d B on the wire in the docs, the model sends %d B", tb.Where(), key, want, p.Wire())
		}
		if charged {
			if want := doctest.Int(t, tb, tb.Cell(t, key, "charged at the receiver")); p.Charge() != want {
				t.Errorf("%s: %s frame is charged %d B in the docs, the model charges %d B", tb.Where(), key, want, p.Charge())
			}
		}
		got := sim.SerializationNearest(p.Wire(), 400e9)
		if want := sim.Time(doctest.Int(t, tb, tb.Cell(t, key, "time at 400 Gbps"))); got != want {
			t.Errorf("%s: %s frame takes %d ps in the docs, the model %d ps", tb.Where(), key, want, got)
		}
	}
	tb.AllChecked(t)
}

// TestDocSegments computes the segment counts of docs/nic.md §17 at the default MSS.
func TestDocSegments(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-segments")
	mss := int64(config.DefaultNIC().RoceQpManager.MSS)
	for _, row := range tb.Rows {
		size, err := config.ParseBytes(strings.ReplaceAll(strings.ReplaceAll(row[0], ",", ""), " ", ""))
		if err != nil {
			t.Fatalf("%s: message %q: %v", tb.Where(), row[0], err)
		}
		if want, got := doctest.Int(t, tb, tb.Cell(t, row[0], "packets")), segments(int64(size), mss); got != want {
			t.Errorf("%s: a %s message is %d packets in the docs, the model cuts %d", tb.Where(), row[0], want, got)
		}
	}
	tb.AllChecked(t)
}

// TestDocIngressPFC computes the receive pools, Xoff, Xon and headroom of docs/nic.md §17
// with ComputePools at the defaults.
func TestDocIngressPFC(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-ingress-pfc")
	cfg, g := config.DefaultNIC(), config.DefaultGlobal()
	p := ComputePools(&cfg, &g, 400e9)
	for _, row := range tb.Rows {
		tc := int(doctest.Int(t, tb, row[0]))
		for _, c := range []struct {
			col string
			got int64
		}{
			{"pool", p.Ingress[tc]},
			{"Xoff (0.8)", p.Xoff[tc]},
			{"Xon (0.4)", p.Xon[tc]},
			{"headroom", p.Headroom[tc]},
		} {
			if want := doctest.Int(t, tb, tb.Cell(t, row[0], c.col)); c.got != want {
				t.Errorf("%s: TC %d %s is %d in the docs, the model computes %d", tb.Where(), tc, c.col, want, c.got)
			}
		}
	}
	tb.AllChecked(t)
}

// TestDocPauseTime computes the NIC pause time, refresh, headroom guidance and pause
// trigger of docs/nic.md §17 (inputs from the table, outputs from ComputePools).
func TestDocPauseTime(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-pause-time")
	val := func(key string) float64 { return doctest.Float(t, tb, tb.Cell(t, key, "value")) }
	cfg, g := config.DefaultNIC(), config.DefaultGlobal()
	cfg.NetworkInterface.TransmissionMedium.Delay = sim.Time(val("propagation delay")) * sim.Nanosecond
	cfg.NetworkInterface.IngressBufferManager.QuantaValue[0] = val("quanta")
	p := ComputePools(&cfg, &g, val("link rate")*1e9)
	for _, c := range []struct {
		key string
		got int64
	}{
		{"pause time", int64(p.PauseTime[0])},
		{"refresh period", int64(p.Refresh[0])},
		{"headroom guidance", p.HeadroomGuidance},
		{"TC0 pause trigger", p.Xoff[0] - (int64(cfg.RoceQpManager.MSS) + pkt.DataL3Extra)},
	} {
		if want := int64(val(c.key)); c.got != want {
			t.Errorf("%s: %s is %d in the docs, the model computes %d", tb.Where(), c.key, want, c.got)
		}
	}
	tb.AllChecked(t)
}

// TestDocDCQCN replays the single-CNP episode of docs/nic.md §17: a QP sending at line
// rate gets one CNP; its rate after each step is read 1 ns after the step's loop half.
func TestDocDCQCN(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-dcqcn-single-cnp")
	a, b := defaultCfgs()
	pr := newPair(t, &a, &b)
	A := pr.nics[0]
	pr.post(0, 0, 64<<20, 1)
	t0 := 20 * us
	pr.at(t0, func() { injectCNP(pr, 0, 1) })
	type got struct {
		rate float64
		cong bool
	}
	seen := map[string]*got{}
	for _, row := range tb.Rows {
		key := row[0]
		half := 0 // the cut runs at the CNP; increase n at half 2n-1 (22.5 us each)
		if strings.HasPrefix(key, "increase ") {
			half = 2*int(doctest.Numbers(key)[0]) - 1
		}
		if want := doctest.Float(t, tb, tb.Cell(t, key, "time after the CNP")); want != float64(half)*22.5 {
			t.Errorf("%s: %s at %g us in the docs; the loop runs it at %g us", tb.Where(), key, want, float64(half)*22.5)
		}
		g := &got{}
		seen[key] = g
		pr.at(t0+halfUs(half)+sim.Nanosecond, func() {
			r, c := A.Rate(1, 0)
			g.rate, g.cong = r/1e9, c
		})
	}
	pr.run(600 * us)
	for _, row := range tb.Rows {
		cell := tb.Cell(t, row[0], "rate")
		want := doctest.Numbers(cell)[0]
		if g := seen[row[0]]; math.Abs(g.rate-want) > 1e-9*want || g.cong == strings.Contains(cell, "over") {
			t.Errorf("%s: %s: %q in the docs, the model's rate is %.10g Gbps (congested %v)", tb.Where(), row[0], cell, g.rate, g.cong)
		}
	}
	tb.AllChecked(t)
}

// TestDocPCIe computes the PCIe table of docs/nic.md §17 with the NIC's PCIe arithmetic
// (PCIeLinkBytes, nearest-ps serialisation) and ComputePools' rate limits; the lanes
// column sets both ends' LaneBps × LaneCount.
func TestDocPCIe(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-pcie")
	ps := func(b int64, r float64) float64 { return float64(sim.SerializationNearest(b, r)) }
	for i, row := range tb.Rows {
		key, lanes := row[0], doctest.Numbers(row[1])
		if len(lanes) != 2 {
			t.Fatalf("%s: lanes %q: want COUNT × RATE", tb.Where(), row[1])
		}
		cfg, g := config.DefaultNIC(), config.DefaultGlobal()
		for _, pl := range []*config.PCIeLanes{&cfg.HostInterface.NICSide.PhysicalLayer, &cfg.HostInterface.HostSide.PhysicalLayer} {
			pl.LaneCount, pl.LaneBps = uint64(lanes[0]), config.Rate(lanes[1]*1e9)
		}
		p := ComputePools(&cfg, &g, 400e9)
		rate := lanes[0] * lanes[1] * 1e9
		req := int64(cfg.HostInterface.NICSide.NICPCIeHandler.ReadRequestSize) + PCIeOverhead
		var got float64
		tol := 0.0 // exact, or 0.05 Gbps for the rounded rates
		switch key {
		case "one direction":
			got = rate / 1e9
		case "read request on the link":
			got = float64(req)
		case "read request time":
			got = ps(req, rate)
		case "4,096 B payload on the link":
			got = float64(PCIeLinkBytes(4096))
		case "4,096 B payload time":
			got = ps(PCIeLinkBytes(4096), rate)
		case "payload rate over PCIe":
			got, tol = p.PCIePayloadGbps, 0.05
		case "payload rate over the network (400 Gbps)":
			got, tol = p.NetworkPayloadGbps, 0.05
		case "received payload while also sending":
			got, tol = p.PCIeRxPayloadGbps, 0.05
		default:
			t.Errorf("%s: unknown quantity %q", tb.Where(), key)
			continue
		}
		want := doctest.Float(t, tb, row[2])
		if math.Abs(got-want) > tol+1e-9*math.Abs(want) {
			t.Errorf("%s: %s (%s): %s in the docs, the model computes %.6g", tb.Where(), key, row[1], row[2], got)
		}
		tb.MarkRead(i) // read by position: two rows share a name

	}
	tb.AllChecked(t)
}

// TestDocEgressPools computes the transmit-pool table of docs/nic.md §17 at the defaults.
func TestDocEgressPools(t *testing.T) {
	tb := doctest.Load(t, "nic.md", "nic-egress-pools")
	cfg, g := config.DefaultNIC(), config.DefaultGlobal()
	p := ComputePools(&cfg, &g, 400e9)
	for _, c := range []struct {
		key string
		got int64
	}{
		{"TC0 pool", p.Egress[0]},
		{"TC1 pool", p.Egress[1]},
		{"full data frames in the TC0 pool", p.Egress[0] / p.DataPacketBytes},
		{"TC0 half pool (restart point)", p.Egress[0] / 2},
		{"full data frames at the restart point", p.Egress[0] / 2 / p.DataPacketBytes},
	} {
		if want := doctest.Int(t, tb, tb.Cell(t, c.key, "value")); c.got != want {
			t.Errorf("%s: %s is %d in the docs, the model computes %d", tb.Where(), c.key, want, c.got)
		}
	}
	tb.AllChecked(t)
}
