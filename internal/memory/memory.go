// Package memory holds the one memory policy rocesweep has beyond Go's defaults: collect
// at once when a large job has just left a lot of garbage behind.
//
// A job's heap is mostly pointer-free arrays (packets, queues, counters): the collector
// has little to scan, so collecting often is cheap, while the garbage it leaves between
// collections is what a large job's peak RSS is made of. Two rules follow:
//
//   - Tune runs the collector at GOGC=25 (Go's default is 100: collect when the heap has
//     doubled), unless the user set GOGC. In a long simulation the garbage is the old
//     backing arrays of queues that grew; at 25% it stays small.
//   - CollectIfLarge collects at once between a large job's phases: a drained packet
//     pool before the job's rows are built, the whole fabric before the rows are encoded,
//     so that each next phase reuses the last one's pages instead of taking new ones.
//
// Measured on the 1024-host fat tree of configs/bench/fat-tree-1024-permutation-2MB.yaml
// (issue 8): peak RSS 116 MB with neither, 97 MB with CollectIfLarge, 91 MB with both;
// the CPU time of the benchmark scenarios did not change measurably (README,
// "Performance").
package memory

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// GCPercent is the collector's target percentage (GOGC) that Tune sets.
const GCPercent = 25

// Tune sets the collector's target to GCPercent unless the GOGC environment variable is
// set (then Go has already applied it). Call it once at start-up.
func Tune() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}

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
