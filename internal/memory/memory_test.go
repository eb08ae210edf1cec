package memory

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestCollectIfLarge: 64 MiB of fresh garbage is collected at once.
func TestCollectIfLarge(t *testing.T) {
	old := debug.SetGCPercent(-1) // no collection but ours during the test
	defer debug.SetGCPercent(old)
	makeGarbage(64)
	if h := heapObjects(); h < LargeHeap {
		t.Fatalf("heap holds %d B after allocating 64 MiB, want > %d", h, LargeHeap)
	}
	CollectIfLarge()
	if h := heapObjects(); h > LargeHeap {
		t.Fatalf("heap holds %d B after CollectIfLarge, want < %d", h, LargeHeap)
	}
}

// TestTightenIfLarge: a small heap keeps Go's default; more than LargeFabric of live
// heap sets GCPercent, unless GOGC is in the environment.
func TestTightenIfLarge(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	runtime.GC()
	TightenIfLarge()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("small heap (%d B): collector at %d%%, want Go's 100%%", heapObjects(), got)
	}
	big := make([][]byte, 0, 32)
	for i := 0; i < 32; i++ {
		big = append(big, make([]byte, 1<<20))
	}
	TightenIfLarge()
	if got := debug.SetGCPercent(100); got != GCPercent {
		t.Errorf("%d MiB live: collector at %d%%, want %d%%", len(big), got, GCPercent)
	}
	t.Setenv("GOGC", "80")
	TightenIfLarge()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=80 set: TightenIfLarge changed the collector to %d%%, want it left alone", got)
	}
	runtime.KeepAlive(big)
}

// TestOneJob: OneJob sets OneJobGCPercent, which TightenIfLarge (small heap) keeps for
// the simulation, JobDone collects the ended job's garbage and keeps it too, and restore
// puts back the earlier target; with GOGC in the environment it changes nothing.
func TestOneJob(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	restore := OneJob()
	if got := debug.SetGCPercent(OneJobGCPercent); got != OneJobGCPercent {
		t.Errorf("after OneJob: collector at %d%%, want %d%%", got, OneJobGCPercent)
	}
	// The job's simulation and the encoding of its rows run at OneJobGCPercent.
	runtime.GC()
	TightenIfLarge()
	if got := debug.SetGCPercent(OneJobGCPercent); got != OneJobGCPercent {
		t.Errorf("simulating (small heap): collector at %d%%, want %d%%", got, OneJobGCPercent)
	}
	makeGarbage(8)
	if h := heapObjects(); h < jobLeftovers {
		t.Fatalf("heap holds %d B after allocating 8 MiB, want > %d", h, jobLeftovers)
	}
	JobDone()
	if h := heapObjects(); h > jobLeftovers {
		t.Errorf("heap holds %d B after JobDone, want the ended job's garbage collected (< %d)", h, jobLeftovers)
	}
	if got := debug.SetGCPercent(OneJobGCPercent); got != OneJobGCPercent {
		t.Errorf("after JobDone: collector at %d%%, want %d%%", got, OneJobGCPercent)
	}
	JobDone() // once only
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after restore: collector at %d%%, want 100%%", got)
	}
	t.Setenv("GOGC", "80")
	restore = OneJob()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=80 set: OneJob changed the collector to %d%%, want it left alone", got)
	}
	restore()
}

// makeGarbage allocates mib MiB and drops it: heap that the next collection frees.
func makeGarbage(mib int) {
	garbage := make([][]byte, 0, mib)
	for i := 0; i < mib; i++ {
		garbage = append(garbage, make([]byte, 1<<20))
	}
	runtime.KeepAlive(garbage)
}

// TestCollectGarbage: garbage beyond the bound is collected at once; below it, nothing.
func TestCollectGarbage(t *testing.T) {
	old := debug.SetGCPercent(-1) // no collection but ours during the test
	defer debug.SetGCPercent(old)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.NumGC
	makeGarbage(2)
	CollectGarbage(16 << 20)
	runtime.ReadMemStats(&ms)
	if ms.NumGC != before {
		t.Fatalf("2 MiB of garbage under a bound of 16 MiB: %d collections, want none", ms.NumGC-before)
	}
	makeGarbage(32)
	CollectGarbage(16 << 20)
	runtime.ReadMemStats(&ms)
	if ms.NumGC != before+1 {
		t.Fatalf("34 MiB of garbage over a bound of 16 MiB: %d collections, want 1", ms.NumGC-before)
	}
}
