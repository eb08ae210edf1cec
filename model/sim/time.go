// Package sim is the discrete-event engine of one simulation job: simulated time, the
// pending-event set, cancellable timers and the clock. It knows no device: events are
// small values whose Kind names the owner package that interprets them (design.md "The
// engine"). An Engine is single-threaded: no goroutines, locks or atomics, and it
// allocates nothing per event once its heap has grown to the working size.
package sim

import (
	"fmt"
	"math"
	"math/bits"
)

// Time is simulated time in integer picoseconds (switch.md §1, nic.md §0).
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// Never is a time later than any event; an Engine never reaches it.
const Never Time = math.MaxInt64

// Seconds returns t in seconds as float64 (records' `_sec` columns).
func (t Time) Seconds() float64 { return float64(t) / 1e12 }

// Micros returns t in microseconds as float64 (records' `_usec` columns).
func (t Time) Micros() float64 { return float64(t) / 1e6 }

// Nanos returns t in nanoseconds as float64.
func (t Time) Nanos() float64 { return float64(t) / 1e3 }

// String prints t with the largest unit that keeps it readable: "84.3848us".
func (t Time) String() string {
	a := t
	if a < 0 {
		a = -a
	}
	switch {
	case t == Never:
		return "never"
	case a >= Second:
		return fmt.Sprintf("%gs", float64(t)/1e12)
	case a >= Millisecond:
		return fmt.Sprintf("%gms", float64(t)/1e9)
	case a >= Microsecond:
		return fmt.Sprintf("%gus", float64(t)/1e6)
	case a >= Nanosecond:
		return fmt.Sprintf("%gns", float64(t)/1e3)
	}
	return fmt.Sprintf("%dps", int64(t))
}

// SerializationCeil is the time to put bytes on a link of rateBps, rounded up to a whole
// picosecond (switch.md §1, DC-1): ceil(bytes × 8 × 10^12 / rate).
func SerializationCeil(bytes int64, rateBps float64) Time {
	ps := float64(bytes) * 8e12 / rateBps
	t := Time(ps)
	if float64(t) < ps {
		t++
	}
	return t
}

// SerializationNearest is the time to put bytes on a link of rateBps, rounded to the
// nearest picosecond (nic.md §0 [DC]: per Ethernet frame and per PCIe transfer).
func SerializationNearest(bytes int64, rateBps float64) Time {
	return Time(math.Round(float64(bytes) * 8e12 / rateBps))
}

// PauseTime is the time a PFC frame of q quanta (512 bit times each) holds a class on a
// link of rateBps, plus the link's propagation delay (switch.md §7.1, nic.md §12):
// q × 512 / rate + delay, rounded to the nearest picosecond.
func PauseTime(q int64, rateBps float64, delay Time) Time {
	return Time(math.Round(float64(q)*512e12/rateBps)) + delay
}

// HeadroomNeeded is sizing condition 1 of switch.md §4.6 and the NIC's headroom guidance
// of nic.md §12.4: the headroom a port needs to absorb the pause round trip on a link of
// rateBps (rounded to a whole bit/s) with one-way delay delay, 2 × rate × delay / 8 + 2 ×
// mtu bytes, rounded up. The product is taken in
// 128-bit integers over picoseconds, so it is exact: 800 Gbps and 10 µs give 2,000,000 B
// plus 2 × mtu, where float seconds give 2,000,001. A figure beyond int64 is MaxInt64.
func HeadroomNeeded(rateBps float64, delay Time, mtu int64) int64 {
	if rateBps <= 0 || delay <= 0 {
		return 2 * mtu
	}
	if rateBps >= math.MaxInt64 {
		return math.MaxInt64
	}
	// bytes = rate [bit/s] × delay [ps] × 2 / 8 / 1e12 = rate × delay / 4e12.
	const perByte = 4_000_000_000_000
	hi, lo := bits.Mul64(uint64(math.Round(rateBps)), uint64(delay))
	if hi >= perByte {
		return math.MaxInt64
	}
	q, r := bits.Div64(hi, lo, perByte)
	if r > 0 {
		q++
	}
	if q > math.MaxInt64-uint64(2*mtu) {
		return math.MaxInt64
	}
	return int64(q) + 2*mtu
}
