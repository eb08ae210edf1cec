package sim

import (
	"math/rand/v2"
	"testing"
)

const kindTest Kind = Kind(OwnerTest)<<8 | 1

func TestTieOrderIsInsertionOrder(t *testing.T) {
	e := NewEngine()
	for i := 0; i < 1000; i++ {
		e.Schedule(Time(i%3)*Nanosecond, kindTest, 0, 0, int64(i))
	}
	last := map[Time]int64{}
	n := 0
	for ev, ok := e.Next(); ok; ev, ok = e.Next() {
		if prev, seen := last[ev.At]; seen && ev.Arg <= prev {
			t.Fatalf("at %v: arg %d fired after %d", ev.At, ev.Arg, prev)
		}
		last[ev.At] = ev.Arg
		n++
	}
	if n != 1000 {
		t.Fatalf("fired %d events, want 1000", n)
	}
}

func TestUpcoming(t *testing.T) {
	e := NewEngine()
	if next, after := e.Upcoming(); next != nil || after != nil {
		t.Fatalf("Upcoming of an empty engine found %v, %v", next, after)
	}
	// Distinct times in distinct buckets, and two at one time (cur).
	times := []Time{5, 300 * Nanosecond, 2 * Microsecond, 2 * Microsecond, 2 * Microsecond, 2 * Microsecond}
	for i, at := range times {
		e.Schedule(at, kindTest, int32(i), int16(i), int64(i))
	}
	for want := int32(0); want < int32(len(times)); want++ {
		next, after := e.Upcoming()
		if next == nil || next.Dev != want || (want+1 < int32(len(times))) != (after != nil) || (after != nil && after.Dev != want+1) {
			t.Fatalf("before event %d: Upcoming %+v %+v", want, next, after)
		}
		if ev, ok := e.Next(); !ok || ev.Dev != want {
			t.Fatalf("event %d: %+v %v", want, ev, ok)
		}
	}
}

// TestNextInRun: NextInRun names the event Next delivers next whenever it returns one
// (it returns nil only when that event is not in the sorted run yet), on random
// schedules with events added between deliveries.
func TestNextInRun(t *testing.T) {
	e := NewEngine()
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		e.Schedule(Time(r.IntN(2000)), kindTest, int32(i), 0, int64(i))
	}
	named, n := 0, 200
	for {
		h := e.NextInRun()
		var want Hint
		if h != nil {
			want = *h
		}
		ev, ok := e.Next()
		if !ok {
			if h != nil {
				t.Fatalf("NextInRun named %+v, Next delivered nothing", want)
			}
			break
		}
		if h != nil {
			named++
			if want.Dev != ev.Dev || want.Arg != ev.Arg || want.Kind != ev.Kind {
				t.Fatalf("NextInRun named %+v, Next delivered %+v", want, ev)
			}
		}
		if n < 400 && r.IntN(2) == 0 { // some at now (into the run), some later
			e.After(Time(r.IntN(3))*Time(r.IntN(500)), kindTest, int32(n), 0, int64(n))
			n++
		}
	}
	if named == 0 {
		t.Fatal("NextInRun never named an event")
	}
}

func TestOrderMatchesSort(t *testing.T) {
	e := NewEngine()
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		e.Schedule(Time(r.IntN(100)), kindTest, 0, 0, int64(i))
	}
	var prev Event
	for ev, ok := e.Next(); ok; ev, ok = e.Next() {
		if ev.At < prev.At || (ev.At == prev.At && ev.Arg < prev.Arg) {
			t.Fatalf("out of order: %+v after %+v", ev, prev)
		}
		prev = ev
	}
}

func TestTimerResetDoesNotLeak(t *testing.T) {
	e := NewEngine()
	id := e.NewTimer(kindTest, 7, 1, 42)
	for i := 0; i < 10000; i++ {
		e.Reset(id, Time(i+1)*Microsecond)
	}
	if e.Pending() != 1 {
		t.Fatalf("pending = %d after 10000 resets, want 1", e.Pending())
	}
	if e.n > 2048 { // stale armings are compacted: memory stays bounded
		t.Fatalf("%d entries held after 10000 resets of one timer", e.n)
	}
	e.Reset(id, 5*Nanosecond) // earlier than before
	e.Schedule(5*Nanosecond, kindTest, 0, 0, 1)
	ev, ok := e.Next()
	if !ok || ev.Dev != 7 || ev.At != 5*Nanosecond || ev.Arg != 42 {
		t.Fatalf("first event %+v, want timer at 5ns", ev)
	}
	if e.Armed(id) {
		t.Fatal("timer still armed after firing")
	}
	if ev, _ := e.Next(); ev.Arg != 1 {
		t.Fatalf("second event %+v", ev)
	}
	e.Reset(id, 10*Nanosecond)
	if !e.Stop(id) || e.Pending() != 0 {
		t.Fatalf("stop left %d pending", e.Pending())
	}
	if _, ok := e.Next(); ok {
		t.Fatal("stopped timer fired")
	}
}

