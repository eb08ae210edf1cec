// Package ring is the growable FIFO the model's queues use: the switch's per-class and
// PFC queues, the NIC's queues, and a link's frames in flight.
package ring

// Ring is a FIFO of values that allocates only when it grows past its largest size so
// far, so steady-state pushes and pops are allocation-free (design.md "The engine"). The
// zero Ring is empty and ready to use. Not safe for concurrent use.
//
// Its capacity is a power of two, so positions wrap with a mask. Growth lives out of line
// (growSlow): Len, Peek, Pop, Drop and At inline into the per-packet paths and Push is a
// short call. A Ring is 32 bytes (a slice and two uint32), two to a cache line.
type Ring[T any] struct {
	buf     []T
	head, n uint32
}

// minSize is the capacity of a ring's first allocation.
const minSize = 16

// Len is the number of queued values.
func (r *Ring[T]) Len() int { return int(r.n) }

// Push appends v at the tail.
func (r *Ring[T]) Push(v T) {
	if int(r.n) == len(r.buf) {
		r.growSlow()
	}
	r.buf[(r.head+r.n)&uint32(len(r.buf)-1)] = v
	r.n++
}

// Peek returns a pointer to the head value; the ring must not be empty.
func (r *Ring[T]) Peek() *T { return &r.buf[r.head] }

// Pop removes and returns the head value; the ring must not be empty. The slot is not
// cleared: every ring of the model holds pointer-free values, so a stale copy keeps
// nothing alive (a ring of pointers would need it cleared for the collector).
func (r *Ring[T]) Pop() T {
	v := r.buf[r.head]
	r.Drop()
	return v
}

// Drop removes the head value without copying it out; the ring must not be empty.
func (r *Ring[T]) Drop() {
	r.head = (r.head + 1) & uint32(len(r.buf)-1)
	r.n--
}

// At returns the i-th value from the head (0 = head); i must be below Len.
func (r *Ring[T]) At(i int) T { return r.buf[(int(r.head)+i)&(len(r.buf)-1)] }

// growSlow doubles the ring (minSize slots at first). It is kept out of line so that Push
// stays small.
//
//go:noinline
func (r *Ring[T]) growSlow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = minSize
	}
	b := make([]T, size)
	for i := 0; i < int(r.n); i++ {
		b[i] = r.At(i)
	}
	r.buf, r.head = b, 0
}
