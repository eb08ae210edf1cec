// Package ring is the growable FIFO the model's queues use: the switch's per-class and
// PFC queues, the NIC's queues, and a link's frames in flight.
package ring

// Ring is a FIFO of values that allocates only when it grows past its largest size so
// far, so steady-state pushes and pops are allocation-free (design.md "The engine"). The
// zero Ring is empty and ready to use. Not safe for concurrent use.
//
// Every method inlines into the per-packet paths of its callers: positions wrap with a
// compare, and Push grows the ring with append (which rotates the values to the front of
// the new array) rather than through a call, which would put Push over the inlining
// budget. A Ring is 32 bytes (a slice and two uint32), two to a cache line.
type Ring[T any] struct {
	buf     []T // len(buf) == cap(buf): the capacity
	head, n uint32
}

// Len is the number of queued values.
func (r *Ring[T]) Len() int { return int(r.n) }

// Push appends v at the tail.
func (r *Ring[T]) Push(v T) {
	if int(r.n) == len(r.buf) {
		r.buf = append(append(r.buf[r.head:], r.buf[:r.head]...), v)
		r.buf = r.buf[:cap(r.buf)]
		r.head = 0
		r.n++
		return
	}
	i := int(r.head + r.n)
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	r.buf[i] = v
	r.n++
}

// Peek returns a pointer to the head value; the ring must not be empty.
func (r *Ring[T]) Peek() *T { return &r.buf[r.head] }

// Head returns a pointer to the head value, or nil when the ring is empty (for
// prefetching: the caller must not keep it across a Push).
func (r *Ring[T]) Head() *T {
	if r.n == 0 {
		return nil
	}
	return &r.buf[r.head]
}

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
	r.head++
	if int(r.head) == len(r.buf) {
		r.head = 0
	}
	r.n--
}

// At returns the i-th value from the head (0 = head); i must be below Len.
func (r *Ring[T]) At(i int) T {
	i += int(r.head)
	if i >= len(r.buf) {
		i -= len(r.buf)
	}
	return r.buf[i]
}
