//go:build !amd64

package sim

import "unsafe"

// Prefetch does nothing on this architecture.
func Prefetch(p unsafe.Pointer) {}

// PrefetchSpan does nothing on this architecture.
func PrefetchSpan(p unsafe.Pointer, lines int) {}
