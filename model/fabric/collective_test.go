package fabric

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/sim"
)

// On an idle non-blocking fabric a ring all-reduce takes the textbook time, 2 (N − 1)/N ×
// size / rate (the bytes on the wire: payload plus 58 B a packet, nic.md §6), plus a
// per-step latency for each of its 2 (N − 1) steps: the step's chunk's ideal FCT minus its
// wire time (generation start, PCIe read, store-and-forward over two cables, the ACK back;
// idealFCT). Each step starts when the previous step's chunk has completed (a dependency on
// the NIC's completion, not a timer), so the model may only differ by the per-hop terms
// the lone-message ideal FCT leaves out: in a ring every host sends one chunk while it
// receives another, and the ACKs of the chunk it receives share its link with the chunk
// it sends. Measured: 35 ns a step for 128 KiB chunks, 73 ns for 2 MiB (0.17 %); the
// bound is one data packet's serialization plus 0.5 % of the step's wire time, per step.
func TestAllreduceTextbookTime(t *testing.T) {
	const rate = 400e9
	for _, tc := range []struct {
		size   int64
		groups int // of 8 hosts: N = 8 / groups
	}{{1 << 20, 1}, {8 << 20, 1}, {1 << 20, 2}, {8 << 20, 2}} {
		n := 8 / tc.groups
		cfg := job(t, "duration", "50ms", "stop", "drain", "topology.hosts", "8", "workload.kind", "allreduce",
			"workload.message_size", sizeText(tc.size), "workload.groups", strconv.Itoa(tc.groups))
		f, res := run(t, cfg)
		if len(res.Rec.Collectives) != tc.groups {
			t.Fatalf("%d collectives rows, want %d", len(res.Rec.Collectives), tc.groups)
		}
		mss := int64(cfg.NIC.RoceQpManager.MSS)
		chunk := tc.size / int64(n)
		pkts := (chunk + mss - 1) / mss
		wire := sim.Time(math.Round(float64(chunk+58*pkts) * 8 / rate * 1e12)) // one step's bytes on the wire
		step := f.idealFCT(f.message(int64(len(f.msgs))))                      // a step alone
		latency := step - wire
		steps := 2 * (n - 1)
		textbook := float64(steps) / float64(n) * float64(int64(n)*(chunk+58*pkts)) * 8 / rate * 1e6 // µs
		want := textbook + float64(steps)*latency.Micros()
		tol := float64(steps) * (float64(mss+58)*8/rate*1e6 + 0.005*wire.Micros())
		for _, r := range res.Rec.Collectives {
			if r.Ranks != int32(n) || math.Abs(r.CctUsec-want) > tol {
				t.Errorf("N %d, %d B: cct %.3f us, want %.3f (textbook %.3f + %d × %.3f latency) ± %.3f", n, tc.size, r.CctUsec, want, textbook, steps, latency.Micros(), tol)
			}
			if bus := float64(tc.size) * 8 / (r.CctUsec * 1e-6) / 1e9 * 2 * float64(n-1) / float64(n); math.Abs(bus-r.BusbwGbps) > 1e-9*bus {
				t.Errorf("busbw %g, want %g", r.BusbwGbps, bus)
			}
			t.Logf("N %d, %8d B: cct %8.3f us = textbook %8.3f + %2d × %.3f us latency %+.3f us (busbw %.1f Gbps)",
				n, tc.size, r.CctUsec, textbook, steps, latency.Micros(), r.CctUsec-want, r.BusbwGbps)
		}
		if s := res.Summary; s.CctMaxUsec != res.Rec.Collectives[0].CctUsec || s.BusbwGbps != res.Rec.Collectives[0].BusbwGbps {
			t.Errorf("summary %v %v", s.CctMaxUsec, s.BusbwGbps)
		}
	}
}

func sizeText(n int64) string { return strconv.FormatInt(n, 10) + "B" }

