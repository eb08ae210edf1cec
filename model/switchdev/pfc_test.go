package switchdev

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

const (
	rate400 = 400e9
	delay   = 500 * sim.Nanosecond
	ser4000 = 80_360 * sim.Picosecond // §12.7: 4,018 B on the wire at 400 Gbps
)

func TestSerialization4000(t *testing.T) {
	if got := sim.SerializationCeil(4018, rate400); got != ser4000 {
		t.Fatalf("serialization of 4,018 B at 400 Gbps = %v, want 80,360 ps", got)
	}
}

// TestPortWalkthrough reproduces switch.md §12.3 and §12.4 packet by packet: 4,000 B TC0
// packets into port 0, egress port 1 blocked by a received pause, then drained.
func TestPortWalkthrough(t *testing.T) {
	cases := []struct {
		name     string
		xon      config.Bytes
		resumeAt int   // departure that sends the resume
		ingAtRes int64 // ingOcc right after it
	}{
		{"Xon 300KB", 300_000, 165, 300_000},
		{"Xon = Xoff", 700_000, 65, 700_000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.DefaultSwitch()
			cfg.SharedBufferManager.StaticPoolXonThreshold = c.xon
			f := newFab(t)
			sw := f.addSwitch(&cfg, 7, 2, rate400, delay, routeAll(1))
			pt0 := &sw.ports[0]

			// Block TC0 on port 1: the peer pauses it (84.38 us > the whole burst).
			f.at(0, 0, 1, f.pfc(0, pkt.PauseQuanta))
			for k := 1; k <= 241; k++ {
				k := k
				f.do(sim.Nanosecond+sim.Time(k-1)*ser4000, func() {
					sw.Receive(0, f.data(0, 4000, 0, 1, 1))
					st := sw.Port(0, 0)
					var wantOcc, wantHdrm int64
					wantPause, wantDrops := int64(0), int64(0)
					switch {
					case k <= 176:
						wantOcc = int64(4000 * k)
						if k == 176 {
							wantPause = 1
						}
					case k <= 240:
						wantOcc, wantHdrm, wantPause = 704_000, int64(4000*(k-176)), 1
					default:
						wantOcc, wantHdrm, wantPause, wantDrops = 704_000, 256_000, 1, 1
					}
					if st.IngOcc != wantOcc || st.Hdrm != wantHdrm || pt0.pauseTx[0] != wantPause || pt0.rxDrops != wantDrops {
						t.Fatalf("arrival %d: ingOcc %d hdrm %d pauses %d rxDrops %d; want %d %d %d %d",
							k, st.IngOcc, st.Hdrm, pt0.pauseTx[0], pt0.rxDrops, wantOcc, wantHdrm, wantPause, wantDrops)
					}
				})
			}
			f.run(25 * sim.Microsecond)
			f.checkConservation()
			if sw.Port(1, 0).EgQ != 240*4000 {
				t.Fatalf("egress queue %d, want 960,000", sw.Port(1, 0).EgQ)
			}

			// §12.4: drain by resuming port 1; check each departure.
			dep := 0
			f.afterSw = func(_ int, ev sim.Event) {
				if ev.Kind != KindTxDone || ev.Port != 1 {
					return
				}
				dep++
				st := sw.Port(0, 0)
				var wantOcc, wantHdrm int64
				wantXoff := true
				switch {
				case dep <= 64:
					wantOcc, wantHdrm = 704_000, int64(256_000-4000*dep)
				default:
					wantOcc = int64(704_000 - 4000*(dep-64))
				}
				if dep >= c.resumeAt {
					wantXoff = false
				}
				wantResumes := int64(0)
				if dep >= c.resumeAt {
					wantResumes = 1
				}
				if st.IngOcc != wantOcc || st.Hdrm != wantHdrm || st.Xoff != wantXoff || pt0.resumeTx[0] != wantResumes {
					t.Fatalf("departure %d: ingOcc %d hdrm %d xoff %v resumes %d; want %d %d %v %d",
						dep, st.IngOcc, st.Hdrm, st.Xoff, pt0.resumeTx[0], wantOcc, wantHdrm, wantXoff, wantResumes)
				}
				if dep == c.resumeAt && st.IngOcc != c.ingAtRes {
					t.Fatalf("resume at ingOcc %d, want %d", st.IngOcc, c.ingAtRes)
				}
			}
			f.at(25*sim.Microsecond, 0, 1, f.pfc(0, 0))
			f.run(sim.Time(25*sim.Microsecond) + sim.Time(c.resumeAt)*ser4000 + 10*sim.Nanosecond)
			if dep != c.resumeAt {
				t.Fatalf("%d departures, want %d", dep, c.resumeAt)
			}
			f.checkConservation()
			// Xon = Xoff: the next arrival pauses the port again (flapping, §12.4).
			if c.xon == 700_000 {
				sw.Receive(0, f.data(0, 4000, 0, 1, 1))
				if pt0.pauseTx[0] != 2 || !sw.Port(0, 0).Xoff {
					t.Fatalf("next arrival: pauses %d xoff %v, want 2 true", pt0.pauseTx[0], sw.Port(0, 0).Xoff)
				}
			}
			f.afterSw = nil
			f.run(sim.Never)
			f.checkConservation()
			// Frames back to the sender on port 0's link: pause(s) then resume, TC0.
			var seq []uint16
			for _, d := range f.got {
				if d.link == 0 {
					if d.typ != pkt.Pfc || d.tc != 0 {
						t.Fatalf("port 0 sent %v tc %d, want only TC0 PFC", d.typ, d.tc)
					}
					seq = append(seq, d.q)
				}
			}
			if len(seq) < 2 || seq[0] != pkt.PauseQuanta || seq[1] != 0 {
				t.Fatalf("PFC frames toward the sender: quanta %v, want pause then resume", seq)
			}
			c := sw.Counters()
			if c.DropsLossless != 1 || c.DropsLossy != 0 {
				t.Fatalf("drops lossless %d lossy %d, want 1 0", c.DropsLossless, c.DropsLossy)
			}
		})
	}
}

