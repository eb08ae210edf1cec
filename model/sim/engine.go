package sim

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"
	"unsafe"
)

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

// Event is one pending action as delivered by Next. It is a small value: devices find
// their state through Dev (an index into the owner's device slice), Port and Arg (a packet
// handle, a TC, quanta, a generation, ... per Kind). Events are never allocated
// individually.
type Event struct {
	At   Time // when it fires, ps
	Kind Kind
	Port int16
	Dev  int32
	Arg  int64
}

// TimerID names a cancellable timer created by NewTimer. The zero TimerID is invalid.
type TimerID int32

// An entry's tie word packs the insertion sequence (high 39 bits), a timer flag and the
// slot of its payload: tie = seq<<25 | isTimer<<24 | slot (an event slot, or a timer's). Sequences are
// unique, so (at, tie) orders events by time, then insertion order.
const (
	slotBits  = 24
	slotMask  = 1<<slotBits - 1
	timerFlag = 1 << slotBits
	seqShift  = slotBits + 1
	maxSlots  = 1 << slotBits
)

type payload = Hint

// entry is one pending event's key (at, tie), 16 bytes; an event's payload sits in slots,
// a timer's in its timerSlot.
type entry struct {
	at  Time
	tie uint64
}

// timerSlot is one timer: its current arming's tie (0 when disarmed), when that fires, and
// the payload it delivers, 32 bytes, so that arming, checking and delivering a timer read
// one line of the slot array.
type timerSlot struct {
	tie uint64
	at  Time
	p   payload
}

// Bucket layout of the radix heap: an entry whose time differs from last first in bit h
// (h = bits.Len64(at^last) - 1) below hiBit goes to level h/6, and within the level to
// the bucket of its 6-bit digit there, (at >> (level*6)) & 63; from hiBit up, one level
// per bit, as in a binary radix heap (digit 0). Ordering buckets by (level, digit)
// orders their entries by time. The digit levels cover what a fabric mostly schedules
// close ahead (serialisation, PCIe) in few moves; above them, 64 buckets a level would
// each come to hold most pending events in turn, and a bucket's array stays as large
// as the most it ever held, so bit levels keep that memory as small as the binary
// heap's.
const (
	digitBits   = 6
	fanout      = 1 << digitBits // one occupancy word per level
	digitLevels = 3
	hiBit       = digitLevels * digitBits
	levels      = 64 // digit levels, bit levels for h = hiBit..62, and the spare
	// spareLevel is a level no entry maps to: ol says so when cur holds its own array.
	spareLevel = levels - 1
)

