// Package memory holds the one memory policy rocesweep has beyond Go's defaults: collect
// at once when a large job has just left a lot of garbage behind.
//
// A job's heap is mostly pointer-free arrays (packets, queues, counters), so the Go
// collector, which runs when the heap has doubled since the last collection, would let a
// finished phase's memory (a drained packet pool, then a whole fabric) sit while the next
// phase (the job's rows, then their Parquet encoding) takes fresh pages. Collecting at
// those two points keeps a large job's peak RSS at its simulation's: the 1024-host fat
// tree of configs/bench/fat-tree-1024-permutation-2MB.yaml. A collection of such a heap
// costs a few ms, so small jobs (below LargeHeap) are left alone.
package memory

import (
	"runtime"
	"runtime/metrics"
)

// LargeHeap is the heap size (live objects and not yet collected garbage) above which
// CollectIfLarge collects.
const LargeHeap = 48 << 20

// CollectIfLarge runs the garbage collector when the heap holds more than LargeHeap
// bytes of objects, live or garbage. It is safe for concurrent use.
func CollectIfLarge() {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > LargeHeap {
		runtime.GC()
	}
}