// TestPauseRefreshTiming: at 400 Gbps / 500 ns the pause time is 84,384,800 ps and a
// paused port re-sends its pause every 42,192,400 ps (§12.6) until it resumes.
func TestPauseRefreshTiming(t *testing.T) {
	if got := sim.PauseTime(pkt.PauseQuanta, rate400, delay); got != 84_384_800 {
		t.Fatalf("pause time %d ps, want 84,384,800", got)
	}
	cfg := config.DefaultSwitch()
	f := newFab(t)
	sw := f.addSwitch(&cfg, 7, 2, rate400, delay, routeAll(1))
	// Keep port 1 blocked: the peer re-pauses TC0 every 80 us.
	for k := 0; k < 4; k++ {
		f.at(sim.Time(k)*80*sim.Microsecond, 0, 1, f.pfc(0, pkt.PauseQuanta))
	}
	for k := 0; k < 176; k++ {
		f.at(sim.Nanosecond+sim.Time(k)*ser4000, 0, 0, f.data(0, 4000, 0, 1, 1))
	}
	f.run(200 * sim.Microsecond)
	var times []sim.Time
	for _, d := range f.got {
		if d.link == 0 && d.typ == pkt.Pfc && d.q == pkt.PauseQuanta {
			times = append(times, d.at)
		}
	}
	// First pause: enqueued on arrival 176, serialised (84 B = 1,680 ps), then 500 ns.
	first := sim.Nanosecond + 175*ser4000 + 1_680 + delay
	if len(times) < 4 || times[0] != first {
		t.Fatalf("pause deliveries %v, want first at %v and ≥ 4", times, first)
	}
	for k := 1; k < len(times); k++ {
		if d := times[k] - times[k-1]; d != 42_192_400 {
			t.Fatalf("refresh %d after %d ps, want 42,192,400", k, d)
		}
	}
	if got := sw.ports[0].pauseTx[0]; got != int64(len(times)) {
		t.Fatalf("pauseTx %d, delivered %d", got, len(times))
	}
	f.checkConservation()
}

// TestReceivedPause: a received pause holds its class for pauseTime(q) (refreshed by a
// new pause, ended early by quanta 0) while other classes keep sending.
func TestReceivedPause(t *testing.T) {
	const pt = 84_384_800
	cases := []struct {
		name      string
		extra     []sim.Time // further pause frames
		resumeAt  sim.Time   // 0: none
		wantStart sim.Time   // first TC0 transmit start
	}{
		{"expiry", nil, 0, pt},
		{"refreshed", []sim.Time{50 * sim.Microsecond}, 0, 50*sim.Microsecond + pt},
		{"resumed", nil, 30 * sim.Microsecond, 30 * sim.Microsecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.DefaultSwitch()
			f := newFab(t)
			sw := f.addSwitch(&cfg, 7, 2, rate400, delay, routeAll(1))
			f.at(0, 0, 1, f.pfc(0, pkt.PauseQuanta))
			for _, at := range c.extra {
				f.at(at, 0, 1, f.pfc(0, pkt.PauseQuanta))
			}
			if c.resumeAt > 0 {
				f.at(c.resumeAt, 0, 1, f.pfc(0, 0))
			}
			// 10 TC0 then 10 TC1 packets arrive on port 0 for port 1.
			for k := 0; k < 20; k++ {
				tc := 0
				if k >= 10 {
					tc = 1
				}
				f.at(sim.Nanosecond+sim.Time(k)*ser4000, 0, 0, f.data(tc, 4000, 0, 1, 1))
			}
			f.run(sim.Never)
			f.checkConservation()
			var tc0, tc1 []sim.Time
			for _, d := range f.got {
				if d.link == 1 && d.typ == pkt.Data {
					if d.tc == 0 {
						tc0 = append(tc0, d.at)
					} else {
						tc1 = append(tc1, d.at)
					}
				}
			}
			if len(tc0) != 10 || len(tc1) != 10 {
				t.Fatalf("delivered TC0 %d TC1 %d, want 10 10", len(tc0), len(tc1))
			}
			if want := c.wantStart + ser4000 + delay; tc0[0] != want {
				t.Fatalf("first TC0 delivered at %v, want %v", tc0[0], want)
			}
			if tc1[9] >= c.wantStart {
				t.Fatalf("TC1 finished at %v, not before the TC0 pause ended (%v)", tc1[9], c.wantStart)
			}
			if got := sw.Counters().PfcPausedTime; got != c.wantStart {
				t.Fatalf("paused time %v, want %v", got, c.wantStart)
			}
		})
	}
}
