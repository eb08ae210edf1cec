package ring

import (
	"testing"
	"unsafe"
)

// TestRingFIFO pushes and pops across growth and wrap-around and checks order, Len, At and
// Peek against a slice.
func TestRingFIFO(t *testing.T) {
	var r Ring[int32]
	var want []int32
	next := int32(0)
	// Interleave: push 3, pop 2, so the head wraps and the ring grows from 16 to 64 slots.
	for round := 0; round < 50; round++ {
		for k := 0; k < 3; k++ {
			r.Push(next)
			want = append(want, next)
			next++
		}
		for i := range want {
			if got := r.At(i); got != want[i] {
				t.Fatalf("round %d: At(%d) = %d, want %d", round, i, got, want[i])
			}
		}
		for k := 0; k < 2; k++ {
			if got := *r.Peek(); got != want[0] {
				t.Fatalf("round %d: Peek = %d, want %d", round, got, want[0])
			}
			if got := r.Pop(); got != want[0] {
				t.Fatalf("round %d: Pop = %d, want %d", round, got, want[0])
			}
			want = want[1:]
		}
		if r.Len() != len(want) {
			t.Fatalf("round %d: Len = %d, want %d", round, r.Len(), len(want))
		}
	}
	if got := len(r.buf); got != 64 {
		t.Errorf("capacity after a peak of %d values = %d, want 64", 50+2, got)
	}
	for len(want) > 0 {
		r.Drop()
		want = want[1:]
	}
	if r.Len() != 0 {
		t.Errorf("Len after draining = %d", r.Len())
	}
}

// TestRingSteadyStateAllocs checks that a ring at its working size pushes and pops
// without allocating.
func TestRingSteadyStateAllocs(t *testing.T) {
	var r Ring[[2]int64]
	for i := 0; i < 100; i++ {
		r.Push([2]int64{int64(i)})
	}
	for r.Len() > 0 {
		r.Drop()
	}
	if a := testing.AllocsPerRun(100, func() {
		for i := 0; i < 100; i++ {
			r.Push([2]int64{int64(i)})
		}
		for r.Len() > 0 {
			r.Pop()
		}
	}); a != 0 {
		t.Errorf("allocs per 100 pushes and pops = %v, want 0", a)
	}
}

// TestRingSize pins the 32-byte size the switch's port layout counts on (two queues to a
// cache line).
func TestRingSize(t *testing.T) {
	if got := unsafe.Sizeof(Ring[int64]{}); got != 32 {
		t.Errorf("Ring is %d bytes, want 32", got)
	}
}
