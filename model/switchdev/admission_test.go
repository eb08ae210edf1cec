package switchdev

import (
	"math"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// routeByDst sends host k to port k.
func routeByDst(n int) func(int32) []int16 {
	r := make([][]int16, n)
	for k := range r {
		r[k] = []int16{int16(k)}
	}
	return func(d int32) []int16 { return r[d] }
}

// fillBlocked builds an n-port switch, pauses class tc on the egress ports, and lets fill
// inject packets at t = 1 ns (all at once). It then releases the pauses and drains, so
// the test ends with the conservation check on an empty switch.
func fillBlocked(t *testing.T, cfg *config.Switch, n int, tc int, egress []int16, fill func(f *fab, sw *Switch)) (*fab, *Switch) {
	f := newFab(t)
	sw := f.addSwitch(cfg, 9, n, rate400, delay, routeByDst(n))
	for _, e := range egress {
		f.at(0, 0, e, f.pfc(tc, pkt.PauseQuanta))
	}
	f.do(sim.Nanosecond, func() { fill(f, sw); f.checkConservation() })
	f.run(2 * sim.Nanosecond)
	return f, sw
}

func drain(t *testing.T, f *fab, tc int, egress []int16) {
	now := f.eng.Now()
	for _, e := range egress {
		f.at(now, 0, e, f.pfc(tc, 0))
	}
	f.run(sim.Never)
	f.checkConservation()
	for _, sw := range f.sws {
		if c := sw.Counters(); c.BufferedBytes != 0 {
			t.Fatalf("after drain %d B still buffered", c.BufferedBytes)
		}
	}
}

// TestLossyLevelling: one busy lossy queue under dynamic limits levels off within 2% of
// α/(1+α) × pool (§4.4, §12.2); N equal queues each near α·pool/(1+αN).
func TestLossyLevelling(t *testing.T) {
	cases := []struct {
		alpha  float64
		queues int
		exact  int64 // §12.2 derived stop point, 0 = not given
	}{
		{0.25, 1, 0}, {1, 1, 100_456_000}, {4, 1, 0}, {0.5, 1, 0}, {1, 4, 0}, {0.25, 4, 0},
	}
	for _, c := range cases {
		cfg := config.DefaultSwitch()
		cfg.SharedBufferManager.LossyAlpha = c.alpha
		var egress []int16
		for k := 1; k <= c.queues; k++ {
			egress = append(egress, int16(k))
		}
		f, sw := fillBlocked(t, &cfg, 128, 2, egress, func(f *fab, sw *Switch) {
			// Round-robin TC2 (lossy, pool 0) packets from port 0 until every queue has
			// seen 20 drops.
			drops := 0
			for drops < 20*c.queues {
				for _, e := range egress {
					before := sw.c.TxDrops
					sw.Receive(0, f.data(2, 4000, 0, int32(e), 1))
					if sw.c.TxDrops > before {
						drops++
					}
				}
			}
		})
		pool := float64(sw.buf.PoolSize[0])
		want := c.alpha * pool / (1 + c.alpha*float64(c.queues))
		for _, e := range egress {
			got := sw.Port(int(e), 0).EgQ
			if math.Abs(float64(got)-want) > 0.02*want {
				t.Errorf("α %g, %d queues: port %d levelled at %d B, want %.0f ± 2%%", c.alpha, c.queues, e, got, want)
			}
			if c.exact != 0 && got != c.exact {
				t.Errorf("α %g: single queue stopped at %d B, want %d (§12.2)", c.alpha, got, c.exact)
			}
		}
		if sw.c.DropsLossy == 0 || sw.c.DropsLossless != 0 || sw.c.RxDrops != 0 {
			t.Errorf("α %g: drops lossy %d lossless %d rx %d", c.alpha, sw.c.DropsLossy, sw.c.DropsLossless, sw.c.RxDrops)
		}
		drain(t, f, 2, egress)
	}
}

// TestFixedEgressLimits: even split and fixed cap hold their per-port limits exactly
// (a packet landing exactly on the limit is admitted, §5.3), independently per port.
func TestFixedEgressLimits(t *testing.T) {
	cases := []struct {
		name  string
		qdte  bool
		size  int32
		limit int64
	}{
		{"even split", false, 3924, 1_569_600}, // 200,908,800 / 128 = 400 × 3,924
		{"fixed cap", true, 4000, 1_500_000},   // 5 × 300,000 = 375 × 4,000
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.DefaultSwitch()
			cfg.SharedBufferManager.LossyAlpha = 0
			cfg.SharedBufferManager.QueueDropThresholdEnable = c.qdte
			egress := []int16{1, 2}
			n := c.limit / int64(c.size)
			f, sw := fillBlocked(t, &cfg, 128, 3, egress, func(f *fab, sw *Switch) {
				for _, e := range egress {
					for k := int64(1); k <= n+5; k++ {
						sw.Receive(0, f.data(3, c.size, 0, int32(e), 1))
						q := sw.Port(int(e), 0).EgQ
						if k <= n && q != k*int64(c.size) || k > n && q != c.limit {
							t.Fatalf("port %d packet %d: egQ %d", e, k, q)
						}
					}
				}
			})
			for _, e := range egress {
				if got := sw.ports[e].txDrops; got != 5 {
					t.Errorf("port %d: %d tx drops, want 5", e, got)
				}
			}
			drain(t, f, 3, egress)
		})
	}
}

