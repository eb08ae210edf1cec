package memory

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// anonHuge returns the process's memory in transparent huge pages (smaps_rollup).
func anonHuge(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "AnonHugePages:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no AnonHugePages in smaps_rollup")
	return 0
}

// TestHugePages: memory allocated and touched after HugePages comes in huge pages, where
// the kernel offers transparent huge pages.
func TestHugePages(t *testing.T) {
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil || strings.Contains(string(b), "[never]") {
		t.Skip("no transparent huge pages here")
	}
	advised.Store(0) // as in a new process: HugePages advises
	before := anonHuge(t)
	HugePages(64 << 20)
	b := make([]byte, 32<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	if got := anonHuge(t) - before; got < 16<<20 {
		t.Errorf("32 MiB touched after HugePages: %d MiB more in huge pages, want at least 16", got>>20)
	}
	runtime.KeepAlive(b)
}

// TestHugePagesReuse: a second fabric no larger than the first takes the first one's
// memory (HugePages collects it) instead of growing the heap, as the jobs of a worker
// process do one after another.
func TestHugePagesReuse(t *testing.T) {
	const n, fabric = 32 << 20, 24 << 20
	build := func() []byte {
		b := make([]byte, fabric)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		return b
	}
	advised.Store(0) // as in a new process: the first fabric is advised
	HugePages(n)
	first := build()
	runtime.KeepAlive(first)
	first = nil
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	HugePages(n)
	second := build()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(second)
	if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > fabric/2 {
		t.Errorf("second job's fabric grew the heap by %d MiB, want it to reuse the first's memory", grew>>20)
	}
}