// The other kinds, iterations with a gap, rail groups and a mix with a lossy background:
// every message of every step is delivered and the rows say what ran.
func TestCollectiveKinds(t *testing.T) {
	star := []string{"duration", "50ms", "stop", "drain", "topology.hosts", "8", "workload.message_size", "1MiB"}
	t.Run("allgather", func(t *testing.T) {
		f, res := run(t, job(t, append(star, "workload.kind", "allgather")...))
		r := res.Rec.Collectives[0]
		step := f.idealFCT(f.message(int64(len(f.msgs)))).Micros()
		if len(f.dyn) != 8*7 || math.Abs(r.CctUsec-7*step) > 7*0.1 {
			t.Errorf("%d messages, cct %.3f; want 56, 7 × %.3f", len(f.dyn), r.CctUsec, step)
		}
		if want := r.AlgbwGbps * 7 / 8; math.Abs(r.BusbwGbps-want) > 1e-9 {
			t.Errorf("busbw %g, want algbw × 7/8 = %g", r.BusbwGbps, want)
		}
	})
	t.Run("alltoall phases", func(t *testing.T) {
		var ccts []float64
		for _, phases := range []string{"1", "7"} {
			f, res := run(t, job(t, append(star, "workload.kind", "alltoall", "workload.phases", phases)...))
			if len(f.dyn) != 8*7 || f.delivered != 8*7*(1<<20)/8 {
				t.Fatalf("phases %s: %d messages, %d B delivered", phases, len(f.dyn), f.delivered)
			}
			ccts = append(ccts, res.Rec.Collectives[0].CctUsec)
		}
		// 7 phases of one destination each run as 7 barriered steps; one phase sends all
		// seven chunks of a host back to back. The host link is the bottleneck either way,
		// so the barriers add the 6 extra per-step latencies and nothing more.
		if !(ccts[1] > ccts[0]) {
			t.Errorf("alltoall cct with 7 phases %.3f us, 1 phase %.3f us: barriers cost nothing?", ccts[1], ccts[0])
		}
	})
	t.Run("iterations", func(t *testing.T) {
		_, res := run(t, job(t, append(star, "workload.kind", "reducescatter", "workload.iterations", "3", "workload.gap", "10us")...))
		rows := res.Rec.Collectives
		if len(rows) != 3 {
			t.Fatalf("%d rows, want 3", len(rows))
		}
		for i := 1; i < 3; i++ {
			if gap := rows[i].StartSec - rows[i-1].EndSec; math.Abs(gap-10e-6) > 1e-15 || rows[i].Iteration != int32(i) {
				t.Errorf("iteration %d starts %g s after the previous ended, want 10 us", i, gap)
			}
		}
	})
	t.Run("rail groups", func(t *testing.T) {
		f, res := run(t, job(t, "duration", "50ms", "stop", "drain", "topology.kind", "leaf-spine", "topology.leaves", "2",
			"topology.spines", "2", "topology.hosts_per_leaf", "4", "topology.uplinks_per_spine", "1",
			"workload.kind", "allreduce", "workload.group_by", "rail", "workload.message_size", "256KiB"))
		if len(f.runs) != 4 || len(res.Rec.Collectives) != 4 {
			t.Fatalf("%d runs, %d rows; want 4 rails", len(f.runs), len(res.Rec.Collectives))
		}
		for g, r := range f.runs {
			if len(r.Ranks) != 2 || r.Ranks[0] != int32(g) || r.Ranks[1] != int32(g+4) {
				t.Errorf("rail %d: ranks %v, want [%d %d]", g, r.Ranks, g, g+4)
			}
		}
	})
	t.Run("mix with background", func(t *testing.T) {
		f, res := run(t, job(t, append(star, "workload.kind", "mix",
			"workload.mix.0.kind", "allreduce", "workload.mix.0.message_size", "1MiB", "workload.mix.0.iterations", "2",
			"workload.mix.1.kind", "permutation", "workload.mix.1.message_size", "512KiB")...))
		if len(res.Rec.Collectives) != 2 || len(f.msgs) != 8 || res.Summary.MsgsCompleted != 8+2*8*14 {
			t.Errorf("%d collective rows, %d background messages, %d completed", len(res.Rec.Collectives), len(f.msgs), res.Summary.MsgsCompleted)
		}
		if r := res.Rec.Collectives; r[0].CctUsec <= 46.21 || r[1].CctUsec > 46.21 {
			t.Errorf("cct %.3f us beside the permutation (want above the idle 46.2 us), then %.3f alone", r[0].CctUsec, r[1].CctUsec)
		}
	})
}

// Groups that cannot form are refused before anything runs: a rail of a star is one host.
func TestCollectiveGroupsRefused(t *testing.T) {
	for _, sets := range [][]string{
		{"topology.hosts", "8", "workload.kind", "allreduce", "workload.group_by", "rail"},
		{"topology.hosts", "8", "workload.kind", "alltoall", "workload.groups", "3"},
	} {
		cfg := job(t, sets...)
		if err := Validate(&cfg); err == nil || !strings.Contains(err.Error(), "workload.groups") {
			t.Errorf("%v: Validate says %v", sets, err)
		}
	}
	cfg := job(t, "topology.hosts", "8", "workload.kind", "allreduce", "workload.iterations", "3")
	e, err := EstimateJob(&cfg)
	if err != nil || e.Messages != 3*8*14 || e.Bytes != 3*8*14*(1<<20)/8 {
		t.Errorf("estimate %+v, %v; want 336 messages of 128 KiB", e, err)
	}
}

