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
	// Interleave: push 3, pop 2, so the ring fills (and grows) with its head anywhere.
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
	if got := len(r.buf); got < 52 || got != cap(r.buf) {
		t.Errorf("capacity after a peak of 52 values: len %d, cap %d; want len = cap >= 52", got, cap(r.buf))
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

// BenchmarkPushPop queues and drains bursts of 8 switch queue entries on one of four
// rings at their working size: one op is 8 pushes and 8 pops.
func BenchmarkPushPop(b *testing.B) {
	type qent struct {
		h  int32
		in int16
		b  uint16
	}
	var r [4]Ring[qent]
	s := int32(0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		q := &r[i&3]
		for k := 0; k < 8; k++ {
			q.Push(qent{h: int32(k)})
		}
		for q.Len() > 0 {
			s += q.Pop().h
		}
	}
	if s != int32(b.N*28) {
		b.Fatalf("popped sum %d, want %d", s, b.N*28)
	}
}