// Engine is one job's pending-event set and clock.
//
// The pending set is a radix heap (Ahuja, Mehlhorn, Orlin, Tarjan 1990), which fits a
// discrete-event simulation exactly: nothing is scheduled before now, so keys are
// monotone. cur holds, in (time, insertion) order, every entry before hi: those at the
// last extracted (or peeked) minimum time, last, or those of a small digit bucket that
// refill sorted. Every later entry sits in the bucket named by where its time
// first differs from last (see hiBit): three levels of 64 buckets by 6-bit digit for
// times up to 262 ns ahead, then a bucket per bit; one occupancy word per level and a
// word of non-empty levels. Insertion appends to one bucket, O(1), or joins cur in order
// before hi. When cur runs empty,
// the lowest non-empty bucket holds the minimum: Next delivers a bucket's only entry
// straight from there (events at distinct times, the common case); otherwise refill
// lends the bucket's array to cur, as it is when all its entries are at one time
// (synchronised hosts), sorted when it is a digit bucket of at most runMax entries
// (each of them then moves once), else keeping the entries at its minimum, compacted in place,
// after moving the others to lower levels. No entry maps to that bucket until last
// changes, and the array goes back to it then, so every bucket keeps its own array.
// An entry moves at most once per level it descends. Buckets are append-only slices,
// so the structure is cache friendly and allocation-free once grown. Entries keep
// insertion order inside every bucket (redistribution only ever fills empty buckets,
// and equal times always share a bucket), so equal times fire FIFO: the order is
// exactly (time, insertion sequence), the same as any priority queue on that key gives.
//
// The digit buckets keep arrays sized for the bursts they saw: fewer instructions than a
// bucket per bit, for a little more peak memory; 64-way levels all the way up would hold
// far larger arrays, and dropping big arrays when a bucket empties costs allocation
// churn.
//
// BenchmarkHold (engine_test.go) compares it with a 4-ary heap of 16-byte keys with
// payloads in a side table (heapEngine, heap_test.go), which TestRadixMatchesHeap uses as
// the reference on random schedules, timer restarts, stops, peeks and stop times: both
// must deliver identical sequences.
//
// Payloads sit in a slot array, so moves copy 16 bytes (entries of 32 bytes with the
// payload inline take more cache misses on a large fabric than the slot read they save).
// A timer owns a permanent timerSlot, its tie, time and payload in one line's half; an
// arming is one entry whose tie matches the timer's current tie.
// Reset and Stop make the previous entry stale; stale entries move like live ones, are
// dropped when Next or PeekTime meets them, and are compacted away once they outnumber
// the live ones, so restarting a timer costs O(1) and never grows memory without bound.
//
// An Engine is not safe for concurrent use; each job owns one.
type Engine struct {
	now     Time
	stop    Time
	last    Time // time of the last extracted (or peeked) minimum; all entries are >= last
	seq     uint64
	cur     []entry // the entries before hi, in (at, tie) order, delivered from cur[head]
	hi      Time    // an entry at < hi goes to cur, in order; the buckets hold the later ones
	head    int
	ol, od  uint           // the bucket whose array cur holds (spareLevel, 0: its own)
	occ     [levels]uint64 // bit d set: buckets[l][d] may be non-empty (cleared when refill empties it)
	full    uint64         // bit l set: occ[l] != 0
	n       int            // entries held (live + stale)
	stale   int
	fired   uint64
	slots   []payload   // per event slot: a pending event's payload
	free    []uint32    // free event slots
	timers  []timerSlot // per timer
	buckets [levels][fanout][]entry
	ev      Event // the event NextRef delivered last
}

// NewEngine returns an engine at time 0 with no stop time.
func NewEngine() *Engine {
	return &Engine{stop: Never, cur: make([]entry, 0, 64), hi: 1, ol: spareLevel, slots: make([]payload, 0, 1024), timers: make([]timerSlot, 0, 1024)}
}

// MaxPending is the most events one engine holds pending at once, and the most timers
// it creates: an entry names its payload's slot in 24 bits.
const MaxPending = maxSlots

// LimitError is the value an Engine panics with when a job needs more than MaxPending
// pending events or timers. Schedule and NewTimer have no error to return and sit on
// every event's path, so the limit is a panic that the fabric recovers into the job's
// error, with the job's name and what to change.
type LimitError struct {
	What string // "pending events" or "timers"
	At   Time   // the simulated time it was reached
}

func (le *LimitError) Error() string {
	return fmt.Sprintf("sim: more than %d %s at simulated %v", MaxPending, le.What, le.At)
}

// overLimit panics with a *LimitError (out of line: newSlot and NewTimer stay small).
func (e *Engine) overLimit(what string) {
	panic(&LimitError{What: what, At: e.now})
}

func (e *Engine) newSlot(p payload) uint32 {
	if k := len(e.free); k > 0 {
		s := e.free[k-1]
		e.free = e.free[:k-1]
		e.slots[s] = p
		return s
	}
	if len(e.slots) >= maxSlots {
		e.overLimit("pending events")
	}
	e.slots = append(e.slots, p)
	return uint32(len(e.slots) - 1)
}

// Now is the current simulated time: the time of the event being handled.
func (e *Engine) Now() Time { return e.now }

// Fired is the number of events delivered by Next so far.
func (e *Engine) Fired() uint64 { return e.fired }

// Pending is the number of events (armed timers included) waiting to fire.
func (e *Engine) Pending() int { return e.n - e.stale }