// TestPoolOverflowLossless: with the default pool 1 on 128 ports, > 31 ports sending TC1
// into a blocked egress overflow pool 1 and lose lossless packets at ingress (§12.5);
// 31 do not; with the three sizing conditions met, 127 senders lose nothing.
func TestPoolOverflowLossless(t *testing.T) {
	cases := []struct {
		name      string
		senders   int
		pool1     float64 // 0: default map
		wantDrops bool
	}{
		{"31 senders, default pool 1", 31, 0, false},
		{"32 senders, default pool 1", 32, 0, true},
		{"40 senders, default pool 1", 40, 0, true},
		{"127 senders, sized [0.59, 0.41]", 127, 0.41, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.DefaultSwitch()
			if c.pool1 > 0 {
				cfg.SharedBufferManager.PoolAllocationMap = config.Vec8{1 - c.pool1, c.pool1}
			}
			b, _ := InitBuffer(&cfg, 128)
			if fits := b.LosslessFits(1, 4000) && !b.PoolHasLossy(1); fits == c.wantDrops && c.senders > 31 {
				t.Fatalf("sizing conditions say fits=%v", fits)
			}
			egress := []int16{127}
			f, sw := fillBlocked(t, &cfg, 128, 1, egress, func(f *fab, sw *Switch) {
				// Each sender delivers 240 packets: 176 up to the pause + 64 in flight
				// (what 256,000 B of headroom absorbs, condition 1).
				for k := 0; k < 240; k++ {
					for s := 0; s < c.senders; s++ {
						sw.Receive(int16(s), f.data(1, 4000, int32(s), 127, 1))
					}
				}
			})
			cn := sw.Counters()
			if (cn.DropsLossless > 0) != c.wantDrops || cn.DropsLossy != 0 {
				t.Fatalf("lossless drops %d lossy %d, want drops=%v", cn.DropsLossless, cn.DropsLossy, c.wantDrops)
			}
			if c.wantDrops {
				// Pool overflow, not headroom: the pool is full and no headroom is full.
				ing, _ := sw.PoolTotals(1)
				if ing+4000 <= sw.buf.PoolSize[1] {
					t.Fatalf("drops with pool 1 at %d of %d", ing, sw.buf.PoolSize[1])
				}
				for s := 0; s < c.senders; s++ {
					if sw.Port(s, 1).Hdrm > 256_000 {
						t.Fatalf("port %d headroom %d", s, sw.Port(s, 1).Hdrm)
					}
				}
			}
			// Without drops every sender ended paused (its sender stays paused instead).
			if got := sw.c.PfcPauseTx; !c.wantDrops && got != int64(c.senders) {
				t.Fatalf("%d pauses sent, want one per sender (%d)", got, c.senders)
			}
			drain(t, f, 1, egress)
		})
	}
}

