package sim

import "unsafe"

// Prefetch hints that the cache line holding p will be read soon (PREFETCHT0).
//
//go:noescape
func Prefetch(p unsafe.Pointer)
