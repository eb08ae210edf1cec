package sweep

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
)

// nearestRank is the nearest-rank p-quantile of unsorted values (NaN when empty).
func nearestRank(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	k := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// The classes table agrees with the messages table, and the jobs table's per-kind answers
// with both, for every job of configs/ci.yaml (a lossless incast, a lossy incast and a
// lossy permutation on one receiver; lossy drops and retransmissions at small alphas).
func TestClassesAgreeWithMessages(t *testing.T) {
	data, err := os.ReadFile("../configs/ci.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSpec("ci.yaml", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	sawRtx := false
	for _, j := range p.Jobs {
		res, err := fabric.Run(context.Background(), j.Config, fabric.Options{JobID: j.ID})
		if err != nil {
			t.Fatalf("%s: %v", p.Label(j), err)
		}
		sum, rec := res.Summary, res.Rec
		byTC := map[int32][]stats.Message{}
		for _, m := range rec.Messages {
			byTC[m.DataTC] = append(byTC[m.DataTC], m)
		}
		if got := len(rec.Classes); got != 2 {
			t.Fatalf("%s: %d classes rows, want 2 (data TCs 0 and 2)", p.Label(j), got)
		}
		var bytes, drops, rtx int64
		var kind [2][2][]float64 // [lossless][fct, slowdown]
		for _, c := range rec.Classes {
			ms := byTC[c.DataTC]
			var fct, slow []float64
			var size int64
			for _, m := range ms {
				fct = append(fct, m.FctUsec)
				slow = append(slow, m.Slowdown)
				size += m.SizeBytes
			}
			lossless := j.Config.Switch.SharedBufferManager.EnablePFC[c.DataTC] == 1
			k := 0
			if lossless {
				k = 1
			}
			kind[k][0] = append(kind[k][0], fct...)
			kind[k][1] = append(kind[k][1], slow...)
			zero := func(x float64) float64 {
				if math.IsNaN(x) {
					return 0
				}
				return x
			}
			want := stats.Class{JobID: j.ID, DataTC: c.DataTC, Lossless: lossless,
				MsgsPosted: c.MsgsPosted, MsgsCompleted: int64(len(ms)), BytesDelivered: c.BytesDelivered,
				GoodputGbps: float64(c.BytesDelivered) * 8 / sum.SimTimeSec / 1e9,
				FctP50Usec:  zero(nearestRank(fct, 0.5)), FctP99Usec: zero(nearestRank(fct, 0.99)), FctMaxUsec: zero(nearestRank(fct, 1)),
				SlowdownP50: zero(nearestRank(slow, 0.5)), SlowdownP99: zero(nearestRank(slow, 0.99)),
				Drops: c.Drops, Retransmits: c.Retransmits}
			if c != want {
				t.Errorf("%s TC %d:\n got  %+v\n want %+v", p.Label(j), c.DataTC, c, want)
			}
			if c.MsgsPosted < c.MsgsCompleted || c.BytesDelivered < size {
				t.Errorf("%s TC %d: posted %d < completed %d, or delivered %d B < completed messages' %d B",
					p.Label(j), c.DataTC, c.MsgsPosted, c.MsgsCompleted, c.BytesDelivered, size)
			}
			if !lossless && c.Retransmits > 0 {
				sawRtx = true
			}
			if lossless && c.Drops != 0 && sum.DropsLossless == 0 {
				t.Errorf("%s TC %d: %d drops in a lossless class, but drops_lossless is 0", p.Label(j), c.DataTC, c.Drops)
			}
			bytes += c.BytesDelivered
			drops += c.Drops
			rtx += c.Retransmits
		}
		// The classes add up to the job (control packets of TC 1 are dropped in no class
		// here: the lossless control class never drops in ci.yaml).
		if bytes != sum.BytesDelivered || drops != sum.DropsLossless+sum.DropsLossy || rtx != sum.Retransmits {
			t.Errorf("%s: classes sum to %d B, %d drops, %d retransmits; jobs has %d B, %d drops, %d retransmits",
				p.Label(j), bytes, drops, rtx, sum.BytesDelivered, sum.DropsLossless+sum.DropsLossy, sum.Retransmits)
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"fct_p99_usec_lossless", sum.FctP99UsecLossless, nearestRank(kind[1][0], 0.99)},
			{"fct_p99_usec_lossy", sum.FctP99UsecLossy, nearestRank(kind[0][0], 0.99)},
			{"slowdown_p99_lossless", sum.SlowdownP99Lossless, nearestRank(kind[1][1], 0.99)},
			{"slowdown_p99_lossy", sum.SlowdownP99Lossy, nearestRank(kind[0][1], 0.99)},
		} {
			if !sameFloat(c.got, c.want) || math.IsNaN(c.got) {
				t.Errorf("%s: %s = %v, want %v from messages", p.Label(j), c.name, c.got, c.want)
			}
		}
	}
	if !sawRtx {
		t.Error("no job retransmitted in a lossy class: the test does not exercise retransmits")
	}
}
