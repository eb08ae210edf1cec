//go:build !linux

package launch

// freeDisk is unknown off Linux: no default disk budget.
func freeDisk(string) int64 { return 0 }
