// Package switchdev is the shared-buffer Ethernet switch of docs/switch.md: buffer
// initialisation (§4, §6.1), ingress and egress admission (§5.2, §5.3), strict-priority
// scheduling (§5.4), release and resume (§5.5), PFC (§7), ECN marking (§9), ECMP and
// flowlet load balancing (§10) and the switch records (records.md §3, §4, §6, §7).
//
// buffer.go is the one implementation of the buffer set-up, used by the switch and by
// model/explain.
package switchdev

import (
	"fmt"
	"math"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Egress limit forms of switch.md §4.4.
const (
	LimitDynamic   = "dynamic"    // LossyAlpha > 0
	LimitEvenSplit = "even_split" // LossyAlpha = 0, QueueDropThresholdEnable false
	LimitFixedCap  = "fixed_cap"  // LossyAlpha = 0, QueueDropThresholdEnable true; also UET
)

// uetShares are the UET pool ratios 1.5 : 1 : 1 of the sizing total (switch.md §6.1).
var uetShares = [3]float64{1.5 / 3.5, 1 / 3.5, 1 / 3.5}

// Buffer is switch.md §4 (or §6.1 under UETPolicyEnabled) for a switch with N connected
// ports. It is computed once, before traffic, and never changes during a run.
type Buffer struct {
	N                              int
	HeadroomPerPort, HeadroomTotal int64    // HeadRoomPerPortLimit, × N (§4.1)
	SizingTotal                    int64    // TotalSharedBufferSize − HeadroomTotal (§4.1)
	PoolSize, PoolNominal          [8]int64 // corrected (§4.2, used by every later stage) and map × sizing total alone (explain only)
	PoolOfTC                       [8]int   // TrafficClassPoolMapping (UET: TC n -> pool n for 0..2)
	LosslessTC                     [8]bool  // EnablePFC[tc]==1
	Group                          [8]uint8 // per pool: bitmask of lossless TCs (priority group)
	LimitForm                      string   // "dynamic" | "even_split" | "fixed_cap" (UET: "fixed_cap")
	PerPortLimit                   [8]int64 // fixed forms (UET: B); 0 when dynamic
	StaticLimit                    [8]int64 // S for ECN (§4.4; UET DC-10: B)
	EcnMin, EcnMax                 [8]float64
	Xoff, Xon                      int64
	Alpha                          float64
	RetxLimit                      [8]int64 // UET trimmable-retransmit 1.5×B
	UET                            bool     // UETPolicyEnabled (§6)
	LastPool                       int      // highest pool with a non-zero allocation (gets the residue)
}

// roundHalfAway rounds x to the nearest integer, halves away from zero (switch.md DC-4).
func roundHalfAway(x float64) int64 { return int64(math.Round(x)) }

// InitBuffer runs the buffer initialisation of switch.md §4 stages 1-5 (or §6.1 under
// UETPolicyEnabled) for n connected ports. It returns an error only for a buffer that
// cannot exist: headroom larger than the whole buffer (§11 rule 5) or no non-zero pool
// (§11 rule 3). Every other check belongs to config validation.
func InitBuffer(sw *config.Switch, n int) (Buffer, error) {
	m := &sw.SharedBufferManager
	b := Buffer{N: n, UET: m.UETPolicyEnabled}

	// §4.1 Stage 1 — headroom comes off the whole buffer first.
	b.HeadroomPerPort = int64(m.HeadRoomPerPortLimit)
	b.HeadroomTotal = b.HeadroomPerPort * int64(n)
	total := int64(m.TotalSharedBufferSize)
	if b.HeadroomTotal > total {
		return b, fmt.Errorf("switch: SharedBufferManager.HeadRoomPerPortLimit %d B × %d connected ports = %d B exceeds TotalSharedBufferSize %d B (switch.md §4.1, §11 rule 5)",
			b.HeadroomPerPort, n, b.HeadroomTotal, total)
	}
	b.SizingTotal = total - b.HeadroomTotal

	// §4.2 Stage 2 — pools (UET §6.1: three pools 1.5 : 1 : 1, map ignored).
	var frac [8]float64
	if b.UET {
		copy(frac[:], uetShares[:])
	} else {
		frac = m.PoolAllocationMap
	}
	b.LastPool = -1
	var sum int64
	for i := 0; i < 8; i++ {
		if frac[i] != 0 {
			b.PoolNominal[i] = roundHalfAway(frac[i] * float64(b.SizingTotal)) // DC-4
			b.LastPool = i
		}
		sum += b.PoolNominal[i]
	}
	if b.LastPool < 0 {
		return b, fmt.Errorf("switch: SharedBufferManager.PoolAllocationMap %v has no non-zero entry (switch.md §11 rule 3)", m.PoolAllocationMap)
	}
	b.PoolSize = b.PoolNominal
	// §4.2, DC-4: the residue (rounding, or a map not summing to 1) lands on the last
	// non-zero pool only, so the pools sum to the sizing total exactly. Every later stage
	// uses this corrected PoolSize; PoolNominal is kept only for explain.
	b.PoolSize[b.LastPool] += b.SizingTotal - sum

	// §4.3 Stage 3 — classes, pools, priority groups (UET §6.1: TC n → pool n, n = 0..2;
	// the UET classifier (§6.2) never yields TC3..7, which are left on pool 0).
	for tc := 0; tc < 8; tc++ {
		if b.UET {
			if tc <= 2 {
				b.PoolOfTC[tc] = tc
			}
		} else {
			b.PoolOfTC[tc] = int(m.TrafficClassPoolMapping[tc])
		}
		b.LosslessTC[tc] = m.EnablePFC[tc] == 1
		if b.LosslessTC[tc] {
			b.Group[b.PoolOfTC[tc]] |= 1 << tc
		}
	}

	// §4.4 Stage 4 — lossy egress limit and static limit S (UET §6.1: fixed B, DC-10),
	// from the corrected pool of Stage 2 (DC-4: "each using the output of the one before").
	b.Alpha = m.LossyAlpha
	fixedCap := int64(m.QueueDropThreshold) * int64(m.PlaneBDP)
	switch {
	case b.UET:
		b.LimitForm = LimitFixedCap
		B := fixedCap
		if sw.PacketTrimmer.TrimmingEnabled {
			B = int64(m.PlaneBDP)
		}
		for p := 0; p < 8; p++ {
			b.PerPortLimit[p] = B
			b.StaticLimit[p] = B
			b.RetxLimit[p] = B + B/2 // 1.5 × B for the trimmable-retransmit codepoint
		}
	case m.LossyAlpha > 0:
		b.LimitForm = LimitDynamic
		for p := 0; p < 8; p++ {
			b.StaticLimit[p] = b.PoolSize[p]
		}
	case !m.QueueDropThresholdEnable:
		b.LimitForm = LimitEvenSplit
		for p := 0; p < 8; p++ {
			if n > 0 {
				b.PerPortLimit[p] = b.PoolSize[p] / int64(n) // floor(poolSize / N): N limits sum to the pool
			} else {
				b.PerPortLimit[p] = b.PoolSize[p]
			}
			b.StaticLimit[p] = b.PerPortLimit[p]
		}
	default:
		b.LimitForm = LimitFixedCap
		for p := 0; p < 8; p++ {
			b.PerPortLimit[p] = fixedCap
			b.StaticLimit[p] = fixedCap
		}
	}
	// §4.4: ECN byte thresholds per pool, fixed at start-up, from S.
	for p := 0; p < 8; p++ {
		b.EcnMin[p] = sw.EcnHandler.MinThreshold * float64(b.StaticLimit[p])
		b.EcnMax[p] = sw.EcnHandler.MaxThreshold * float64(b.StaticLimit[p])
	}

	// §4.5 Stage 5 — PFC thresholds, the same for every port and pool.
	b.Xoff = int64(m.StaticPoolXoffThreshold)
	b.Xon = int64(m.StaticPoolXonThreshold)
	return b, nil
}

// LosslessFits is sizing condition 2 of switch.md §4.6 for pool p: every port's pre-pause
// holding fits, N × (Xoff + largestPacket) ≤ poolSize[p].
func (b *Buffer) LosslessFits(p int, largestPacket int64) bool {
	return int64(b.N)*(b.Xoff+largestPacket) <= b.PoolSize[p]
}

// HeadroomNeeded is sizing condition 1 of switch.md §4.6 (sim.HeadroomNeeded): the
// headroom a port needs to absorb the pause round trip on a link of rateBps with one-way
// delay delay. Condition 1 holds when HeadroomPerPort ≥ it.
func HeadroomNeeded(rateBps float64, delay sim.Time, mtu int64) int64 {
	return sim.HeadroomNeeded(rateBps, delay, mtu)
}

// PoolHasLossy reports whether a lossy class maps to pool p; sizing condition 3 of
// switch.md §4.6 needs it false for a lossless pool.
func (b *Buffer) PoolHasLossy(p int) bool {
	for tc := 0; tc < 8; tc++ {
		if !b.LosslessTC[tc] && b.PoolOfTC[tc] == p {
			if b.UET && tc > 2 {
				continue // never produced by the UET classifier (§6.2)
			}
			return true
		}
	}
	return false
}