// TestECNMarking: with the ECN average held between the thresholds the marked fraction
// follows MaxMarkProbability × (avg − minB)/(maxB − minB) (§9); nothing is marked when
// ECN is off or packets are Not-ECT; everything at/above maxB.
func TestECNMarking(t *testing.T) {
	cases := []struct {
		name    string
		avg     int64 // queue (= average, EwmaWeight 1) when draining starts
		maxProb float64
		enable  bool
		ecn     uint8
	}{
		{"p=0.3", 5_700_000, 1, true, pkt.ECT0},
		{"p=0.25 via MaxMarkProbability", 7_500_000, 0.5, true, pkt.ECT1},
		{"p=0.7", 9_300_000, 1, true, pkt.ECT0},
		{"at maxB", 12_000_000, 1, true, pkt.ECT0},
		{"below minB", 2_999_000, 1, true, pkt.ECT0},
		{"disabled", 7_500_000, 1, false, pkt.ECT0},
		{"Not-ECT", 7_500_000, 1, true, pkt.NotECT},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := config.DefaultSwitch()
			// Fixed cap S = 50 × 300,000 = 15 MB: band 3,000,000 – 12,000,000 B.
			cfg.SharedBufferManager.LossyAlpha = 0
			cfg.SharedBufferManager.QueueDropThresholdEnable = true
			cfg.SharedBufferManager.QueueDropThreshold = 50
			cfg.EcnHandler.EwmaWeight = 1
			cfg.EcnHandler.MaxMarkProbability = c.maxProb
			cfg.EcnHandler.EnableEcn = c.enable
			n := int(c.avg / 1000)
			f, sw := fillBlocked(t, &cfg, 2, 2, []int16{1}, func(f *fab, sw *Switch) {
				for k := 0; k < n; k++ {
					h := f.data(2, 1000, 0, 1, uint16(k))
					f.pool.Get(h).ECN = c.ecn
					sw.Receive(0, h)
				}
			})
			if got := sw.Port(1, 0).AvgQ; got != float64(c.avg) {
				t.Fatalf("average %v, want %d", got, c.avg)
			}
			drain(t, f, 2, []int16{1})
			marked := 0
			for _, d := range f.got {
				if d.link == 1 && d.typ == pkt.Data && d.ecn == pkt.CE {
					marked++
				}
			}
			b := sw.buf
			want := 0.0
			if c.enable && c.ecn != pkt.NotECT {
				switch a := float64(c.avg); {
				case a >= b.EcnMax[0]:
					want = 1
				case a >= b.EcnMin[0]:
					want = c.maxProb * (a - b.EcnMin[0]) / (b.EcnMax[0] - b.EcnMin[0])
				}
			}
			frac := float64(marked) / float64(n)
			tol := 4 * math.Sqrt(want*(1-want)/float64(n))
			if math.Abs(frac-want) > tol {
				t.Fatalf("marked %d of %d = %.4f, want %.4f ± %.4f", marked, n, frac, want, tol)
			}
			if int64(marked) != sw.Counters().EcnMarked || int64(marked) != sw.ports[1].ecnMarks[2] {
				t.Fatalf("counters %d / %d, delivered CE %d", sw.Counters().EcnMarked, sw.ports[1].ecnMarks[2], marked)
			}
		})
	}
}

// TestParseLimitForm checks that New's one-time resolution of Buffer.LimitForm maps each
// §4.4 form name to its own value and names an unknown form in the error.
func TestParseLimitForm(t *testing.T) {
	for _, c := range []struct {
		name string
		want limitForm
	}{
		{LimitEvenSplit, limitEvenSplit},
		{LimitFixedCap, limitFixedCap},
		{LimitDynamic, limitDynamic},
	} {
		got, err := parseLimitForm(c.name)
		if err != nil || got != c.want {
			t.Errorf("parseLimitForm(%q) = %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	_, err := parseLimitForm("dynamc")
	if err == nil || !strings.Contains(err.Error(), `"dynamc"`) {
		t.Errorf("parseLimitForm(\"dynamc\") error = %v, want one naming \"dynamc\"", err)
	}
}