// SetStop makes Next report no more events once the next one is later than t.
func (e *Engine) SetStop(t Time) { e.stop = t }

// StopTime returns the stop time set by SetStop (Never by default).
func (e *Engine) StopTime() Time { return e.stop }

func (e *Engine) insert(en entry) {
	e.n++
	if en.at < e.hi {
		e.toCur(en)
		return
	}
	e.put(en, e.last)
}

// toCur adds en (last <= en.at < hi) to cur in (at, tie) order: its tie is the newest,
// so it goes after every entry at or before its time. Entries at last, the common case,
// go straight to the end.
func (e *Engine) toCur(en entry) {
	e.cur = append(e.cur, en)
	i := len(e.cur) - 1
	for ; i > e.head && e.cur[i-1].at > en.at; i-- {
		e.cur[i] = e.cur[i-1]
	}
	e.cur[i] = en
}

// bucketOf returns the level and digit of the bucket of time at > last. Every entry in
// the buckets is in the bucket of its time against the current last: refill moves the
// entries of the bucket it empties against the new last, and the other buckets' entries
// differ from the new last first in the same digit as from the old one.
func bucketOf(at, last Time) (l, d uint) {
	h := uint(bits.Len64(uint64(at^last))) - 1
	if h >= hiBit {
		return (digitLevels + h - hiBit) % levels, 0
	}
	l = h / digitBits
	return l, uint(at>>(l*digitBits)) % fanout
}

// put appends en (en.at > last) to its bucket against last.
func (e *Engine) put(en entry, last Time) {
	l, d := bucketOf(en.at, last)
	e.buckets[l][d] = append(e.buckets[l][d], en)
	e.occ[l] |= 1 << d
	e.full |= 1 << l
}

// Schedule adds an event at time at. Scheduling in the past is a programming error and
// panics with the numbers (htsim asserts the same causality rule).
func (e *Engine) Schedule(at Time, kind Kind, dev int32, port int16, arg int64) {
	if at < e.now || kind == 0 {
		e.badSchedule(at, kind)
	}
	if at < e.last {
		e.rebase()
	}
	s := e.newSlot(payload{Kind: kind, Port: port, Dev: dev, Arg: arg})
	e.seq++
	en := entry{at: at, tie: e.seq<<seqShift | uint64(s)}
	e.n++
	if at < e.hi {
		e.toCur(en)
		return
	}
	e.put(en, e.last)
}

// badSchedule panics with the numbers of a Schedule that breaks causality or has no Kind
// (kept out of line so that Schedule stays small).
func (e *Engine) badSchedule(at Time, kind Kind) {
	if kind == 0 {
		panic("sim: event with zero Kind")
	}
	panic(fmt.Sprintf("sim: event %#04x scheduled at %v, before now %v", uint16(kind), at, e.now))
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
	if len(e.timers) >= maxSlots {
		e.overLimit("timers")
	}
	e.timers = append(e.timers, timerSlot{at: Never, p: payload{Kind: kind, Port: port, Dev: dev, Arg: arg}})
	return TimerID(len(e.timers))
}

// Reset arms timer id to fire at time at, replacing any earlier arming. The timer gets a
// fresh insertion sequence, as if newly scheduled.
func (e *Engine) Reset(id TimerID, at Time) {
	if at < e.now {
		e.badReset(id, at)
	}
	if at < e.last {
		e.rebase()
	}
	s := uint32(id - 1)
	e.seq++
	en := entry{at: at, tie: e.seq<<seqShift | timerFlag | uint64(s)}
	t := &e.timers[s]
	old := t.tie
	t.tie, t.at = en.tie, at
	if old != 0 { // the old arming's entry is stale now
		e.stale++
		if e.stale >= 1024 {
			e.maybeCompact()
		}
	}
	e.insert(en)
}

func (e *Engine) badReset(id TimerID, at Time) {
	panic(fmt.Sprintf("sim: timer %d reset to %v, before now %v", id, at, e.now))
}

