package sim

import "unsafe"

// Prefetch hints that the cache line holding p will be read soon (PREFETCHT0).
//
//go:noescape
func Prefetch(p unsafe.Pointer)

// PrefetchSpan hints that the lines cache lines from p on (p, p+64, ...) will be read
// soon.
//
//go:noescape
func PrefetchSpan(p unsafe.Pointer, lines int)
