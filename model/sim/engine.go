package sim

import "fmt"

// Owner says which part of the model interprets an event: the high byte of its Kind.
type Owner uint8

// Owners. The zero Owner is invalid so that a zeroed Event is caught.
const (
	OwnerNone     Owner = 0x00
	OwnerSwitch   Owner = 0x01 // model/switchdev
	OwnerNIC      Owner = 0x02 // model/nic
	OwnerLink     Owner = 0x03 // model/link
	OwnerWorkload Owner = 0x04 // model/workload
	OwnerFabric   Owner = 0x05 // model/topo: periodic records, stop checks
	OwnerTest     Owner = 0x7f // _test.go harnesses
)

// Kind is an event type. Ranges: 0x01xx switchdev, 0x02xx nic, 0x03xx link, 0x04xx
// workload, 0x05xx fabric. Each owner package declares its kinds (with String methods)
// in its own range; the zero Kind is invalid.
type Kind uint16

// Owner returns the part of the model that handles events of kind k.
func (k Kind) Owner() Owner { return Owner(k >> 8) }

// Event is one pending action. It is a small value: devices find their state through Dev
// (an index into the owner's device slice), Port and Arg (a packet handle, a TC, quanta,
// a generation, ... per Kind). Events are never allocated individually.
type Event struct {
	At    Time   // when it fires, ps
	seq   uint64 // insertion order: breaks ties so equal-time events fire FIFO
	timer int32  // >0: the TimerID this entry belongs to (its heap position is tracked)
	Kind  Kind
	Port  int16
	Dev   int32
	Arg   int64
}

// TimerID names a cancellable timer created by NewTimer. The zero TimerID is invalid.
type TimerID int32

type timerState struct {
	ev  Event // template: Kind, Dev, Port, Arg
	pos int32 // index in the heap, or -1 when not armed
}

// Engine is one job's pending-event set and clock.
//
// The pending set is a 4-ary min-heap of Event values ordered by (At, seq); benchmarks in
// engine_test.go compare it with a calendar queue (see the package README in doc.go).
// Timers are heap entries whose position is tracked, so Reset moves the one entry and Stop
// removes it: restarting a timer never leaves a stale event behind.
//
// An Engine is not safe for concurrent use; each job owns one.
type Engine struct {
	now    Time
	stop   Time
	seq    uint64
	heap   []Event
	timers []timerState // index 0 unused
	fired  uint64
}

// NewEngine returns an engine at time 0 with no stop time.
func NewEngine() *Engine {
	return &Engine{stop: Never, heap: make([]Event, 0, 1024), timers: make([]timerState, 1, 64)}
}

// Now is the current simulated time: the time of the event being handled.
func (e *Engine) Now() Time { return e.now }

// Fired is the number of events delivered by Next so far.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending is the number of events (timers included) waiting to fire.
func (e *Engine) Pending() int { return len(e.heap) }

// SetStop makes Next report no more events once the next one is later than t.
func (e *Engine) SetStop(t Time) { e.stop = t }

// Stop returns the stop time set by SetStop (Never by default).
func (e *Engine) StopTime() Time { return e.stop }

// Schedule adds an event at time at. Scheduling in the past is a programming error and
// panics with the numbers (htsim asserts the same causality rule).
func (e *Engine) Schedule(at Time, kind Kind, dev int32, port int16, arg int64) {
	if at < e.now {
		panic(fmt.Sprintf("sim: event %#04x scheduled at %v, before now %v", uint16(kind), at, e.now))
	}
	if kind == 0 {
		panic("sim: event with zero Kind")
	}
	e.seq++
	e.push(Event{At: at, seq: e.seq, Kind: kind, Dev: dev, Port: port, Arg: arg})
}

// After schedules an event d after now.
func (e *Engine) After(d Time, kind Kind, dev int32, port int16, arg int64) {
	e.Schedule(e.now+d, kind, dev, port, arg)
}