func TestStopTime(t *testing.T) {
	e := NewEngine()
	e.Schedule(10, kindTest, 0, 0, 0)
	e.Schedule(20, kindTest, 0, 0, 0)
	e.SetStop(15)
	if _, ok := e.Next(); !ok {
		t.Fatal("event at 10 not delivered")
	}
	if _, ok := e.Next(); ok {
		t.Fatal("event at 20 delivered past stop 15")
	}
	if e.Now() != 15 || e.Pending() != 1 {
		t.Fatalf("now %v pending %d", e.Now(), e.Pending())
	}
}

func TestPauseTimeWorkedNumbers(t *testing.T) {
	// switch.md §12.6 and nic.md §17.
	if got := PauseTime(65535, 400e9, 500*Nanosecond); got != 84_384_800 {
		t.Errorf("switch pause time = %d ps, want 84,384,800", got)
	}
	if got := PauseTime(65535, 400e9, 100*Nanosecond); got != 83_984_800 {
		t.Errorf("NIC pause time = %d ps, want 83,984,800", got)
	}
	if got := SerializationCeil(4018, 400e9); got != 80_360 {
		t.Errorf("4,018 B at 400 Gbps = %d ps, want 80,360", got)
	}
	if got := SerializationNearest(4154, 400e9); got != 83_080 {
		t.Errorf("4,154 B at 400 Gbps = %d ps, want 83,080", got)
	}
}

// queue is what the hold benchmark needs of a pending-event set.
type queue interface {
	Schedule(at Time, kind Kind, dev int32, port int16, arg int64)
	Next() (Event, bool)
}

