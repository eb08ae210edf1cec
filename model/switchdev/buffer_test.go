package switchdev

import (
	"math"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestInitBufferWorkedNumbers reproduces switch.md §12.1, §12.2, §12.5 and §12.7
// (128 connected ports, defaults unless stated).
func TestInitBufferWorkedNumbers(t *testing.T) {
	type want struct {
		sizing              int64
		pool, nominal       [3]int64
		form                string
		limit, static, retx [2]int64
		ecnMin, ecnMax      [2]float64
		fits                [2]bool // LosslessFits(p, 4000)
	}
	cases := []struct {
		name string
		mod  func(*config.Switch)
		want want
	}{
		{"§12.1/§12.2 defaults, α=1", func(*config.Switch) {}, want{
			sizing: 223_232_000, pool: [3]int64{200_908_800, 22_323_200}, nominal: [3]int64{200_908_800, 22_323_200},
			form: LimitDynamic, static: [2]int64{200_908_800, 22_323_200},
			ecnMin: [2]float64{40_181_760, 4_464_640}, ecnMax: [2]float64{160_727_040, 17_858_560},
			fits: [2]bool{true, false},
		}},
		{"§12.2 even split", func(s *config.Switch) { s.SharedBufferManager.LossyAlpha = 0 }, want{
			sizing: 223_232_000, pool: [3]int64{200_908_800, 22_323_200}, nominal: [3]int64{200_908_800, 22_323_200},
			form: LimitEvenSplit, limit: [2]int64{1_569_600, 174_400}, static: [2]int64{1_569_600, 174_400},
			ecnMin: [2]float64{313_920, 34_880}, ecnMax: [2]float64{1_255_680, 139_520},
			fits: [2]bool{true, false},
		}},
		{"§12.2 fixed cap", func(s *config.Switch) {
			s.SharedBufferManager.LossyAlpha = 0
			s.SharedBufferManager.QueueDropThresholdEnable = true
		}, want{
			sizing: 223_232_000, pool: [3]int64{200_908_800, 22_323_200}, nominal: [3]int64{200_908_800, 22_323_200},
			form: LimitFixedCap, limit: [2]int64{1_500_000, 1_500_000}, static: [2]int64{1_500_000, 1_500_000},
			ecnMin: [2]float64{300_000, 300_000}, ecnMax: [2]float64{1_200_000, 1_200_000},
			fits: [2]bool{true, false},
		}},
		{"§12.5 fix (a) [0.59, 0.41]", func(s *config.Switch) {
			s.SharedBufferManager.PoolAllocationMap = config.Vec8{0.59, 0.41}
		}, want{
			sizing: 223_232_000, pool: [3]int64{131_706_880, 91_525_120}, nominal: [3]int64{131_706_880, 91_525_120},
			form: LimitDynamic, static: [2]int64{131_706_880, 91_525_120},
			ecnMin: [2]float64{0.2 * 131_706_880, 0.2 * 91_525_120}, ecnMax: [2]float64{0.8 * 131_706_880, 0.8 * 91_525_120},
			fits: [2]bool{true, true},
		}},
		{"§12.5 fix (b) Xoff 170,400", func(s *config.Switch) {
			s.SharedBufferManager.StaticPoolXoffThreshold = 170_400
			s.SharedBufferManager.StaticPoolXonThreshold = 100_000
		}, want{
			sizing: 223_232_000, pool: [3]int64{200_908_800, 22_323_200}, nominal: [3]int64{200_908_800, 22_323_200},
			form: LimitDynamic, static: [2]int64{200_908_800, 22_323_200},
			ecnMin: [2]float64{40_181_760, 4_464_640}, ecnMax: [2]float64{160_727_040, 17_858_560},
			fits: [2]bool{true, true},
		}},
		{"§12.7 unbalanced [0.5, 0.3]", func(s *config.Switch) {
			s.SharedBufferManager.PoolAllocationMap = config.Vec8{0.5, 0.3}
		}, want{
			// DC-4: the ECN band comes from the corrected pool 1 (111,616,000 B), not the
			// map's 0.3 × 223,232,000 = 66,969,600 B (switch seed, Stage 2 then Stage 4).
			sizing: 223_232_000, pool: [3]int64{111_616_000, 111_616_000}, nominal: [3]int64{111_616_000, 66_969_600},
			form: LimitDynamic, static: [2]int64{111_616_000, 111_616_000},
			ecnMin: [2]float64{22_323_200, 22_323_200}, ecnMax: [2]float64{89_292_800, 89_292_800},
			fits: [2]bool{true, true},
		}},
		{"§12.7 unbalanced [0.5, 0.3], even split", func(s *config.Switch) {
			s.SharedBufferManager.PoolAllocationMap = config.Vec8{0.5, 0.3}
			s.SharedBufferManager.LossyAlpha = 0
		}, want{
			// 111,616,000 / 128 = 872,000 per port for both pools: 128 × 872,000 is
			// exactly each pool ("Exactly each pool"); the nominal would give 523,200.
			sizing: 223_232_000, pool: [3]int64{111_616_000, 111_616_000}, nominal: [3]int64{111_616_000, 66_969_600},
			form: LimitEvenSplit, limit: [2]int64{872_000, 872_000}, static: [2]int64{872_000, 872_000},
			ecnMin: [2]float64{174_400, 174_400}, ecnMax: [2]float64{697_600, 697_600},
			fits: [2]bool{true, true},
		}},
		{"§12.7 over-allocated [0.9, 0.2]", func(s *config.Switch) {
			s.SharedBufferManager.PoolAllocationMap = config.Vec8{0.9, 0.2}
		}, want{
			// The 0.1 excess comes off pool 1 (44,646,400 → 22,323,200 B) and its ECN band
			// follows the corrected size.
			sizing: 223_232_000, pool: [3]int64{200_908_800, 22_323_200}, nominal: [3]int64{200_908_800, 44_646_400},
			form: LimitDynamic, static: [2]int64{200_908_800, 22_323_200},
			ecnMin: [2]float64{40_181_760, 4_464_640}, ecnMax: [2]float64{160_727_040, 17_858_560},
			fits: [2]bool{true, false},
		}},
		{"§12.7 over-allocated [0.9, 0.2], even split", func(s *config.Switch) {
			s.SharedBufferManager.PoolAllocationMap = config.Vec8{0.9, 0.2}
			s.SharedBufferManager.LossyAlpha = 0
		}, want{
			// 22,323,200 / 128 = 174,400, as at the default map; the nominal would give 348,800
			// per port, 128 × 348,800 = 44,646,400 B: twice the pool.
			sizing: 223_232_000, pool: [3]int64{200_908_800, 22_323_200}, nominal: [3]int64{200_908_800, 44_646_400},
			form: LimitEvenSplit, limit: [2]int64{1_569_600, 174_400}, static: [2]int64{1_569_600, 174_400},
			ecnMin: [2]float64{313_920, 34_880}, ecnMax: [2]float64{1_255_680, 139_520},
			fits: [2]bool{true, false},
		}},
		{"§12.7 UET, trimming off", func(s *config.Switch) {
			s.SharedBufferManager.UETPolicyEnabled = true
		}, want{
			sizing: 223_232_000, pool: [3]int64{95_670_857, 63_780_571, 63_780_572}, nominal: [3]int64{95_670_857, 63_780_571, 63_780_571},
			form: LimitFixedCap, limit: [2]int64{1_500_000, 1_500_000}, static: [2]int64{1_500_000, 1_500_000},
			retx:   [2]int64{2_250_000, 2_250_000},
			ecnMin: [2]float64{300_000, 300_000}, ecnMax: [2]float64{1_200_000, 1_200_000},
			fits: [2]bool{true, false},
		}},
		{"§12.7 UET, trimming on", func(s *config.Switch) {
			s.SharedBufferManager.UETPolicyEnabled = true
			s.SharedBufferManager.EnablePFC = config.Vec8{}
			s.PacketTrimmer.TrimmingEnabled = true
		}, want{
			sizing: 223_232_000, pool: [3]int64{95_670_857, 63_780_571, 63_780_572}, nominal: [3]int64{95_670_857, 63_780_571, 63_780_571},
			form: LimitFixedCap, limit: [2]int64{300_000, 300_000}, static: [2]int64{300_000, 300_000},
			retx:   [2]int64{450_000, 450_000},
			ecnMin: [2]float64{60_000, 60_000}, ecnMax: [2]float64{240_000, 240_000},
			fits: [2]bool{true, false},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sw := config.DefaultSwitch()
			c.mod(&sw)
			b, err := InitBuffer(&sw, 128)
			if err != nil {
				t.Fatal(err)
			}
			w := c.want
			if b.HeadroomPerPort != 256_000 || b.HeadroomTotal != 32_768_000 || b.SizingTotal != w.sizing {
				t.Errorf("headroom %d × 128 = %d, sizing %d; want 256000, 32768000, %d", b.HeadroomPerPort, b.HeadroomTotal, b.SizingTotal, w.sizing)
			}
			var sum int64
			for p := 0; p < 8; p++ {
				sum += b.PoolSize[p]
			}
			if sum != b.SizingTotal {
				t.Errorf("Σ poolSize = %d, want sizing total %d", sum, b.SizingTotal)
			}
			for p := 0; p < 3; p++ {
				if b.PoolSize[p] != w.pool[p] || b.PoolNominal[p] != w.nominal[p] {
					t.Errorf("pool %d: size %d nominal %d, want %d %d", p, b.PoolSize[p], b.PoolNominal[p], w.pool[p], w.nominal[p])
				}
			}
			if b.LimitForm != w.form {
				t.Errorf("form %q, want %q", b.LimitForm, w.form)
			}
			for p := 0; p < 2; p++ {
				if b.PerPortLimit[p] != w.limit[p] || b.StaticLimit[p] != w.static[p] || b.RetxLimit[p] != w.retx[p] {
					t.Errorf("pool %d: limit %d static %d retx %d, want %d %d %d", p, b.PerPortLimit[p], b.StaticLimit[p], b.RetxLimit[p], w.limit[p], w.static[p], w.retx[p])
				}
				if !approx(b.EcnMin[p], w.ecnMin[p]) || !approx(b.EcnMax[p], w.ecnMax[p]) {
					t.Errorf("pool %d ECN band %.1f – %.1f, want %.1f – %.1f", p, b.EcnMin[p], b.EcnMax[p], w.ecnMin[p], w.ecnMax[p])
				}
				if got := b.LosslessFits(p, 4000); got != w.fits[p] {
					t.Errorf("pool %d LosslessFits = %v, want %v (Xoff %d)", p, got, w.fits[p], b.Xoff)
				}
			}
		})
	}
}

func TestInitBufferClasses(t *testing.T) {
	sw := config.DefaultSwitch()
	b, err := InitBuffer(&sw, 128)
	if err != nil {
		t.Fatal(err)
	}
	// §12.1: pool 0 {TC0} shared with lossy TC2–TC7; pool 1 {TC1} alone.
	if b.Group[0] != 1<<0 || b.Group[1] != 1<<1 {
		t.Errorf("groups %08b %08b, want 00000001 00000010", b.Group[0], b.Group[1])
	}
	if b.Xoff != 700_000 || b.Xon != 300_000 || b.Xoff-b.Xon != 400_000 {
		t.Errorf("Xoff/Xon %d/%d, want 700000/300000", b.Xoff, b.Xon)
	}
	if !b.PoolHasLossy(0) || b.PoolHasLossy(1) {
		t.Errorf("PoolHasLossy(0,1) = %v,%v; want true,false (§12.5 condition 3)", b.PoolHasLossy(0), b.PoolHasLossy(1))
	}
	// Fewer connected ports → larger pools (§4.1).
	b64, _ := InitBuffer(&sw, 64)
	if b64.SizingTotal != 256_000_000-64*256_000 {
		t.Errorf("64 ports: sizing %d", b64.SizingTotal)
	}
	// UET classes: TC n → pool n.
	sw.SharedBufferManager.UETPolicyEnabled = true
	u, _ := InitBuffer(&sw, 128)
	if u.PoolOfTC[0] != 0 || u.PoolOfTC[1] != 1 || u.PoolOfTC[2] != 2 {
		t.Errorf("UET PoolOfTC %v", u.PoolOfTC)
	}
}

func TestInitBufferErrors(t *testing.T) {
	sw := config.DefaultSwitch()
	if _, err := InitBuffer(&sw, 1000); err != nil {
		t.Errorf("1000 × 256,000 = 256,000,000 equals the buffer and is allowed: %v", err)
	}
	_, err := InitBuffer(&sw, 1001)
	if err == nil || !strings.Contains(err.Error(), "HeadRoomPerPortLimit") {
		t.Errorf("1001 ports: err %v, want headroom error", err)
	}
	sw.SharedBufferManager.PoolAllocationMap = config.Vec8{}
	if _, err := InitBuffer(&sw, 128); err == nil || !strings.Contains(err.Error(), "PoolAllocationMap") {
		t.Errorf("all-zero map: err %v, want pool error", err)
	}
}

// TestFrameParamsMatchBuffer: the per-frame copy of the buffer parameters holds what
// InitBuffer computed, for every class and pool, under the default and the UET policy.
func TestFrameParamsMatchBuffer(t *testing.T) {
	for _, uet := range []bool{false, true} {
		cfg := config.DefaultSwitch()
		cfg.SharedBufferManager.UETPolicyEnabled = uet
		b, err := InitBuffer(&cfg, 16)
		if err != nil {
			t.Fatal(err)
		}
		limit, err := parseLimitForm(b.LimitForm)
		if err != nil {
			t.Fatal(err)
		}
		fp := newFrameParams(&b, limit)
		if fp.limit != limit || fp.xoff != b.Xoff || fp.xon != b.Xon || fp.hdrmPerPort != b.HeadroomPerPort || fp.alpha != b.Alpha {
			t.Errorf("uet=%v: thresholds %+v, buffer %+v", uet, fp, b)
		}
		for i := 0; i < 8; i++ {
			got := fp.pool[i]
			if int(fp.poolOfTC[i]) != b.PoolOfTC[i] || fp.lossless[i] != b.LosslessTC[i] || got.size != b.PoolSize[i] ||
				got.perPortLimit != b.PerPortLimit[i] || got.ecnMin != b.EcnMin[i] || got.ecnMax != b.EcnMax[i] {
				t.Errorf("uet=%v, index %d: %+v, tc->pool %d lossless %v; buffer pool %d size %d limit %d ecn %v..%v",
					uet, i, got, fp.poolOfTC[i], fp.lossless[i], b.PoolOfTC[i], b.PoolSize[i], b.PerPortLimit[i], b.EcnMin[i], b.EcnMax[i])
			}
		}
	}
}
