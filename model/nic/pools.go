package nic

import (
	"math"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// PCIe framing (nic.md §5): a transfer carries at most PCIeMaxPayload bytes of payload and
// costs PCIeOverhead more bytes on the link.
const (
	PCIeMaxPayload = 512
	PCIeOverhead   = 34
)

// Pools is the NIC's derived buffer and PFC numbers (nic.md §11, §12, §17). It is a pure
// function of the configuration and the line rate; `rocesweep explain` prints it and New
// sizes the device from it.
type Pools struct {
	LineRateBps        float64     // L = min(NIC DataRate, switch downlink DataRate) (§0)
	Egress, Ingress    [8]int64    // pool bytes per TC (nearest byte, DC-15); 0 = no pool (§11)
	Xoff, Xon          [8]int64    // per TC with an ingress pool: fraction × pool, nearest byte (§12)
	Headroom           [8]int64    // pool − Xoff: what arrives after a pause goes out (§12.4)
	PauseTime, Refresh [8]sim.Time // pauseTime(QuantaValue) with L and Delay; Refresh = half of it (§12)
	HeadroomGuidance   int64       // 2×L×Delay/8 + 2×Mtu, rounded up (§12.4; condition 1 of switch.md §4.6)
	DataPacketBytes    int64       // MSS + 58: one full data frame on the wire (§6)
	PCIePayloadGbps    float64     // host->NIC rate × MSS / (MSS + 34×ceil(MSS/512)) (nic.md §17)
	NetworkPayloadGbps float64     // L × MSS / (MSS + 58) (nic.md §17)
	PCIeRxPayloadGbps  float64     // NIC->host while sending and receiving: rate × MSS / (MSS transfers + read request) (nic.md §17)
}

// ComputePools derives the pools, thresholds, pause times and rate limits of one NIC
// (nic.md §11, §12, §17). lineRateBps is L. Pools exist for TCs up to the last non-zero
// PoolAllocationVector entry (§11); a zero entry below it gives a zero pool, i.e. no pool
// (validation rejects that shape, §15 rule 1). It never fails: checks belong to
// config.ValidateNIC.
func ComputePools(cfg *config.NIC, g *config.Global, lineRateBps float64) Pools {
	ni := &cfg.NetworkInterface
	in, eg := &ni.IngressBufferManager, &ni.EgressBufferManager
	delay := ni.TransmissionMedium.Delay
	p := Pools{LineRateBps: lineRateBps}
	// §11: pool[c] = PoolAllocationVector[c] × TotalBufferSize, nearest byte (§0 [DC]).
	for c := 0; c < 8; c++ {
		p.Egress[c] = nearestByte(eg.PoolAllocationVector[c] * float64(eg.TotalBufferSize))
		p.Ingress[c] = nearestByte(in.PoolAllocationVector[c] * float64(in.TotalBufferSize))
		if p.Ingress[c] <= 0 {
			p.Ingress[c] = 0
			continue
		}
		// §12: Xoff/Xon are fractions of the class's own pool.
		p.Xoff[c] = nearestByte(in.PfcStaticXoffThreshold[c] * float64(p.Ingress[c]))
		p.Xon[c] = nearestByte(in.PfcXonResumeThreshold[c] * float64(p.Ingress[c]))
		p.Headroom[c] = p.Ingress[c] - p.Xoff[c]
		// §12: pauseTime(q) = q×512/L + Delay; refresh R = pauseTime(QuantaValue)/2.
		p.PauseTime[c] = sim.PauseTime(int64(in.QuantaValue[c]), lineRateBps, delay)
		p.Refresh[c] = p.PauseTime[c] / 2
	}
	for c := 0; c < 8; c++ {
		if p.Egress[c] < 0 {
			p.Egress[c] = 0
		}
	}
	// §12.4: headroom guidance 2×L×Delay/8 + 2×Mtu.
	p.HeadroomGuidance = sim.HeadroomNeeded(lineRateBps, delay, int64(g.Mtu))
	mss := int64(cfg.RoceQpManager.MSS)
	p.DataPacketBytes = mss + pkt.DataOverhead
	hostRate := float64(cfg.HostInterface.HostSide.PhysicalLayer.LaneBps) * float64(cfg.HostInterface.HostSide.PhysicalLayer.LaneCount)
	nicRate := float64(cfg.HostInterface.NICSide.PhysicalLayer.LaneBps) * float64(cfg.HostInterface.NICSide.PhysicalLayer.LaneCount)
	link := PCIeLinkBytes(mss)
	if link > 0 {
		p.PCIePayloadGbps = hostRate * float64(mss) / float64(link) / 1e9
		rr := int64(cfg.HostInterface.NICSide.NICPCIeHandler.ReadRequestSize) + PCIeOverhead
		p.PCIeRxPayloadGbps = nicRate * float64(mss) / float64(link+rr) / 1e9
	}
	p.NetworkPayloadGbps = lineRateBps * float64(mss) / float64(mss+pkt.DataOverhead) / 1e9
	return p
}

// PCIeLinkBytes is the PCIe link cost of p payload bytes: p + 34×ceil(p/512) (nic.md §5).
// Zero payload costs nothing here; a 0-byte completion is one 34 B header (§5 [DC]).
func PCIeLinkBytes(p int64) int64 {
	return p + PCIeOverhead*((p+PCIeMaxPayload-1)/PCIeMaxPayload)
}

// nearestByte rounds a float byte count to the nearest byte (nic.md §0 [DC], DC-15).
func nearestByte(x float64) int64 { return int64(math.Round(x)) }
