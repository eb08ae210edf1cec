package switchdev

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/internal/doctest"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// TestDocInit computes the table of docs/switch.md §12.1 with InitBuffer: the inputs
// (ports, buffer, headroom) come from the table, every output is checked against it.
func TestDocInit(t *testing.T) {
	tb := doctest.Load(t, "switch.md", "switch-init")
	val := func(key string) int64 { return doctest.Int(t, tb, tb.Cell(t, key, "value")) }

	sw := config.DefaultSwitch()
	if got := val("TotalSharedBufferSize"); got != int64(sw.SharedBufferManager.TotalSharedBufferSize) {
		t.Errorf("%s: TotalSharedBufferSize %d, the default is %d", tb.Where(), got, sw.SharedBufferManager.TotalSharedBufferSize)
	}
	if got := val("HeadRoomPerPortLimit"); got != int64(sw.SharedBufferManager.HeadRoomPerPortLimit) {
		t.Errorf("%s: HeadRoomPerPortLimit %d, the default is %d", tb.Where(), got, sw.SharedBufferManager.HeadRoomPerPortLimit)
	}
	b, err := InitBuffer(&sw, int(val("connected ports")))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key string
		got float64
	}{
		{"headroom total", float64(b.HeadroomTotal)},
		{"sizing total", float64(b.SizingTotal)},
		{"pool 0", float64(b.PoolSize[0])},
		{"pool 1", float64(b.PoolSize[1])},
		{"Xoff", float64(b.Xoff)},
		{"Xon", float64(b.Xon)},
		{"hysteresis band", float64(b.Xoff - b.Xon)},
		{"pool 0 ECN band low", b.EcnMin[0]},
		{"pool 0 ECN band high", b.EcnMax[0]},
		{"pool 1 ECN band low", b.EcnMin[1]},
		{"pool 1 ECN band high", b.EcnMax[1]},
	} {
		want := doctest.Float(t, tb, tb.Cell(t, c.key, "value"))
		if c.got != want { // bytes are whole; the ECN bands are exact products here
			t.Errorf("%s: %s is %.10g in the docs, the model computes %.10g", tb.Where(), c.key, want, c.got)
		}
	}
	tb.AllChecked(t)
}

// TestDocPauseTime computes docs/switch.md §12.6 with sim.PauseTime.
func TestDocPauseTime(t *testing.T) {
	tb := doctest.Load(t, "switch.md", "switch-pause-time")
	val := func(key string) float64 { return doctest.Float(t, tb, tb.Cell(t, key, "value")) }
	q := int64(val("quanta"))
	rate := val("link rate") * 1e9
	d := sim.Time(val("propagation delay")) * sim.Nanosecond
	if q != pkt.PauseQuanta {
		t.Errorf("%s: quanta %d, the switch sends %d", tb.Where(), q, pkt.PauseQuanta)
	}
	pause := sim.PauseTime(q, rate, d)
	for _, c := range []struct {
		key string
		got sim.Time
	}{
		{"quanta × 512 / rate", sim.PauseTime(q, rate, 0)},
		{"pause time", pause},
		{"refresh period (pause time / 2)", pause / 2},
	} {
		if want := sim.Time(doctest.Int(t, tb, tb.Cell(t, c.key, "value"))); c.got != want {
			t.Errorf("%s: %s is %d ps in the docs, the model computes %d ps", tb.Where(), c.key, want, c.got)
		}
	}
	tb.AllChecked(t)
}

