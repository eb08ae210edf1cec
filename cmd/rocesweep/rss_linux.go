package main

import "syscall"

// peakRSS is this process's peak resident set size in bytes (getrusage ru_maxrss, which
// Linux reports in KiB).
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}
