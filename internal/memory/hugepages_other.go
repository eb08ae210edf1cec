//go:build !linux

package memory

func adviseHuge([]byte) {}