// TestDocPauseSequence replays docs/switch.md §12.3 packet by packet: 4,000 B TC0
// packets into port 0 of a default switch whose egress port 1 is paused. Each row gives
// an arrival range, ingOcc and hdrm after its last arrival, and whether a pause went out
// or a packet was dropped within the range.
func TestDocPauseSequence(t *testing.T) {
	tb := doctest.Load(t, "switch.md", "switch-pause-sequence")
	type state struct{ occ, hdrm, pauses, drops int64 }
	var seen []state // seen[k-1] after arrival k

	cfg := config.DefaultSwitch()
	f := newFab(t)
	sw := f.addSwitch(&cfg, 7, 2, rate400, delay, routeAll(1))
	pt0 := &sw.ports[0]
	f.at(0, 0, 1, f.pfc(0, pkt.PauseQuanta)) // block TC0 on port 1
	arrivals := 0
	for _, r := range tb.Col(t, "arrival") {
		arrivals = max(arrivals, int(doctest.Last(t, tb, r)))
	}
	for k := 1; k <= arrivals; k++ {
		f.do(sim.Nanosecond+sim.Time(k-1)*ser4000, func() {
			sw.Receive(0, f.data(0, 4000, 0, 1, 1))
			st := sw.Port(0, 0)
			seen = append(seen, state{st.IngOcc, st.Hdrm, pt0.pauseTx[0], pt0.rxDrops})
		})
	}
	f.run(25 * sim.Microsecond)
	if len(seen) != arrivals {
		t.Fatalf("%d arrivals replayed, want %d", len(seen), arrivals)
	}
	for _, row := range tb.Rows {
		key := row[0]
		ns := doctest.Numbers(key)
		from, to := int(ns[0]), int(ns[len(ns)-1])
		end := seen[to-1]
		before := state{}
		if from > 1 {
			before = seen[from-2]
		}
		if want := int64(doctest.Last(t, tb, tb.Cell(t, key, "ingOcc"))); end.occ != want {
			t.Errorf("%s: arrival %s: ingOcc %d in the docs, the model holds %d", tb.Where(), key, want, end.occ)
		}
		if want := int64(doctest.Last(t, tb, tb.Cell(t, key, "hdrm"))); end.hdrm != want {
			t.Errorf("%s: arrival %s: hdrm %d in the docs, the model holds %d", tb.Where(), key, want, end.hdrm)
		}
		result := tb.Cell(t, key, "result")
		paused := end.pauses > before.pauses
		dropped := end.drops > before.drops
		if strings.Contains(result, "pause sent") != paused {
			t.Errorf("%s: arrival %s: %q, but the model sent a pause: %v", tb.Where(), key, result, paused)
		}
		if strings.Contains(result, "dropped") != dropped {
			t.Errorf("%s: arrival %s: %q, but the model dropped: %v", tb.Where(), key, result, dropped)
		}
	}
	tb.AllChecked(t)
}

// TestDocNdStats replays the nd-stats example of docs/records.md §3: the table's bytes
// leave a switch port of the table's rate within one interval, as equal frames a
// microsecond apart, and the port's row at the table's time must hold the table's values.
func TestDocNdStats(t *testing.T) {
	tb := doctest.Load(t, "records.md", "records-nd-stats")
	val := func(key string) float64 { return doctest.Float(t, tb, tb.Cell(t, key, "value")) }
	rate := val("link rate") * 1e9
	if iv := sim.Time(val("interval")) * sim.Millisecond; iv != config.DefaultGlobal().NDStatsReportInterval {
		t.Fatalf("%s: interval %v, the switch reports every %v", tb.Where(), iv, config.DefaultGlobal().NDStatsReportInterval)
	}
	row := sim.Time(val("row time") * float64(sim.Second))
	total := int64(val("bytes sent in the interval"))
	// Equal frames of at most 9,274 B (MSS 9,216 + 58) that add up to the bytes.
	frames := int64(0)
	for n := (total + 9273) / 9274; n <= total/64; n++ {
		if total%n == 0 {
			frames = n
			break
		}
	}
	if frames == 0 {
		t.Fatalf("%s: %d B cannot be cut into equal frames", tb.Where(), total)
	}
	cfg := config.DefaultSwitch()
	f := newFab(t)
	sw := f.addSwitch(&cfg, 0, 2, rate, delay, routeAll(1))
	rec := stats.NewRecorder("job", time.Now)
	start := row - sim.Millisecond // inside the last interval before the row
	for k := int64(0); k < frames; k++ {
		f.at(start+sim.Time(k)*sim.Microsecond, 0, 0, f.data(2, int32(total/frames-pkt.EthOverhead), 0, 1, 1))
	}
	f.run(row)
	sw.ReportND(row, rec)
	if len(rec.NdStats) != 2 {
		t.Fatalf("%d nd-stats rows, want one per port", len(rec.NdStats))
	}
	r := rec.NdStats[1] // port 1 sent the frames
	for _, c := range []struct {
		key string
		got float64
	}{
		{"total_bytes_tx_GB", r.TotalBytesTxGB},
		{"interval_bytes_tx_MB", r.IntervalBytesTxMB},
		{"tx_rate_Gbps", r.TxRateGbps},
		{"tx_link_percent_util", r.TxLinkPercentUtil},
	} {
		if want := val(c.key); !sig6(c.got, want) {
			t.Errorf("%s: %s is %g in the docs, the model writes %g", tb.Where(), c.key, want, c.got)
		}
	}
	if r.SimTimeSec != row.Seconds() {
		t.Errorf("row at %g s, want %g s", r.SimTimeSec, row.Seconds())
	}
	tb.AllChecked(t)
}

