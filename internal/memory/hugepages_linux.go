package memory

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks for transparent huge pages over the whole 2 MiB pages inside b. Errors
// (a kernel without THP) are ignored: the pages stay small.
func adviseHuge(b []byte) {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := (start + uintptr(len(b))) &^ (hugePage - 1)
	if hi <= lo {
		return
	}
	_ = syscall.Madvise(b[lo-start:hi-start], syscall.MADV_HUGEPAGE)
}
