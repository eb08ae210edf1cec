package sim

// heapEngine is a 4-ary min-heap, the reference TestRadixMatchesHeap checks the engine
// against and the comparison in BenchmarkHold: 16-byte keys (time, seq|slot) with
// payloads in slots and tracked timer positions.

import "fmt"

type hkey struct {
	at  Time
	tie uint64
}

// heapEngine is one job's pending-event set and clock.
//
// The pending set is a 4-ary min-heap of 16-byte keys ordered by (At, insertion order);
// payloads sit in a slot array so sifting moves only keys. Benchmarks in engine_test.go
// compare it with the earlier 40-byte-entry heap and with a calendar queue (doc.go).
// Timers own a permanent slot and the heap tracks their position, so Reset moves the one
// entry and Stop removes it: restarting a timer never leaves a stale event behind.
//
// Invariant (heap property): for every i > 0, !hless(heap[i], heap[(i-1)/4]).
// Costs: Schedule, Next, Reset and Stop are O(log4 n); Armed and When are O(1).
//
// An heapEngine is not safe for concurrent use; each job owns one.
type heapEngine struct {
	now   Time
	stop  Time
	seq   uint64
	heap  []hkey
	slots []payload
	free  []uint32
	pos   []int32 // per slot: heap index of a timer's key, -1 when disarmed (timers only)
	fired uint64
}

// newHeapEngine returns an engine at time 0 with no stop time.
func newHeapEngine() *heapEngine {
	return &heapEngine{stop: Never, heap: make([]hkey, 0, 1024), slots: make([]payload, 0, 1024), pos: make([]int32, 0, 1024)}
}

// Now is the current simulated time: the time of the event being handled.
func (e *heapEngine) Now() Time { return e.now }

// Fired is the number of events delivered by Next so far.
func (e *heapEngine) Fired() uint64 { return e.fired }

// Pending is the number of events (armed timers included) waiting to fire.
func (e *heapEngine) Pending() int { return len(e.heap) }

// SetStop makes Next report no more events once the next one is later than t.
func (e *heapEngine) SetStop(t Time) { e.stop = t }

// StopTime returns the stop time set by SetStop (Never by default).
func (e *heapEngine) StopTime() Time { return e.stop }

func (e *heapEngine) newSlot(p payload) uint32 {
	if k := len(e.free); k > 0 {
		s := e.free[k-1]
		e.free = e.free[:k-1]
		e.slots[s] = p
		return s
	}
	if len(e.slots) >= maxSlots {
		panic("sim: more than 16M pending events")
	}
	e.slots = append(e.slots, p)
	e.pos = append(e.pos, -1)
	return uint32(len(e.slots) - 1)
}

func (e *heapEngine) nextTie(slot uint32, timer bool) uint64 {
	e.seq++
	t := e.seq<<seqShift | uint64(slot)
	if timer {
		t |= timerFlag
	}
	return t
}

// Schedule adds an event at time at. Scheduling in the past is a programming error and
// panics with the numbers (htsim asserts the same causality rule).
func (e *heapEngine) Schedule(at Time, kind Kind, dev int32, port int16, arg int64) {
	if at < e.now {
		panic(fmt.Sprintf("sim: event %#04x scheduled at %v, before now %v", uint16(kind), at, e.now))
	}
	if kind == 0 {
		panic("sim: event with zero Kind")
	}
	s := e.newSlot(payload{Kind: kind, Port: port, Dev: dev, Arg: arg})
	e.heap = append(e.heap, hkey{at: at, tie: e.nextTie(s, false)})
	e.up(len(e.heap) - 1)
}

// After schedules an event d after now.
func (e *heapEngine) After(d Time, kind Kind, dev int32, port int16, arg int64) {
	e.Schedule(e.now+d, kind, dev, port, arg)
}

// NewTimer creates a disarmed timer that, when it fires, delivers an Event with the given
// kind, dev, port and arg. Devices create their timers once at construction.
func (e *heapEngine) NewTimer(kind Kind, dev int32, port int16, arg int64) TimerID {
	if kind == 0 {
		panic("sim: timer with zero Kind")
	}
	s := e.newSlot(payload{Kind: kind, Port: port, Dev: dev, Arg: arg})
	return TimerID(s + 1)
}

