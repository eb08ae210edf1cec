package memory

import (
	"runtime"
	"sync/atomic"
)

// hugePage is the size of an x86-64 transparent huge page.
const hugePage = 2 << 20

// HugeHeap is the fabric size (bytes of heap a job's devices will take, estimated) from
// which a job asks for huge pages (HugePages): 2 MiB, about 64 hosts. A fabric that size
// touches most of every 2 MiB it spans, so a huge page replaces ~500 first-touch faults
// as well as TLB misses. Below it the gain is inside the noise and a smaller fabric would
// spend most of the 4 MiB that HugePages needs at least on nothing (performance.md
// "Performance", huge pages).
const HugeHeap = 2 << 20

// HugePages gives the next n bytes the heap hands out huge pages where the kernel offers
// them (Linux transparent huge pages in "madvise" mode: madvise(MADV_HUGEPAGE)). A large
// fabric is bound by memory latency and touches its memory all over: with 4 KiB pages most
// of those touches also miss the TLB, and in a virtual machine a TLB miss walks two page
// tables. It allocates n bytes that nothing touches (fresh heap memory is not written),
// advises them and frees them; the page allocator takes the lowest free addresses first,
// so the fabric built next lands there, and its pages are faulted in 2 MiB at a time.
// Call it before building a fabric, for fabrics of HugeHeap bytes or more; it costs one
// garbage collection. It advises once per process and size: a later job of a worker
// that asks for no more than an earlier one only collects, so that its fabric takes the
// last one's memory, already on huge pages and faulted in (advising again per job made a
// study of many replicates slower; not collecting sent the fabric to fresh 4 KiB pages
// while the last one's still held garbage). It changes no result: only where memory
// comes from.
func HugePages(n int) {
	if n < 2*hugePage {
		return
	}
	if int64(n) > advised.Load() {
		advised.Store(int64(n))
		b := make([]byte, n)
		adviseHuge(b)
		runtime.KeepAlive(b)
	}
	runtime.GC() // frees b's pages, or the last fabric's, for this fabric
}

// advised is the largest n HugePages has acted on in this process.
var advised atomic.Int64
