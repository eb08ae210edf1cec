package sweep

import (
	"context"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/model/fabric"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/sweep/specfile"
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

// nearestRankStarted is the nearest-rank p-quantile over started messages of which v
// completed (records.md RC-24): the unfinished ranked last, as +Inf; NaN ("not reached")
// when the rank lands on one of them or nothing started.
func nearestRankStarted(v []float64, started int64, p float64) float64 {
	all := slices.Clone(v)
	for int64(len(all)) < started {
		all = append(all, math.Inf(1))
	}
	if x := nearestRank(all, p); !math.IsInf(x, 1) {
		return x
	}
	return math.NaN()
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
	s, err := specfile.Parse("ci.yaml", data, nil)
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
		var started [2]int64
		for _, c := range rec.Classes {
			ms := byTC[c.DataTC]
			var fct, slow, host []float64
			var size int64
			for _, m := range ms {
				fct = append(fct, m.FctUsec)
				slow = append(slow, m.Slowdown)
				if !math.IsNaN(m.HostFctUsec) {
					host = append(host, m.HostFctUsec)
				}
				size += m.SizeBytes
			}
			lossless := j.Config.Switch.SharedBufferManager.EnablePFC[c.DataTC] == 1
			k := 0
			if lossless {
				k = 1
			}
			kind[k][0] = append(kind[k][0], fct...)
			kind[k][1] = append(kind[k][1], slow...)
			started[k] += c.MsgsPosted
			zero := func(x float64) float64 {
				if math.IsNaN(x) {
					return 0
				}
				return x
			}
			n := c.MsgsPosted
			// Every message at host memory has a row here unless its ACK was still out at
			// the end; then the host percentiles are the class's own.
			if int64(len(host)) > c.MsgsHostCompleted {
				t.Errorf("%s TC %d: %d rows with a host completion, msgs_host_completed %d", p.Label(j), c.DataTC, len(host), c.MsgsHostCompleted)
			}
			hp50, hp99, hmax := zero(c.HostFctP50Usec), zero(c.HostFctP99Usec), zero(c.HostFctMaxUsec)
			if int64(len(host)) == c.MsgsHostCompleted {
				hp50, hp99, hmax = zero(nearestRankStarted(host, n, 0.5)), zero(nearestRankStarted(host, n, 0.99)), zero(nearestRankStarted(host, n, 1))
			}
			want := stats.Class{JobID: j.ID, DataTC: c.DataTC, Lossless: lossless,
				MsgsPosted: c.MsgsPosted, MsgsCompleted: int64(len(ms)), MsgsHostCompleted: c.MsgsHostCompleted,
				CompletedFrac: float64(len(ms)) / float64(n), BytesDelivered: c.BytesDelivered,
				GoodputGbps: float64(c.BytesDelivered) * 8 / sum.SimTimeSec / 1e9,
				FctP50Usec:  zero(nearestRankStarted(fct, n, 0.5)), FctP99Usec: zero(nearestRankStarted(fct, n, 0.99)), FctMaxUsec: zero(nearestRankStarted(fct, n, 1)),
				HostFctP50Usec: hp50, HostFctP99Usec: hp99, HostFctMaxUsec: hmax,
				SlowdownP50: zero(nearestRankStarted(slow, n, 0.5)), SlowdownP99: zero(nearestRankStarted(slow, n, 0.99)),
				Drops: c.Drops, Retransmits: c.Retransmits}
			c.FctP50Usec, c.FctP99Usec, c.FctMaxUsec = zero(c.FctP50Usec), zero(c.FctP99Usec), zero(c.FctMaxUsec)
			c.HostFctP50Usec, c.HostFctP99Usec, c.HostFctMaxUsec = zero(c.HostFctP50Usec), zero(c.HostFctP99Usec), zero(c.HostFctMaxUsec)
			c.SlowdownP50, c.SlowdownP99 = zero(c.SlowdownP50), zero(c.SlowdownP99)
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
			{"fct_p99_usec_lossless", sum.FctP99UsecLossless, nearestRankStarted(kind[1][0], started[1], 0.99)},
			{"fct_p99_usec_lossy", sum.FctP99UsecLossy, nearestRankStarted(kind[0][0], started[0], 0.99)},
			{"slowdown_p99_lossless", sum.SlowdownP99Lossless, nearestRankStarted(kind[1][1], started[1], 0.99)},
			{"slowdown_p99_lossy", sum.SlowdownP99Lossy, nearestRankStarted(kind[0][1], started[0], 0.99)},
		} {
			if !sameFloat(c.got, c.want) {
				t.Errorf("%s: %s = %v, want %v from messages", p.Label(j), c.name, c.got, c.want)
			}
		}
		// The lossless incast completes in every job of ci.yaml: its p99 is reached.
		if math.IsNaN(sum.FctP99UsecLossless) {
			t.Errorf("%s: fct_p99_usec_lossless not reached (%d of %d lossless messages completed)", p.Label(j), sum.MsgsCompletedLossless, sum.MsgsStartedLossless)
		}
	}
	if !sawRtx {
		t.Error("no job retransmitted in a lossy class: the test does not exercise retransmits")
	}
}
