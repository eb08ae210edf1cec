package nic

// ring is a growable FIFO of values. It allocates only when it grows past its largest
// size so far, so steady-state pushes and pops are allocation-free (design.md "The
// engine"). Not safe for concurrent use.
//
// Its capacity is a power of two, so positions wrap with a mask, and growth lives out of
// line (growSlow), so Push, Peek, Pop and Drop inline into the NIC's per-packet paths.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

// Len is the number of queued values.
func (r *ring[T]) Len() int { return r.n }

// Push appends v at the tail.
func (r *ring[T]) Push(v T) {
	if r.n == len(r.buf) {
		r.growSlow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

// Peek returns a pointer to the head value; the ring must not be empty.
func (r *ring[T]) Peek() *T { return &r.buf[r.head] }

// Pop removes and returns the head value; the ring must not be empty. The slot is not
// cleared: every ring of the NIC holds pointer-free values, so a stale copy keeps nothing
// alive (a ring of pointers would need it cleared for the collector).
func (r *ring[T]) Pop() T {
	v := r.buf[r.head]
	r.Drop()
	return v
}

// Drop removes the head value without copying it out; the ring must not be empty.
func (r *ring[T]) Drop() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
}

// At returns the i-th value from the head (0 = head).
func (r *ring[T]) At(i int) T { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// growSlow doubles the ring (16 slots at first). It is kept out of line so that Push
// stays small enough to inline.
//
//go:noinline
func (r *ring[T]) growSlow() {
	size := 2 * len(r.buf)
	if size == 0 {
		size = 16
	}
	b := make([]T, size)
	for i := 0; i < r.n; i++ {
		b[i] = r.At(i)
	}
	r.buf, r.head = b, 0
}