// Stop disarms timer id. It reports whether the timer was armed.
func (e *Engine) Stop(id TimerID) bool {
	t := &e.timers[id-1]
	if t.tie == 0 {
		return false
	}
	t.tie = 0
	e.stale++
	if e.stale >= 1024 {
		e.maybeCompact()
	}
	return true
}

// Armed reports whether timer id is waiting to fire.
func (e *Engine) Armed(id TimerID) bool { return e.timers[id-1].tie != 0 }

// When returns the time timer id will fire, or Never when it is disarmed.
func (e *Engine) When(id TimerID) Time {
	if t := &e.timers[id-1]; t.tie != 0 {
		return t.at
	}
	return Never
}

// isStale reports whether en is an arming its timer no longer has.
func (e *Engine) isStale(en *entry) bool {
	return en.tie&timerFlag != 0 && e.timers[en.tie&slotMask].tie != en.tie
}

// Next removes and returns the earliest event and advances Now to its time. It returns
// false when no event is pending or the next one is after the stop time (Now then moves
// to the stop time if that is finite and later).
func (e *Engine) Next() (Event, bool) {
	if ev := e.NextRef(); ev != nil {
		return *ev, true
	}
	return Event{}, false
}

// NextRef is Next for the event loop: it returns the event in a value the engine owns,
// valid until the next call of NextRef or Next, or nil where Next returns false. The
// loop and the handlers read the event's fields where the engine wrote them: with Next's
// result the loop copied the event through two stack temporaries at every event (the
// loop's own time was 11% of a leaf-spine job's CPU profile, the loop and Next 15.7%;
// with NextRef 13.6%).
func (e *Engine) NextRef() *Event {
	for {
		var en entry
		if e.head < len(e.cur) {
			if e.cur[e.head].at > e.stop {
				break
			}
			en = e.cur[e.head]
			e.last = en.at
			e.head++
			if e.head == len(e.cur) {
				e.cur, e.head = e.cur[:0], 0
			}
		} else {
			// cur is used up: the lowest non-empty bucket holds the minimum. When it holds
			// one entry (events at distinct times, the common case) and that is due, it is
			// delivered straight from there; otherwise refill makes it cur.
			if e.full == 0 {
				break
			}
			if e.ol != spareLevel {
				e.release() // last is about to change
			}
			l := uint(bits.TrailingZeros64(e.full)) % levels
			d := uint(bits.TrailingZeros64(e.occ[l])) % fanout
			q := &e.buckets[l][d]
			if len(*q) != 1 || (*q)[0].at > e.stop {
				if !e.refill() {
					break
				}
				continue
			}
			en = (*q)[0]
			*q = (*q)[:0]
			if e.occ[l] &^= 1 << d; e.occ[l] == 0 {
				e.full &^= 1 << l
			}
			e.last, e.hi = en.at, en.at+1
		}
		e.n--
		s := uint32(en.tie & slotMask)
		var p *payload
		if en.tie&timerFlag != 0 {
			t := &e.timers[s]
			if t.tie != en.tie {
				e.stale--
				continue
			}
			t.tie = 0
			p = &t.p
		} else {
			p = &e.slots[s] // read below, before any Schedule reuses the slot
			e.free = append(e.free, s)
		}
		e.now = en.at
		e.fired++
		// Field by field, from the slot to e.ev: a whole-struct copy went through a
		// stack temporary written field by field and read back 16 bytes at a time, a
		// load the processor cannot forward from those stores, so it waited for them to
		// reach the cache (two thirds of this function's time in a leaf-spine profile).
		ev := &e.ev
		ev.At, ev.Kind, ev.Port, ev.Dev, ev.Arg = en.at, p.Kind, p.Port, p.Dev, p.Arg
		return ev
	}
	if e.stop != Never && e.stop > e.now {
		e.now = e.stop
	}
	return nil
}