// BenchmarkHold is the classic hold model: a steady population of n pending events; each
// step removes the earliest and schedules one a uniform random [0, 1us) later. It compares
// the radix heap (Engine) with a 4-ary heap (heapEngine, heap_test.go).
func BenchmarkHold(b *testing.B) {
	impls := []struct {
		name string
		new  func() queue
	}{
		{"radix", func() queue { return NewEngine() }},
		{"heap4", func() queue { return newHeapEngine() }},
	}
	for _, impl := range impls {
		for _, n := range []int{1000, 100000} {
			b.Run(impl.name+"/"+itoa(n), func(b *testing.B) {
				e := impl.new()
				r := rand.New(rand.NewPCG(1, 1))
				for i := 0; i < n; i++ {
					e.Schedule(Time(r.Int64N(int64(Microsecond))), kindTest, 0, 0, 0)
				}
				hold := func() {
					ev, _ := e.Next()
					e.Schedule(ev.At+Time(r.Int64N(int64(Microsecond))), kindTest, 0, 0, 0)
				}
				for i := 0; i < 4*n; i++ { // warm up: buckets and slots reach their working size
					hold()
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					hold()
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

func BenchmarkTimerRestart(b *testing.B) {
	e := NewEngine()
	ids := make([]TimerID, 1000)
	for i := range ids {
		ids[i] = e.NewTimer(kindTest, int32(i), 0, 0)
		e.Reset(ids[i], Time(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Reset(ids[i%len(ids)], Time(i+1000))
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// TestRadixMatchesHeap drives the radix heap and the reference 4-ary heap with the same
// random stream of schedules, timer resets, stops, stop times, peeks and pops; both must
// deliver the identical event sequence (a metamorphic check of ordering and timer
// semantics). The second case restarts many timers far more often than events fire, so
// stale armings pile up and are compacted away. The third schedules within 16 ns, so
// that digit buckets are sorted into cur and what is scheduled meanwhile joins it.
func TestRadixMatchesHeap(t *testing.T) {
	cases := []struct {
		timers, scheds, resets int // timers; of each draw of 10 + pops: schedules, resets, 1 stop,
		pops                   int // 1 stop time, peek or pop, and pops
		seeds                  uint64
		span                   int // times are drawn up to 2^span ps ahead
	}{
		{timers: 50, scheds: 4, resets: 2, pops: 2, seeds: 20, span: 40},
		{timers: 3000, scheds: 1, resets: 7, pops: 0, seeds: 3, span: 40},
		{timers: 50, scheds: 4, resets: 2, pops: 2, seeds: 20, span: 14},
	}
	for _, c := range cases {
		for seed := uint64(1); seed <= c.seeds; seed++ {
			matchHeap(t, c.timers, c.scheds, c.resets, c.pops, seed, c.span)
		}
	}
}

// held counts the entries e holds (live and stale), which e.n must equal.
func (e *Engine) held() int {
	h := len(e.cur) - e.head
	for l := range e.buckets {
		for d := range e.buckets[l] {
			h += len(e.buckets[l][d])
		}
	}
	return h
}

func matchHeap(t *testing.T, timers, scheds, resets, pops int, seed uint64, span int) {
	r := rand.New(rand.NewPCG(seed, 99))
	a, b := NewEngine(), newHeapEngine()
	var ta, tb []TimerID
	for i := 0; i < timers; i++ {
		ta = append(ta, a.NewTimer(kindTest, int32(i), 1, int64(i)))
		tb = append(tb, b.NewTimer(kindTest, int32(i), 1, int64(i)))
	}
	compacted := false
	for step := 0; step < 20000; step++ {
		now := a.Now()
		switch op := r.IntN(10+pops) + 4 - scheds; { // op < 4: schedule
		case op < 4:
			at := now + Time(r.IntN(3))*Time(r.Int64N(1<<uint(r.IntN(span))))
			a.Schedule(at, kindTest, 0, 0, int64(step))
			b.Schedule(at, kindTest, 0, 0, int64(step))
		case op < 4+resets:
			k := r.IntN(len(ta))
			at := now + Time(r.Int64N(1<<uint(r.IntN(span))))
			stale := a.stale
			a.Reset(ta[k], at)
			b.Reset(tb[k], at)
			compacted = compacted || a.stale < stale
			if a.When(ta[k]) != at || !a.Armed(ta[k]) {
				t.Fatalf("seed %d step %d: timer reset to %v: When %v, Armed %v", seed, step, at, a.When(ta[k]), a.Armed(ta[k]))
			}
		case op < 5+resets:
			k := r.IntN(len(ta))
			if a.Stop(ta[k]) != b.Stop(tb[k]) || a.Armed(ta[k]) || a.When(ta[k]) != Never {
				t.Fatalf("seed %d step %d: Stop disagrees", seed, step)
			}
		case op < 6+resets && r.IntN(50) == 0:
			st := now + Time(r.Int64N(1<<uint(min(30, span))))
			a.SetStop(st)
			b.SetStop(st)
		case op < 6+resets && r.IntN(10) == 0:
			if pa, pb := a.PeekTime(), b.PeekTime(); pa != pb {
				t.Fatalf("seed %d step %d: PeekTime radix %v, heap %v", seed, step, pa, pb)
			}
		default:
			ea, oka := a.Next()
			eb, okb := b.Next()
			if ea != eb || oka != okb || a.Now() != b.Now() {
				t.Fatalf("seed %d step %d: radix %+v %v, heap %+v %v", seed, step, ea, oka, eb, okb)
			}
			if !oka {
				a.SetStop(Never)
				b.SetStop(Never)
			}
		}
		if a.Pending() != b.Pending() {
			t.Fatalf("seed %d step %d: pending %d vs %d", seed, step, a.Pending(), b.Pending())
		}
		// Upcoming is a hint on any state (stale armings, borrowed buckets, stops): it
		// must not fail, and finds something whenever anything is pending.
		if next, after := a.Upcoming(); (a.Pending() > 0 && next == nil) || (next == nil && after != nil) {
			t.Fatalf("seed %d step %d: Upcoming found %v, %v of %d pending", seed, step, next, after, a.Pending())
		}
		if step%97 == 0 {
			if h := a.held(); h != a.n || a.stale < 0 || a.stale > a.n {
				t.Fatalf("seed %d step %d: %d entries held, counted %d, %d stale", seed, step, h, a.n, a.stale)
			}
		}
	}
	if timers > 1000 && !compacted {
		t.Fatalf("seed %d: %d timers restarted 20000 times never compacted", seed, timers)
	}
	for {
		ea, oka := a.Next()
		eb, okb := b.Next()
		if ea != eb || oka != okb {
			t.Fatalf("seed %d draining: radix %+v %v, heap %+v %v", seed, ea, oka, eb, okb)
		}
		if !oka {
			break
		}
	}
}