// TestDocBufferStats computes the percent columns of the buffer-stats example of
// docs/records.md §6 from its limit, maximum and mean, as the switch's rows do.
func TestDocBufferStats(t *testing.T) {
	tb := doctest.Load(t, "records.md", "records-buffer-stats")
	val := func(key string) float64 { return doctest.Float(t, tb, tb.Cell(t, key, "value")) }
	limit := val("buffer_limit")
	for _, c := range []struct{ key, from string }{
		{"ivl_max_pct_util", "ivl_max_bytes"},
		{"ivl_mean_pct_util", "ivl_mean_bytes"},
	} {
		if got, want := pct(val(c.from), limit), val(c.key); !sig6(got, want) {
			t.Errorf("%s: %s is %g in the docs, the model writes %g", tb.Where(), c.key, want, got)
		}
	}
	tb.AllChecked(t)
}

// sig6 reports whether got rounds to want at 6 significant digits (records.md RC-2).
func sig6(got, want float64) bool {
	return strconv.FormatFloat(got, 'g', 6, 64) == strconv.FormatFloat(want, 'g', 6, 64)
}

// TestDocEgressLimits computes the per-port limits and ECN bands of docs/switch.md §12.2
// with InitBuffer for each form (128 ports, defaults otherwise).
func TestDocEgressLimits(t *testing.T) {
	tb := doctest.Load(t, "switch.md", "switch-egress-limits")
	for _, row := range tb.Rows {
		form := row[0]
		sw := config.DefaultSwitch()
		switch {
		case strings.HasPrefix(form, "α = 1"):
		case strings.Contains(form, "QueueDropThresholdEnable false"):
			sw.SharedBufferManager.LossyAlpha = 0
		case strings.Contains(form, "QueueDropThresholdEnable true"):
			sw.SharedBufferManager.LossyAlpha = 0
			sw.SharedBufferManager.QueueDropThresholdEnable = true
		default:
			t.Fatalf("%s: unknown form %q", tb.Where(), form)
		}
		b, err := InitBuffer(&sw, 128)
		if err != nil {
			t.Fatal(err)
		}
		for p, col := range []string{"per-port limit, pool 0", "pool 1"} {
			cell := tb.Cell(t, form, col)
			if b.LimitForm == LimitDynamic {
				if !strings.Contains(cell, "free bytes") || b.PerPortLimit[p] != 0 {
					t.Errorf("%s: %s pool %d: %q, the model's limit is %d (%s)", tb.Where(), form, p, cell, b.PerPortLimit[p], b.LimitForm)
				}
				continue
			}
			if want := int64(doctest.Numbers(cell)[0]); b.PerPortLimit[p] != want {
				t.Errorf("%s: %s pool %d limit %d in the docs, the model computes %d", tb.Where(), form, p, want, b.PerPortLimit[p])
			}
		}
		for p, col := range []string{"pool 0 ECN band", "pool 1 ECN band"} {
			ns := doctest.Numbers(tb.Cell(t, form, col))
			if len(ns) != 2 || ns[0] != b.EcnMin[p] || ns[1] != b.EcnMax[p] {
				t.Errorf("%s: %s pool %d ECN band %v in the docs, the model computes %v – %v", tb.Where(), form, p, ns, b.EcnMin[p], b.EcnMax[p])
			}
		}
		tb.Cell(t, form, "sum over 128 ports") // prose, read by people
	}
	tb.AllChecked(t)
}

