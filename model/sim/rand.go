package sim

import "math/rand/v2"

// NewRand returns the deterministic random stream number stream of a job with the given
// seed (design.md "The engine": one seeded PRNG per job, devices draw from streams derived
// from it, never from a global source). switch.md DC-14 uses stream = node id.
func NewRand(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, mix64(stream^0x9E3779B97F4A7C15)))
}

// mix64 is the SplitMix64 finaliser; it spreads nearby stream numbers apart.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}
