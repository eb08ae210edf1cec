// Package memory holds the memory policy rocesweep has beyond Go's defaults: collect
// rarely in a short one-job process, and at once when a large job has just left a lot of
// garbage behind; and put a large fabric on huge pages (HugePages, hugepages.go). The
// model knows none of it: the worker that runs a job applies it around the job's phases
// (sweep.Simulate), from the fabric's own estimate of its size.
//
// A job's heap is mostly pointer-free arrays (packets, queues, counters): the collector
// has little to scan, so collecting often is cheap, while the garbage it leaves between
// collections is what a large job's peak RSS is made of. The rules:
//
//   - TightenIfLarge runs the collector at GOGC=25 (Go's default is 100: collect when the
//     heap has doubled) once a job has built a large fabric, unless the user set GOGC. In
//     a long simulation the garbage is the old backing arrays of queues that grew; at 25%
//     it stays small. Small processes keep Go's default: at 25% the collector's 4 MB
//     minimum heap goal shrinks to 1 MB, and a small `sim` spends longer collecting while
//     it encodes its Parquet files.
//   - OneJob runs the collector at GOGC=400 in a process that runs one job (`sim`),
//     unless the user set GOGC: its minimum heap goal is then 16 MB instead of 4 MB, so
//     a small job, most of whose allocation is its Parquet writers, is not collected at
//     all. That holds through the simulation too: a long simulation's garbage (its
//     report batches) is reused batch by batch and its spilled rows replayed under
//     CollectGarbage, so its footprint stays flat in simulated time at 400% as at
//     Go's 100%, which only added two collections to a short job's simulation (6% of
//     the leaf-spine job's wall time). A large fabric gets TightenIfLarge's 25% once
//     it is built, to the end.
//   - CollectIfLarge collects at once between a large job's phases: a drained packet
//     pool before the job's rows are built, the whole fabric before the rows are encoded,
//     so that each next phase reuses the last one's pages instead of taking new ones.
//   - CollectGarbage bounds the garbage of a phase that allocates per row (the sink's
//     replay of a job's spilled rows) in bytes, whatever the collector's target.
//
// performance.md "Performance" gives the measurements behind each rule.
package memory

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// GCPercent is the collector's target percentage (GOGC) that TightenIfLarge sets.
const GCPercent = 25

// LargeFabric is the heap (in bytes of objects) after building a job's fabric from which
// TightenIfLarge tightens the collector: a fabric of ~1,000 hosts (21 KB a host).
const LargeFabric = 16 << 20

// TightenIfLarge sets the collector's target to GCPercent for the rest of the process
// when the heap holds more than LargeFabric bytes, unless the GOGC environment variable
// is set (then Go has applied the user's choice); in a one-job process (OneJob) with a
// smaller fabric it leaves OneJobGCPercent and marks the job simulating, for JobDone.
// Jobs call it once their fabric is built. It is safe for concurrent use.
func TightenIfLarge() {
	if os.Getenv("GOGC") != "" {
		return
	}
	switch {
	case heapObjects() > LargeFabric:
		debug.SetGCPercent(GCPercent)
	case oneJob.Load():
		// The simulation of a one-job process keeps OneJobGCPercent; JobDone collects
		// the ended job's fabric.
		simulating.Store(true)
	}
}

// JobDone is called when a job has ended, before its rows are encoded: in a one-job
// process whose fabric was not large, it collects once if the heap holds more than
// jobLeftovers (the ended job's fabric, garbage now), so that encoding reuses the
// fabric's memory instead of taking more; a small job, a few MB of heap at its end, is
// not collected.
func JobDone() {
	if simulating.CompareAndSwap(true, false) && oneJob.Load() {
		if heapObjects() > jobLeftovers {
			runtime.GC()
		}
	}
}

// jobLeftovers is the heap above which JobDone collects.
const jobLeftovers = 4 << 20

// oneJob: OneJob is in force; simulating: TightenIfLarge marked the simulation of that
// one job (its fabric not large), and JobDone has not yet run.
var oneJob, simulating atomic.Bool

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// OneJobGCPercent is the collector's target percentage (GOGC) that OneJob sets.
const OneJobGCPercent = 400

// OneJob sets the collector's target to OneJobGCPercent for a process that runs a single
// job, unless the GOGC environment variable is set. It returns a function that restores
// the earlier target (tests run many commands in one process).
func OneJob() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(OneJobGCPercent)
	oneJob.Store(true)
	return func() {
		oneJob.Store(false)
		simulating.Store(false)
		debug.SetGCPercent(old)
	}
}

// LargeHeap is the heap size (live objects and not yet collected garbage) above which
// CollectIfLarge collects.
const LargeHeap = 48 << 20

// CollectIfLarge runs the garbage collector when the heap holds more than LargeHeap
// bytes of objects, live or garbage. It is safe for concurrent use.
func CollectIfLarge() {
	if heapObjects() > LargeHeap {
		runtime.GC()
	}
}

// CollectGarbage runs the collector when the heap holds more than max bytes beyond what
// was live at the last collection: garbage, or new live data. A phase that allocates per
// row and keeps little (the sink replaying a job's spilled rows) calls it as it goes, so
// that its garbage stays under max whatever the number of rows, instead of piling up to
// the collector's target, a multiple of the live heap (OneJobGCPercent in `sim`). It
// costs a metrics read per call and a collection per max bytes allocated.
func CollectGarbage(max uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return
	}
	if s[0].Value.Uint64() > s[1].Value.Uint64()+max {
		runtime.GC()
	}
}