// NextInRun returns the payload of the event NextRef delivers next when that event is
// already in the sorted run (cur), else nil: one load, for a hint to the processor.
func (e *Engine) NextInRun() *Hint {
	if e.head < len(e.cur) {
		return e.payloadOf(&e.cur[e.head])
	}
	return nil
}

// Hint is what a pending event will deliver: its kind, device, port and argument. It is
// also the engine's own payload slot.
type Hint struct {
	Kind Kind
	Port int16
	Dev  int32
	Arg  int64
}

// Upcoming returns the payloads of the two events most likely to fire next, in order
// (nil when there are fewer), and hints the processor to load the payload of the third,
// so that the caller can prefetch what the next events will touch while it handles the
// current one (a chain: the third's payload now, the second's first lines, the next
// one's deeper lines). The pointers are valid until the engine is next called. They are
// hints only: they are taken from cur and the lowest non-empty buckets in bucket order,
// so an event scheduled meanwhile, or an entry of a bucket that refill would split, may
// come first, and an entry may be a stale timer arming.
func (e *Engine) Upcoming() (next, after *Hint) {
	if c := e.cur[e.head:]; len(c) >= 3 {
		Prefetch(unsafe.Pointer(e.payloadOf(&c[2])))
		return e.payloadOf(&c[0]), e.payloadOf(&c[1])
	}
	return e.upcomingBuckets()
}

// upcomingBuckets is Upcoming when cur holds fewer than three entries: the rest come
// from the buckets in order.
func (e *Engine) upcomingBuckets() (next, after *Hint) {
	var en [3]*entry
	k := 0
	for i := e.head; i < len(e.cur); i++ {
		en[k] = &e.cur[i]
		k++
	}
	for lm := e.full; lm != 0; lm &= lm - 1 {
		l := uint(bits.TrailingZeros64(lm)) % levels
		for dm := e.occ[l]; dm != 0; dm &= dm - 1 {
			q := e.buckets[l][uint(bits.TrailingZeros64(dm))%fanout]
			for j := range q {
				en[k] = &q[j]
				if k++; k == len(en) {
					Prefetch(unsafe.Pointer(e.payloadOf(en[2])))
					return e.payloadOf(en[0]), e.payloadOf(en[1])
				}
			}
		}
	}
	if k == 2 {
		after = e.payloadOf(en[1])
	}
	if k >= 1 {
		next = e.payloadOf(en[0])
	}
	return next, after
}

// payloadOf returns the payload entry en delivers (a timer's current one if stale).
func (e *Engine) payloadOf(en *entry) *payload {
	s := en.tie & slotMask
	if en.tie&timerFlag != 0 {
		return &e.timers[s].p
	}
	return &e.slots[s]
}

// refill makes cur hold the entries at the next minimum time (cur's entries have all
// been delivered) and sets last to that time. It reports false when nothing is pending.
// The entries it moves may all be stale; Next and PeekTime then call it again. The
// lowest non-empty bucket holds the minimum: cur borrows its array, after the entries
// not at the minimum have moved to lower buckets, until release gives it back.
func (e *Engine) refill() bool {
	e.release()
	for e.full != 0 {
		l := uint(bits.TrailingZeros64(e.full)) % levels
		d := uint(bits.TrailingZeros64(e.occ[l])) % fanout
		src := e.buckets[l][d]
		if e.occ[l] &^= 1 << d; e.occ[l] == 0 {
			e.full &^= 1 << l
		}
		if len(src) == 0 { // emptied by maybeCompact
			continue
		}
		// cur takes the bucket's array, and gives it back at the next refill: meanwhile no
		// entry maps to the bucket (a time > last that shares last's digits down to
		// level l differs from it below), so every bucket keeps its own array and none
		// grows beyond what its own entries (or cur's) need.
		e.buckets[l][d] = src[:0]
		e.ol, e.od = l, d
		e.head = 0
		// Stale timer entries move like live ones (they are rare); Next drops them.
		min, max := src[0].at, src[0].at
		for i := 1; i < len(src); i++ {
			if at := src[i].at; at < min {
				min = at
			} else if at > max {
				max = at
			}
		}
		e.last, e.hi = min, min+1
		if min == max { // one entry, or all at one time (synchronised hosts)
			e.cur = src
			return true
		}
		if l > 0 && l < digitLevels && len(src) <= runMax {
			// A digit bucket of a few entries becomes cur sorted, so that each entry moves
			// once: cur then holds everything before the bucket's end (hi), and what is
			// scheduled before hi meanwhile joins it in order (toCur).
			sortRun(src)
			e.cur = src
			e.hi = (min>>(l*digitBits) + 1) << (l * digitBits)
			return true
		}
		k := 0
		for i := range src {
			if src[i].at == min {
				src[k] = src[i] // k <= i: compacts the minimum's entries in order
				k++
				continue
			}
			e.put(src[i], min) // to a lower level: the entries share the digits from l's up
		}
		e.cur = src[:k]
		return true
	}
	return false
}

