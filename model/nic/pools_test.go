package nic

import (
	"math"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// TestPools17 checks every number of nic.md §17 "Frames", "PCIe vs network", "Egress
// pools" and "Ingress pools and PFC" at the defaults.
func TestPools17(t *testing.T) {
	cfg, g := config.DefaultNIC(), config.DefaultGlobal()
	p := ComputePools(&cfg, &g, 400e9)
	ps := func(b int64, r float64) int64 { return int64(sim.SerializationNearest(b, r)) }
	pcie := 16 * 31.52e9
	ints := []struct {
		name      string
		got, want int64
	}{
		{"frames data wire", p.DataPacketBytes, 4154},
		{"frames data 83.08ns", ps(p.DataPacketBytes, 400e9), 83080},
		{"frames data charge", int64(4096 + pkt.DataL3Extra), 4136},
		{"frames ack wire", pkt.AckWire, 126},
		{"frames ack 2.52ns", ps(pkt.AckWire, 400e9), 2520},
		{"frames ack charge", pkt.AckWire - pkt.EthOverhead, 108},
		{"frames cnp wire", pkt.CnpWire, 122},
		{"frames cnp 2.44ns", ps(pkt.CnpWire, 400e9), 2440},
		{"frames cnp charge", pkt.CnpWire - pkt.EthOverhead, 104},
		{"frames pfc 1.68ns", ps(pkt.PfcWire, 400e9), 1680},
		{"segments 1MiB", segments(1<<20, 4096), 256},
		{"segments 4097", segments(4097, 4096), 2},
		{"segments 0", segments(0, 4096), 1},
		{"pcie read request bytes", 64 + PCIeOverhead, 98},
		{"pcie read request ps", ps(98, pcie), 1555}, // ~1.5546 ns
		{"pcie 4096 link bytes", PCIeLinkBytes(4096), 4368},
		{"pcie 4096 ps", ps(4368, pcie), 69289}, // ~69.289 ns
		{"egress tc0", p.Egress[0], 230400},
		{"egress tc0 frames", p.Egress[0] / p.DataPacketBytes, 55},
		{"egress tc0 frame bytes", p.Egress[0] / p.DataPacketBytes * p.DataPacketBytes, 228470},
		{"egress tc1", p.Egress[1], 25600},
		{"egress tc2", p.Egress[2], 0},
		{"egress tc0 half", p.Egress[0] / 2, 115200},
		{"egress tc0 restart frames", p.Egress[0] / 2 / p.DataPacketBytes, 27},
		{"egress tc0 restart bytes", p.Egress[0] / 2 / p.DataPacketBytes * p.DataPacketBytes, 112158},
		{"ingress tc0", p.Ingress[0], 3600000},
		{"ingress tc1", p.Ingress[1], 400000},
		{"ingress tc2", p.Ingress[2], 0},
		{"xoff tc0", p.Xoff[0], 2880000},
		{"xon tc0", p.Xon[0], 1440000},
		{"headroom tc0", p.Headroom[0], 720000},
		{"xoff tc1", p.Xoff[1], 320000},
		{"xon tc1", p.Xon[1], 160000},
		{"headroom tc1", p.Headroom[1], 80000},
		{"pfc trigger tc0", p.Xoff[0] - 4136, 2875864},
		{"pause time tc0", int64(p.PauseTime[0]), 83984800},
		{"pause time tc1", int64(p.PauseTime[1]), 83984800},
		{"refresh tc0", int64(p.Refresh[0]), 41992400},
		{"pause time tc2 (no pool)", int64(p.PauseTime[2]), 0},
		{"headroom guidance", p.HeadroomGuidance, 18368},
		{"tc0 headroom 14.4us", ps(p.Headroom[0], 400e9), 14400000},
	}
	for _, c := range ints {
		if c.got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, c.got, c.want)
		}
	}
	floats := []struct {
		name      string
		got, want float64
		tol       float64 // absolute
	}{
		{"line rate", p.LineRateBps, 400e9, 0},
		{"pcie payload 472.9", p.PCIePayloadGbps, 472.9, 0.05},
		{"pcie payload exact", p.PCIePayloadGbps, 504.32 * 4096 / 4368, 1e-9},
		{"network payload 394.4", p.NetworkPayloadGbps, 394.4, 0.05},
		{"network payload exact", p.NetworkPayloadGbps, 400.0 * 4096 / 4154, 1e-9},
		{"pcie rx payload 462.5", p.PCIeRxPayloadGbps, 462.5, 0.05},
		{"pcie rx payload exact", p.PCIeRxPayloadGbps, 504.32 * 4096 / (4368 + 98), 1e-9},
	}
	for _, c := range floats {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s: got %.12g, want %.12g (tol %g)", c.name, c.got, c.want, c.tol)
		}
	}
	// PCIe 3.0 lanes: 7.88 Gbps x 16 = 126.08 Gbps -> ~118.2 Gbps payload, PCIe-bound.
	cfg.HostInterface.HostSide.PhysicalLayer.LaneBps = 7.88e9
	cfg.HostInterface.NICSide.PhysicalLayer.LaneBps = 7.88e9
	p3 := ComputePools(&cfg, &g, 400e9)
	if math.Abs(p3.PCIePayloadGbps-118.2) > 0.05 || p3.PCIePayloadGbps >= p3.NetworkPayloadGbps {
		t.Errorf("pcie3 payload: got %.4f Gbps, want ~118.2 and below network %.4f", p3.PCIePayloadGbps, p3.NetworkPayloadGbps)
	}
	// Max MSS at Mtu 4184: 4125 -> 4183 B frame.
	cfg.RoceQpManager.MSS = 4125
	if got := ComputePools(&cfg, &g, 400e9).DataPacketBytes; got != 4183 {
		t.Errorf("max MSS frame: got %d, want 4183", got)
	}
}