// NewTimer creates a disarmed timer that, when it fires, delivers an Event with the given
// kind, dev, port and arg. Devices create their timers once at construction.
func (e *Engine) NewTimer(kind Kind, dev int32, port int16, arg int64) TimerID {
	if kind == 0 {
		panic("sim: timer with zero Kind")
	}
	e.timers = append(e.timers, timerState{ev: Event{Kind: kind, Dev: dev, Port: port, Arg: arg}, pos: -1})
	return TimerID(len(e.timers) - 1)
}

// Reset arms timer id to fire at time at, replacing any earlier arming. The timer gets a
// fresh insertion sequence, as if newly scheduled.
func (e *Engine) Reset(id TimerID, at Time) {
	if at < e.now {
		panic(fmt.Sprintf("sim: timer %d reset to %v, before now %v", id, at, e.now))
	}
	t := &e.timers[id]
	e.seq++
	if t.pos < 0 {
		ev := t.ev
		ev.At, ev.seq, ev.timer = at, e.seq, int32(id)
		e.push(ev)
		return
	}
	i := int(t.pos)
	old := e.heap[i].At
	e.heap[i].At, e.heap[i].seq = at, e.seq
	if at < old {
		e.up(i)
	} else {
		e.down(i)
	}
}

// Stop disarms timer id. It reports whether the timer was armed.
func (e *Engine) Stop(id TimerID) bool {
	t := &e.timers[id]
	if t.pos < 0 {
		return false
	}
	e.remove(int(t.pos))
	return true
}

// Armed reports whether timer id is waiting to fire.
func (e *Engine) Armed(id TimerID) bool { return e.timers[id].pos >= 0 }

// When returns the time timer id will fire, or Never when it is disarmed.
func (e *Engine) When(id TimerID) Time {
	t := e.timers[id]
	if t.pos < 0 {
		return Never
	}
	return e.heap[t.pos].At
}

// Next removes and returns the earliest event and advances Now to its time. It returns
// false when no event is pending or the next one is after the stop time (Now then moves
// to the stop time if that is finite and later).
func (e *Engine) Next() (Event, bool) {
	if len(e.heap) == 0 || e.heap[0].At > e.stop {
		if e.stop != Never && e.stop > e.now {
			e.now = e.stop
		}
		return Event{}, false
	}
	ev := e.heap[0]
	e.remove(0)
	e.now = ev.At
	e.fired++
	return ev, true
}

// PeekTime returns the time of the earliest pending event, or Never.
func (e *Engine) PeekTime() Time {
	if len(e.heap) == 0 {
		return Never
	}
	return e.heap[0].At
}

// less orders events by time, then by insertion order.
func less(a, b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.seq < b.seq
}

func (e *Engine) set(i int, ev Event) {
	e.heap[i] = ev
	if ev.timer > 0 {
		e.timers[ev.timer].pos = int32(i)
	}
}

func (e *Engine) push(ev Event) {
	e.heap = append(e.heap, ev)
	e.up(len(e.heap) - 1)
}

// remove deletes entry i, keeping the heap property: for every i > 0,
// !less(heap[i], heap[(i-1)/4]).
func (e *Engine) remove(i int) {
	if t := e.heap[i].timer; t > 0 {
		e.timers[t].pos = -1
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

func (e *Engine) up(i int) {
	ev := e.heap[i]
	for i > 0 {
		p := (i - 1) >> 2
		if !less(&ev, &e.heap[p]) {
			break
		}
		e.set(i, e.heap[p])
		i = p
	}
	e.set(i, ev)
}

func (e *Engine) down(i int) {
	n := len(e.heap)
	ev := e.heap[i]
	for {
		c := i<<2 + 1
		if c >= n {
			break
		}
		m := c
		end := c + 4
		if end > n {
			end = n
		}
		for j := c + 1; j < end; j++ {
			if less(&e.heap[j], &e.heap[m]) {
				m = j
			}
		}
		if !less(&e.heap[m], &ev) {
			break
		}
		e.set(i, e.heap[m])
		i = m
	}
	e.set(i, ev)
}