// TestDocReleaseSequence replays docs/switch.md §12.4: after the §12.3 arrivals (up to
// the headroom cap), the blocked egress port is resumed and every departure is checked
// against the table's rows: headroom and ingOcc after the row's last departure, and
// whether the resume went out within the row.
func TestDocReleaseSequence(t *testing.T) {
	tb := doctest.Load(t, "switch.md", "switch-release-sequence")
	type state struct{ occ, hdrm, resumes int64 }
	var seen []state // seen[k-1] after departure k

	cfg := config.DefaultSwitch()
	f := newFab(t)
	sw := f.addSwitch(&cfg, 7, 2, rate400, delay, routeAll(1))
	pt0 := &sw.ports[0]
	f.at(0, 0, 1, f.pfc(0, pkt.PauseQuanta)) // block TC0 on port 1
	for k := 1; k <= 240; k++ {              // §12.3: 176 to the pause, 64 into headroom
		f.at(sim.Nanosecond+sim.Time(k-1)*ser4000, 0, 0, f.data(0, 4000, 0, 1, 1))
	}
	f.run(25 * sim.Microsecond)
	last := 0
	for _, r := range tb.Col(t, "departure") {
		last = max(last, int(doctest.Last(t, tb, r)))
	}
	f.afterSw = func(_ int, ev sim.Event) {
		if ev.Kind == KindTxDone && ev.Port == 1 {
			st := sw.Port(0, 0)
			seen = append(seen, state{st.IngOcc, st.Hdrm, pt0.resumeTx[0]})
		}
	}
	f.at(25*sim.Microsecond, 0, 1, f.pfc(0, 0)) // resume port 1: the egress drains
	f.run(25*sim.Microsecond + sim.Time(last)*ser4000 + 10*sim.Nanosecond)
	f.afterSw = nil
	if len(seen) < last {
		t.Fatalf("%d departures, the table needs %d", len(seen), last)
	}
	for _, row := range tb.Rows {
		key := row[0]
		ns := doctest.Numbers(key)
		from, to := int(ns[0]), int(ns[len(ns)-1])
		end, before := seen[to-1], state{}
		if from > 1 {
			before = seen[from-2]
		}
		if want := int64(doctest.Last(t, tb, tb.Cell(t, key, "hdrm"))); end.hdrm != want {
			t.Errorf("%s: departure %s: hdrm %d in the docs, the model holds %d", tb.Where(), key, want, end.hdrm)
		}
		if want := int64(doctest.Last(t, tb, tb.Cell(t, key, "ingOcc"))); end.occ != want {
			t.Errorf("%s: departure %s: ingOcc %d in the docs, the model holds %d", tb.Where(), key, want, end.occ)
		}
		result := tb.Cell(t, key, "result")
		if resumed := end.resumes > before.resumes; strings.Contains(result, "resume sent") != resumed {
			t.Errorf("%s: departure %s: %q, but the model sent a resume: %v", tb.Where(), key, result, resumed)
		}
	}
	tb.AllChecked(t)
}