// A collective's steps are messages of its data class: the classes table has a row for
// the class, its counts agree with messages, and the per-kind answers include them
// (records.md §8.1).
//
// A ring all-reduce over 4 hosts of a star sends 4 × 2 (4 − 1) = 24 messages an
// iteration; 2 iterations, drained: 48 posted and completed on TC 0 (lossless, EnablePFC
// [1, 1, 0, ...]). Beside it an incast of 3 senders on lossy TC 2 adds a second class of
// 3 messages, and with the collective on TC 2 too that class holds 48 + 3. jobs counts
// the samples of its per-kind p99s (msgs_completed_lossless / _lossy: 48 / 3, then
// 0 / 51) and the 2 iterations behind cct_p50_usec.
func TestCollectiveClasses(t *testing.T) {
	star := []string{"duration", "10ms", "stop", "drain", "topology.hosts", "4", "workload.kind", "mix",
		"workload.mix.0.kind", "allreduce", "workload.mix.0.message_size", "256KiB", "workload.mix.0.iterations", "2",
		"workload.mix.1.kind", "incast", "workload.mix.1.senders", "3", "workload.mix.1.message_size", "64KB", "workload.mix.1.data_tc", "2",
		// NIC pools for TC 2 (nic.md §11: contiguous from TC 0).
		"nic.IngressBufferManager.PoolAllocationVector", "[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
		"nic.EgressBufferManager.PoolAllocationVector", "[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]"}
	for _, tc := range []struct {
		name      string
		collTC    string
		want      map[int32]int64 // data_tc -> messages posted = completed
		lossyOnly bool
		lossless  int64 // msgs_completed_lossless
		lossy     int64
	}{
		{"collective on TC 0", "0", map[int32]int64{0: 48, 2: 3}, false, 48, 3},
		{"collective on lossy TC 2", "2", map[int32]int64{2: 51}, true, 0, 51},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, res := run(t, job(t, append(star, "workload.mix.0.data_tc", tc.collTC)...))
			rows := map[int32]int64{}
			var fct [2][]float64 // [lossy, lossless]
			for _, m := range res.Rec.Messages {
				rows[m.DataTC]++
				k := 0
				if m.DataTC == 0 {
					k = 1
				}
				fct[k] = append(fct[k], m.FctUsec)
			}
			got := map[int32]int64{}
			for _, c := range res.Rec.Classes {
				if c.MsgsPosted != c.MsgsCompleted || c.MsgsCompleted != rows[c.DataTC] {
					t.Errorf("TC %d: %d posted, %d completed, %d rows of messages", c.DataTC, c.MsgsPosted, c.MsgsCompleted, rows[c.DataTC])
				}
				got[c.DataTC] = c.MsgsCompleted
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("classes %v, want %v", got, tc.want)
			}
			s := res.Summary
			p99 := func(v []float64) float64 {
				if len(v) == 0 {
					return math.NaN()
				}
				v = slices.Clone(v)
				slices.Sort(v)
				return percentile(v, 0.99)
			}
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"fct_p99_usec_lossless", s.FctP99UsecLossless, p99(fct[1])}, {"fct_p99_usec_lossy", s.FctP99UsecLossy, p99(fct[0])}} {
				if c.got != c.want && !(math.IsNaN(c.got) && math.IsNaN(c.want)) {
					t.Errorf("%s %v, want %v from messages", c.name, c.got, c.want)
				}
			}
			if s.MsgsCompletedLossless+s.MsgsCompletedLossy != s.MsgsCompleted {
				t.Errorf("msgs_completed_lossless %d + _lossy %d != msgs_completed %d", s.MsgsCompletedLossless, s.MsgsCompletedLossy, s.MsgsCompleted)
			}
			if s.MsgsCompletedLossless != tc.lossless || s.MsgsCompletedLossy != tc.lossy || s.CctIterations != 2 {
				t.Errorf("msgs_completed_lossless %d, _lossy %d, cct_iterations %d; want %d, %d, 2",
					s.MsgsCompletedLossless, s.MsgsCompletedLossy, s.CctIterations, tc.lossless, tc.lossy)
			}
			if math.IsNaN(s.FctP99UsecLossless) != tc.lossyOnly {
				t.Errorf("fct_p99_usec_lossless %v with the collective on TC %s", s.FctP99UsecLossless, tc.collTC)
			}
		})
	}
}