// Reset arms timer id to fire at time at, replacing any earlier arming. The timer gets a
// fresh insertion sequence, as if newly scheduled.
func (e *heapEngine) Reset(id TimerID, at Time) {
	if at < e.now {
		panic(fmt.Sprintf("sim: timer %d reset to %v, before now %v", id, at, e.now))
	}
	s := uint32(id - 1)
	i := int(e.pos[s])
	if i < 0 {
		e.heap = append(e.heap, hkey{at: at, tie: e.nextTie(s, true)})
		e.up(len(e.heap) - 1)
		return
	}
	old := e.heap[i].at
	e.heap[i] = hkey{at: at, tie: e.nextTie(s, true)}
	if at < old {
		e.up(i)
	} else {
		e.down(i)
	}
}

// Stop disarms timer id. It reports whether the timer was armed.
func (e *heapEngine) Stop(id TimerID) bool {
	s := uint32(id - 1)
	if e.pos[s] < 0 {
		return false
	}
	e.remove(int(e.pos[s]))
	return true
}

// Armed reports whether timer id is waiting to fire.
func (e *heapEngine) Armed(id TimerID) bool { return e.pos[id-1] >= 0 }

// When returns the time timer id will fire, or Never when it is disarmed.
func (e *heapEngine) When(id TimerID) Time {
	i := e.pos[id-1]
	if i < 0 {
		return Never
	}
	return e.heap[i].at
}

// Next removes and returns the earliest event and advances Now to its time. It returns
// false when no event is pending or the next one is after the stop time (Now then moves
// to the stop time if that is finite and later).
func (e *heapEngine) Next() (Event, bool) {
	if len(e.heap) == 0 || e.heap[0].at > e.stop {
		if e.stop != Never && e.stop > e.now {
			e.now = e.stop
		}
		return Event{}, false
	}
	k := e.heap[0]
	e.remove(0)
	s := uint32(k.tie & slotMask)
	p := e.slots[s]
	if k.tie&timerFlag == 0 {
		e.free = append(e.free, s)
	}
	e.now = k.at
	e.fired++
	return Event{At: k.at, Kind: p.Kind, Port: p.Port, Dev: p.Dev, Arg: p.Arg}, true
}

// PeekTime returns the time of the earliest pending event, or Never.
func (e *heapEngine) PeekTime() Time {
	if len(e.heap) == 0 {
		return Never
	}
	return e.heap[0].at
}

func hless(a, b hkey) bool {
	return a.at < b.at || (a.at == b.at && a.tie < b.tie)
}

func (e *heapEngine) set(i int, k hkey) {
	e.heap[i] = k
	if k.tie&timerFlag != 0 {
		e.pos[k.tie&slotMask] = int32(i)
	}
}

// remove deletes entry i, keeping the heap property.
func (e *heapEngine) remove(i int) {
	if t := e.heap[i].tie; t&timerFlag != 0 {
		e.pos[t&slotMask] = -1
	}
	last := len(e.heap) - 1
	if i != last {
		moved := e.heap[last]
		e.heap = e.heap[:last]
		e.set(i, moved)
		e.down(i)
		e.up(i)
	} else {
		e.heap = e.heap[:last]
	}
}

func (e *heapEngine) up(i int) {
	k := e.heap[i]
	for i > 0 {
		p := (i - 1) >> 2
		if !hless(k, e.heap[p]) {
			break
		}
		e.set(i, e.heap[p])
		i = p
	}
	e.set(i, k)
}

func (e *heapEngine) down(i int) {
	h := e.heap
	n := len(h)
	k := h[i]
	for {
		c := i<<2 + 1
		if c >= n {
			break
		}
		m := c
		if c+3 < n {
			if hless(h[c+1], h[m]) {
				m = c + 1
			}
			if hless(h[c+2], h[m]) {
				m = c + 2
			}
			if hless(h[c+3], h[m]) {
				m = c + 3
			}
		} else {
			for j := c + 1; j < n; j++ {
				if hless(h[j], h[m]) {
					m = j
				}
			}
		}
		if !hless(h[m], k) {
			break
		}
		e.set(i, h[m])
		i = m
	}
	e.set(i, k)
}