// runMax is the most entries a digit bucket may hold for refill to sort it into cur;
// a larger one is spread over the level below, as a bit level's bucket always is.
const runMax = 32

// sortRun sorts r by time, keeping the order of equal times (insertion order, as every
// bucket holds them), so that r is in (at, tie) order.
func sortRun(r []entry) {
	for i := 1; i < len(r); i++ {
		en := r[i]
		j := i
		for ; j > 0 && r[j-1].at > en.at; j-- {
			r[j] = r[j-1]
		}
		r[j] = en
	}
}

// release gives the array cur holds back to its bucket, before last changes, and makes
// cur the spare bucket's array, empty.
func (e *Engine) release() {
	e.buckets[e.ol%levels][e.od%fanout] = e.cur[:0]
	e.cur, e.head, e.ol, e.od = e.buckets[spareLevel][0], 0, spareLevel, 0
}

// PeekTime returns the time of the earliest pending event, or Never.
func (e *Engine) PeekTime() Time {
	for {
		for e.head < len(e.cur) && e.isStale(&e.cur[e.head]) {
			e.head++
			e.n--
			e.stale--
		}
		if e.head < len(e.cur) {
			return e.cur[e.head].at
		}
		if !e.refill() {
			return Never
		}
	}
}

// rebase re-buckets everything against now when an event is scheduled between now and a
// minimum that Next peeked at (only after a stop): keys must stay >= last.
func (e *Engine) rebase() {
	all := append([]entry(nil), e.cur[e.head:]...)
	e.release()
	for l := range e.buckets {
		for d := range e.buckets[l] {
			all = append(all, e.buckets[l][d]...)
			e.buckets[l][d] = e.buckets[l][d][:0]
		}
	}
	e.occ, e.full = [levels]uint64{}, 0
	e.last, e.hi = e.now, e.now+1
	e.n -= len(all)
	// re-insert in (at, tie) order so FIFO order among equal times survives
	slices.SortFunc(all, func(a, b entry) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(a.tie, b.tie)
	})
	for _, en := range all {
		e.insert(en)
	}
}

// maybeCompact drops stale timer entries once they outnumber the live ones.
func (e *Engine) maybeCompact() {
	if e.stale < 1024 || e.stale < e.n-e.stale {
		return
	}
	// keep copies the live entries of src to dst (src's array, at or before src) in order.
	keep := func(dst, src []entry) []entry {
		for i := range src {
			if !e.isStale(&src[i]) {
				dst = append(dst, src[i])
			}
		}
		return dst
	}
	e.cur = keep(e.cur[:0], e.cur[e.head:])
	e.head = 0
	for lm := e.full; lm != 0; lm &= lm - 1 { // the non-empty buckets only (of 4,096)
		l := uint(bits.TrailingZeros64(lm)) % levels
		for dm := e.occ[l]; dm != 0; dm &= dm - 1 {
			q := &e.buckets[l][uint(bits.TrailingZeros64(dm))%fanout]
			*q = keep((*q)[:0], *q)
		}
	}
	e.n -= e.stale
	e.stale = 0
}
