// Package intern keeps one copy of each distinct read-only value that many devices of a
// fabric share (a switch's per-frame parameters, a NIC's per-class limits), so that a
// fabric of thousands of devices holds a few copies and their lines stay in cache.
package intern

// Value returns the copy in *held equal to v, adding v to *held if there is none.
// Devices call it once, when built; the held values are never written afterwards.
func Value[T comparable](held *[]*T, v *T) *T {
	for _, h := range *held {
		if *h == *v {
			return h
		}
	}
	*held = append(*held, v)
	return v
}
