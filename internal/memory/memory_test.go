package memory

import (
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestCollectIfLarge: 64 MB of fresh garbage is collected at once; a small heap is left
// to the collector's own schedule.
func TestCollectIfLarge(t *testing.T) {
	old := debug.SetGCPercent(-1) // no collection but ours during the test
	defer debug.SetGCPercent(old)
	var keep [][]byte
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 1<<20))
	}
	keep = nil
	if h := heapObjects(); h < LargeHeap {
		t.Fatalf("heap holds %d B after allocating 64 MiB, want > %d", h, LargeHeap)
	}
	CollectIfLarge()
	if h := heapObjects(); h > LargeHeap {
		t.Fatalf("heap holds %d B after CollectIfLarge, want < %d", h, LargeHeap)
	}
	_ = keep
}

// TestTune: without GOGC in the environment, Tune sets GCPercent; with it, Tune leaves
// Go's setting alone.
func TestTune(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	Tune()
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("GOGC unset: collector at %d%%, want %d%%", got, GCPercent)
	}
	t.Setenv("GOGC", "80")
	Tune()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=80 set: Tune changed the collector to %d%%, want it left at 100%%", got)
	}
}