// TestPoolsVectors checks pool shapes: [0.5, 0.3, 0.2, 0, ...] gives three pools, and the
// line rate is the one passed in (min of NIC and switch DataRate, chosen by the caller).
func TestPoolsVectors(t *testing.T) {
	cfg, g := config.DefaultNIC(), config.DefaultGlobal()
	cfg.NetworkInterface.IngressBufferManager.PoolAllocationVector = config.Vec8{0.5, 0.3, 0.2}
	cfg.NetworkInterface.IngressBufferManager.QuantaValue = config.Vec8{65535, 65535, 1000}
	p := ComputePools(&cfg, &g, 200e9)
	want := [8]int64{2000000, 1200000, 800000}
	if p.Ingress != want {
		t.Errorf("ingress pools: got %v, want %v", p.Ingress, want)
	}
	// TC2 has a pool but Xoff fraction 0 (default vector entry): Xoff 0.
	if p.Xoff[2] != 0 || p.PauseTime[2] != sim.PauseTime(1000, 200e9, 100*sim.Nanosecond) {
		t.Errorf("tc2: xoff %d pause %v", p.Xoff[2], p.PauseTime[2])
	}
	if p.PauseTime[0] != 167769600+100000 {
		t.Errorf("pause at 200G: got %d", p.PauseTime[0])
	}
	if p.HeadroomGuidance != 5000+8368 {
		t.Errorf("guidance at 200G: got %d", p.HeadroomGuidance)
	}
}

// TestHeadroomGuidanceRoundsUp: the guidance is switch.md §4.6 condition 1 in integers,
// rounded up, the same figure as the switch's links: 0.2 B of wire at 400 Gbps and 2 ps is
// a byte, and 800 Gbps over 10 µs is exactly 2,000,000 B (float seconds give 2,000,001).
func TestHeadroomGuidanceRoundsUp(t *testing.T) {
	for _, tc := range []struct {
		rate  float64
		delay sim.Time
		want  int64
	}{
		{400e9, 2, 1 + 8368},
		{800e9, 10 * sim.Microsecond, 2_000_000 + 8368},
		{400e9, 100 * sim.Nanosecond, 18_368},
	} {
		cfg, g := config.DefaultNIC(), config.DefaultGlobal()
		cfg.NetworkInterface.TransmissionMedium.Delay = tc.delay
		if got := ComputePools(&cfg, &g, tc.rate).HeadroomGuidance; got != tc.want {
			t.Errorf("guidance at %g bit/s, delay %v: got %d, want %d", tc.rate, tc.delay, got, tc.want)
		}
	}
}
