package nic

// ring is a growable FIFO of values. It allocates only when it grows past its largest
// size so far, so steady-state pushes and pops are allocation-free (design.md "The
// engine"). Not safe for concurrent use.
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
		r.grow()
	}
	i := r.head + r.n
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = v
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
	r.head++
	if r.head == len(r.buf) {
		r.head = 0
	}
	r.n--
}

// At returns the i-th value from the head (0 = head).
func (r *ring[T]) At(i int) T {
	j := r.head + i
	if j >= len(r.buf) {
		j -= len(r.buf)
	}
	return r.buf[j]
}

func (r *ring[T]) grow() {
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
