package nic

// segments is the packet count of an n-byte message: ceil(n/MSS), and 1 for n = 0
// (nic.md §4).
func segments(n, mss int64) int64 {
	if n <= 0 {
		return 1
	}
	return (n + mss - 1) / mss
}
