//go:build !linux

package main

// peakRSS is not measured outside Linux (ru_maxrss units differ by system): 0.
func peakRSS() int64 { return 0 }
