package workload

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// cdfDir is the shipped distributions, read from the checkout.
var cdfDir = SizeCDFs

const rate = 400e9

func mustGen(t testing.TB, w config.Workload, hosts int, dur sim.Time, seed uint64) []Message {
	t.Helper()
	ms, err := Generate(w, hosts, rate, dur, seed, cdfDir)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", w, err)
	}
	return ms
}

func base(kind string) config.Workload {
	w := config.DefaultWorkload()
	w.Kind = kind
	return w
}

// checkSorted asserts order by (Start, ID), unique IDs and Src != Dst.
func checkSorted(t *testing.T, ms []Message) {
	t.Helper()
	ids := map[int64]bool{}
	for i, m := range ms {
		if ids[m.ID] {
			t.Fatalf("duplicate ID %d", m.ID)
		}
		ids[m.ID] = true
		if m.Src == m.Dst {
			t.Fatalf("message %d sends to itself (%d)", m.ID, m.Src)
		}
		if i > 0 && (ms[i-1].Start > m.Start || ms[i-1].Start == m.Start && ms[i-1].ID > m.ID) {
			t.Fatalf("messages %d and %d out of (Start, ID) order", i-1, i)
		}
	}
}

func TestCounts(t *testing.T) {
	incast := base("incast") // 15 senders x 1 MiB into the last host
	incast3 := base("incast")
	incast3.Senders, incast3.Messages, incast3.Receiver = 4, 3, 2
	perm := base("permutation")
	perm.Messages = 2
	a2a := base("all-to-all")
	a2a.MessageSize = 64 << 10
	tests := []struct {
		name  string
		w     config.Workload
		hosts int
		want  int
	}{
		{"incast default", incast, 16, 15},
		{"incast 4 senders x 3", incast3, 8, 12},
		{"permutation x2", perm, 16, 32},
		{"all-to-all", a2a, 9, 72},
		{"none", base("none"), 16, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ms := mustGen(t, tc.w, tc.hosts, sim.Millisecond, 1)
			if len(ms) != tc.want {
				t.Fatalf("%d messages, want %d", len(ms), tc.want)
			}
			checkSorted(t, ms)
			for _, m := range ms {
				if m.Size != int64(tc.w.MessageSize) || m.Start != tc.w.Start || m.DataTC != 0 || m.CtrlTC != 1 || m.Verb != "write" || m.App != tc.w.Kind+"-0" {
					t.Fatalf("message %+v", m)
				}
			}
		})
	}
	// Incast: the first senders hosts other than the receiver.
	ms := mustGen(t, incast3, 8, sim.Millisecond, 1)
	var src []int32
	for _, m := range ms {
		if m.Dst != 2 {
			t.Fatalf("incast message to %d, want receiver 2", m.Dst)
		}
		src = append(src, m.Src)
	}
	if want := []int32{0, 0, 0, 1, 1, 1, 3, 3, 3, 4, 4, 4}; !reflect.DeepEqual(src, want) {
		t.Errorf("incast sources %v, want %v", src, want)
	}
	// All-to-all: every ordered pair exactly once.
	seen := map[[2]int32]int{}
	for _, m := range mustGen(t, a2a, 9, sim.Millisecond, 1) {
		seen[[2]int32{m.Src, m.Dst}]++
	}
	if len(seen) != 72 {
		t.Errorf("all-to-all covers %d pairs, want 72", len(seen))
	}
}

func TestDerangement(t *testing.T) {
	w := base("permutation")
	for seed := uint64(1); seed <= 50; seed++ {
		for _, hosts := range []int{2, 3, 16, 33} {
			ms := mustGen(t, w, hosts, sim.Millisecond, seed)
			if len(ms) != hosts {
				t.Fatalf("%d messages for %d hosts", len(ms), hosts)
			}
			dsts, srcs := map[int32]bool{}, map[int32]bool{}
			for _, m := range ms {
				if m.Src == m.Dst || dsts[m.Dst] || srcs[m.Src] {
					t.Fatalf("seed %d hosts %d: not a derangement: %+v", seed, hosts, ms)
				}
				dsts[m.Dst], srcs[m.Src] = true, true
			}
		}
	}
	// Different seeds give different permutations (16 hosts: 16!/e derangements).
	a, b := mustGen(t, w, 16, sim.Millisecond, 1), mustGen(t, w, 16, sim.Millisecond, 2)
	if reflect.DeepEqual(a, b) {
		t.Error("seeds 1 and 2 give the same permutation")
	}
}

func TestJitterAndQPs(t *testing.T) {
	w := base("incast")
	w.Senders, w.Messages, w.QPsPerPair, w.Jitter, w.Start = 3, 7, 3, 10*sim.Microsecond, 5*sim.Microsecond
	ms := mustGen(t, w, 4, sim.Millisecond, 9)
	perQP := map[[2]int32]int{}
	distinct := map[sim.Time]bool{}
	for _, m := range ms {
		if m.Start < w.Start || m.Start >= w.Start+w.Jitter {
			t.Fatalf("start %v outside [5us, 15us)", m.Start)
		}
		distinct[m.Start] = true
		perQP[[2]int32{m.Src, m.QP}]++
	}
	checkSorted(t, ms)
	if len(distinct) < 15 {
		t.Errorf("only %d distinct start times among 21 jittered messages", len(distinct))
	}
	// 7 messages over 3 QPs round robin in generation order: 3, 2, 2 per sender.
	for s := int32(0); s < 3; s++ {
		for qp, want := range []int{3, 2, 2} {
			if got := perQP[[2]int32{s, int32(qp)}]; got != want {
				t.Errorf("sender %d QP %d carries %d messages, want %d", s, qp, got, want)
			}
		}
	}
}

// TestMix: elements keep their own TCs, start and application name; the merge is
// sorted; a pair used by two elements gets distinct QPs per element.
func TestMix(t *testing.T) {
	inc := base("incast")
	inc.Senders, inc.Start, inc.DataTC, inc.ControlTC = 3, 20*sim.Microsecond, 0, 1
	bg := base("all-to-all")
	bg.MessageSize, bg.DataTC, bg.ControlTC, bg.QPsPerPair, bg.Messages = 4096, 2, 1, 2, 2
	w := config.Workload{Kind: "mix", Mix: []config.Workload{inc, bg}}
	ms := mustGen(t, w, 4, sim.Millisecond, 1)
	if len(ms) != 3+12*2 {
		t.Fatalf("%d messages, want 27", len(ms))
	}
	checkSorted(t, ms)
	// Background (start 0) sorts before the incast (start 20us) despite larger IDs.
	for i, m := range ms {
		bgMsg := i < 24
		if bgMsg != (m.App == "all-to-all-1") {
			t.Fatalf("message %d is %s", i, m.App)
		}
		if bgMsg && (m.DataTC != 2 || m.Start != 0 || m.ID < 3) || !bgMsg && (m.App != "incast-0" || m.DataTC != 0 || m.Start != inc.Start || m.ID >= 3) {
			t.Fatalf("message %+v", m)
		}
	}
	// Host 0 → 3 carries incast (QP 0) and background (QPs 1, 2).
	qps := map[string][]int32{}
	for _, m := range ms {
		if m.Src == 0 && m.Dst == 3 {
			qps[m.App] = append(qps[m.App], m.QP)
		}
	}
	slices.Sort(qps["all-to-all-1"])
	if !reflect.DeepEqual(qps["incast-0"], []int32{0}) || !reflect.DeepEqual(qps["all-to-all-1"], []int32{1, 2}) {
		t.Errorf("pair 0→3 QPs %v, want incast [0], background [1 2]", qps)
	}
}

// TestLoad: each host's arrivals are a Poisson process of rate load × rate / (8 × the
// distribution's mean size), so the message count over [start, duration) is within 2% of
// hosts × span × that rate, and the offered load is the target: the mean generated size
// is the distribution's mean within 8%; destinations are never the source and spread
// over all other hosts.
//
// The horizons give about 75,000 messages each: the count's relative standard error is
// 1/√75,000 = 0.37%, so 2% is over 5 standard errors (a wrong gap, rate unit or horizon
// moves the count far more). The mean size of so many draws of these heavy-tailed sizes
// (coefficient of variation 2.3 to 5.6) has a standard error of 0.9% to 2%, so 8% is 4
// of them and still tells the three distributions apart (means 41 KB to 1.7 MB);
// TestCDFMeans checks the sampler's mean to 1.5% over 400,000 draws.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		dist string
		load float64
		dur  sim.Time
	}{
		{"alistorage2019", 0.5, 9 * sim.Millisecond},
		{"fb-hadoop", 0.3, 40 * sim.Millisecond},
		{"websearch", 0.8, 200 * sim.Millisecond},
	} {
		w := base("load")
		w.Distribution, w.Load, w.Start = tc.dist, tc.load, sim.Millisecond
		const hosts = 16
		cdf, err := LoadCDF(cdfDir, tc.dist)
		if err != nil {
			t.Fatal(err)
		}
		ms := mustGen(t, w, hosts, tc.dur, 3)
		checkSorted(t, ms)
		var bytes float64
		dst := map[[2]int32]bool{}
		for _, m := range ms {
			if m.Start < w.Start || m.Start >= tc.dur {
				t.Fatalf("%s: start %v outside [start, duration)", tc.dist, m.Start)
			}
			bytes += float64(m.Size)
			dst[[2]int32{m.Src, m.Dst}] = true
		}
		span := (tc.dur - w.Start).Seconds()
		want := hosts * span * tc.load * rate / (8 * cdf.Mean())
		meanSize := bytes / float64(len(ms))
		t.Logf("%s: %d messages (want %.0f), mean size %.0f (distribution %.0f), offered load %.4f (target %g)",
			tc.dist, len(ms), want, meanSize, cdf.Mean(), bytes*8/(span*rate*hosts), tc.load)
		if math.Abs(float64(len(ms))/want-1) > 0.02 {
			t.Errorf("%s: %d messages, want %.0f ± 2%%", tc.dist, len(ms), want)
		}
		if math.Abs(meanSize/cdf.Mean()-1) > 0.08 {
			t.Errorf("%s: mean message size %.0f, want the distribution's %.0f ± 8%%", tc.dist, meanSize, cdf.Mean())
		}
		if len(dst) != hosts*(hosts-1) {
			t.Errorf("%s: %d distinct pairs, want %d", tc.dist, len(dst), hosts*(hosts-1))
		}
	}
}

// TestCDFMeans pins the shipped distributions' means (sizecdf/README.md) and
// checks that sampling reproduces them.
func TestCDFMeans(t *testing.T) {
	for _, tc := range []struct {
		name string
		mean float64
	}{{"websearch", 1711250}, {"fb-hadoop", 120420.75}, {"alistorage2019", 40869.8}} {
		c, err := LoadCDF(cdfDir, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.Mean()-tc.mean) > 1e-6*tc.mean {
			t.Errorf("%s: Mean %.2f, want %.2f", tc.name, c.Mean(), tc.mean)
		}
		r := sim.NewRand(7, 7)
		const n = 400_000
		var sum float64
		for range n {
			s := c.Sample(r)
			if s < 1 || float64(s) > c.Size[len(c.Size)-1] {
				t.Fatalf("%s: sample %d out of range", tc.name, s)
			}
			sum += float64(s)
		}
		if got := sum / n; math.Abs(got/tc.mean-1) > 0.015 {
			t.Errorf("%s: sample mean %.0f, want %.0f ± 1.5%%", tc.name, got, tc.mean)
		}
	}
	if got := Known(cdfDir); !reflect.DeepEqual(got, []string{"alistorage2019", "fb-hadoop", "websearch"}) {
		t.Errorf("Known = %v", got)
	}
}

func TestCDFSampleExact(t *testing.T) {
	c, err := ParseCDF("t", strings.NewReader("# point mass then a ramp\n100 50\n300 100 # end\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Mean() != 0.5*100+0.5*200 {
		t.Errorf("Mean = %g, want 150", c.Mean())
	}
	r := sim.NewRand(1, 1)
	var mass, ramp int
	for range 10000 {
		s := c.Sample(r)
		switch {
		case s == 100:
			mass++
		case s > 100 && s <= 300:
			ramp++
		default:
			t.Fatalf("sample %d outside {100} ∪ (100, 300]", s)
		}
	}
	if mass < 4700 || mass > 5300 {
		t.Errorf("point mass drawn %d/10000 times, want about 5000", mass)
	}
}

func TestCDFErrors(t *testing.T) {
	tests := []struct{ text, want string }{
		{"0 0\n10 50\n5 100\n", "x.txt:3: size 5 after 10: sizes must not decrease"},
		{"0 0\n10 60\n20 50\n30 100\n", "x.txt:3: percent 50 after 60: percents must not decrease"},
		{"0 0\n10 90\n", "x.txt:2: last percent is 90: the CDF must end at 100"},
		{"0 0\n\n# c\n10 abc\n", `x.txt:4: percent "abc": want a number in 0..100`},
		{"0 0\n10 0.5 7\n", "x.txt:2: want \"<size bytes> <cumulative percent>\", got 3 fields"},
		{"-1 0\n", `x.txt:1: size "-1": want a non-negative number of bytes`},
		{"0 0\n10 101\n", `x.txt:2: percent "101": want a number in 0..100`},
		{"# nothing\n", "x.txt: no points"},
	}
	for _, tc := range tests {
		_, err := ParseCDF("x.txt", strings.NewReader(tc.text))
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseCDF(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}
	w := base("load")
	w.Distribution = "nosuch"
	if _, err := Generate(w, 4, rate, sim.Millisecond, 1, cdfDir); err == nil || !strings.Contains(err.Error(), `workload.distribution: unknown distribution "nosuch" (known: alistorage2019, fb-hadoop, websearch)`) {
		t.Errorf("unknown distribution: %v", err)
	}
	bad := fstest.MapFS{"bad.txt": {Data: []byte("0 0\n10 50\n")}}
	w.Distribution = "bad"
	mix := config.Workload{Kind: "mix", Mix: []config.Workload{base("none"), w}}
	if _, err := Generate(mix, 4, rate, sim.Millisecond, 1, bad); err == nil || err.Error() != "workload.mix.1.distribution: bad.txt:2: last percent is 50: the CDF must end at 100" {
		t.Errorf("bad CDF in a mix: %v", err)
	}
	// A path loads from disk.
	w.Distribution = "sizecdf/websearch.txt"
	if _, err := Generate(w, 4, rate, sim.Millisecond, 1, nil); err != nil {
		t.Errorf("CDF by path: %v", err)
	}
}

func TestGenerateErrors(t *testing.T) {
	mod := func(kind string, f func(*config.Workload)) config.Workload {
		w := base(kind)
		f(&w)
		return w
	}
	tests := []struct {
		w     config.Workload
		hosts int
		want  string
	}{
		{mod("incast", func(w *config.Workload) { w.Senders = 16 }), 16, "workload.senders: 16, want 1..15"},
		{mod("incast", func(w *config.Workload) { w.Receiver = 16 }), 16, "workload.receiver: 16 is not a host 0..15"},
		{mod("incast", func(w *config.Workload) { w.MessageSize = 0 }), 16, "workload.message_size: 0 B, want >= 1"},
		{mod("permutation", func(w *config.Workload) {}), 1, "workload.kind: permutation needs at least 2 hosts"},
		{mod("incast", func(w *config.Workload) { w.DataTC = 8 }), 16, "workload.data_tc: 8 is not a traffic class 0..7"},
		{mod("incast", func(w *config.Workload) { w.Verb = "read" }), 16, `workload.verb: "read" is not write or send`},
		{mod("load", func(w *config.Workload) { w.Load = 0 }), 16, "workload.load: 0, want > 0"},
		{mod("ring", func(w *config.Workload) {}), 16, `workload.kind: unknown kind "ring"`},
		{config.Workload{Kind: "mix"}, 16, "workload.mix: a mix needs at least one element"},
		{config.Workload{Kind: "mix", Mix: []config.Workload{{Kind: "mix"}}}, 16, "workload.mix.0.kind: a mix element cannot be a mix"},
		{mod("all-to-all", func(w *config.Workload) { w.Messages = 100 }), 1000, "messages exceed the limit"},
		{mod("load", func(w *config.Workload) { w.Distribution = "alistorage2019"; w.Load = 1 }), 1000, "lower load or duration"},
		{mod("incast", func(w *config.Workload) { w.Rounds = -1 }), 16, "workload.rounds: -1 is negative"},
		{mod("incast", func(w *config.Workload) { w.Period = -sim.Microsecond }), 16, "workload.period: -1us is negative"},
		{mod("incast", func(w *config.Workload) { w.Rounds = 3 }), 16, "workload.period: 0s; 3 rounds need a period > 0 between their starts"},
		{mod("permutation", func(w *config.Workload) { w.Rounds, w.Period = 2, sim.Microsecond }), 16, "workload.rounds: 2; only an incast repeats in rounds"},
		{config.Workload{Kind: "mix", Mix: []config.Workload{base("incast"), mod("incast", func(w *config.Workload) { w.Rounds = 2 })}}, 16,
			"workload.mix.1.period: 0s; 2 rounds need a period > 0"},
		// 15 senders x 1,000 messages x 2,000 rounds (one every 1 ms of the 10 s) = 30,000,000.
		{mod("incast", func(w *config.Workload) { w.Messages, w.Rounds, w.Period = 1000, 2000, sim.Millisecond }), 16,
			"workload: 30000000 messages exceed the limit of 20000000"},
		// A billion rounds 1 ns apart all start within the 10 s: 15 x 10^9 messages.
		{mod("incast", func(w *config.Workload) { w.Rounds, w.Period = 1_000_000_000, sim.Nanosecond }), 16,
			"workload: 15000000000 messages exceed the limit"},
	}
	for _, tc := range tests {
		_, err := Generate(tc.w, tc.hosts, rate, 10*sim.Second, 1, cdfDir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%s) = %v, want error containing %q", tc.w.Kind, err, tc.want)
		}
	}
}

// slot is what a schedule test pins of one message.
type slot struct {
	ID         int64
	Src, QP    int32
	StartPicos int64
}

func slots(ms []Message) []slot {
	out := make([]slot, len(ms))
	for i, m := range ms {
		out[i] = slot{m.ID, m.Src, m.QP, int64(m.Start)}
	}
	return out
}

// TestIncastRounds pins whole schedules of a repeating incast on 4 hosts: senders 0 and 1
// (the first two hosts other than the receiver, host 3), 2 messages each, start 5 us.
//
// Without jitter, round r posts all four messages at 5 + 10 r us (period 10 us), IDs in
// generation order: round, then sender, then message. A 25 us duration leaves out round 2
// (it would start at 25 us, not before the end); 26 us keeps it.
//
// With jitter 3 us and seed 7, a one-round incast draws one offset per message from the
// element's jitter stream, sender by sender: IDs 0..3 get 2,321,112, 795,667, 95,657 and
// 1,857,632 ps. These are the pinned times of the one-round incast; rounds 0 and 1 must
// keep them. With rounds 2 the first four draws are the same (round 0 unchanged) and
// round 1's messages take the next four draws of the stream, in the same order, after
// 15 us.
func TestIncastRounds(t *testing.T) {
	us := int64(sim.Microsecond)
	incast := func(rounds int, period, jitter sim.Time) config.Workload {
		w := base("incast")
		w.Senders, w.Messages, w.Start, w.QPsPerPair = 2, 2, 5*sim.Microsecond, 1
		w.Rounds, w.Period, w.Jitter = rounds, period, jitter
		return w
	}
	even := func(rounds int) []slot {
		var out []slot
		for r := range int64(rounds) {
			for k := range int64(4) {
				out = append(out, slot{4*r + k, int32(k / 2), 0, (5 + 10*r) * us})
			}
		}
		return out
	}
	oneRound := []slot{{2, 1, 0, 5_095_657}, {1, 0, 0, 5_795_667}, {3, 1, 0, 6_857_632}, {0, 0, 0, 7_321_112}}
	// Round 1 of the jittered incast: the stream's draws 5..8, in the documented order.
	j := sim.NewRand(7, stream(0, jitterStream))
	for range 4 {
		j.Int64N(int64(3 * sim.Microsecond))
	}
	twoRounds := slices.Clone(oneRound)
	for id := int64(4); id < 8; id++ {
		twoRounds = append(twoRounds, slot{id, int32((id - 4) / 2), 0, 15*us + j.Int64N(int64(3*sim.Microsecond))})
	}
	slices.SortFunc(twoRounds, func(a, b slot) int {
		return cmp.Or(cmp.Compare(a.StartPicos, b.StartPicos), cmp.Compare(a.ID, b.ID))
	})

	for _, tc := range []struct {
		name string
		w    config.Workload
		dur  sim.Time
		want []slot
	}{
		{"rounds 3, period 10us", incast(3, 10*sim.Microsecond, 0), sim.Millisecond, even(3)},
		{"round 2 at the end", incast(3, 10*sim.Microsecond, 0), 25 * sim.Microsecond, even(2)},
		{"round 2 before the end", incast(3, 10*sim.Microsecond, 0), 26 * sim.Microsecond, even(3)},
		{"rounds 0", incast(0, 0, 0), sim.Millisecond, even(1)},
		{"rounds 1 ignores period", incast(1, 10*sim.Microsecond, 0), sim.Millisecond, even(1)},
		{"jitter, rounds 0", incast(0, 0, 3*sim.Microsecond), sim.Millisecond, oneRound},
		{"jitter, rounds 1", incast(1, 0, 3*sim.Microsecond), sim.Millisecond, oneRound},
		{"jitter, rounds 2", incast(2, 10*sim.Microsecond, 3*sim.Microsecond), sim.Millisecond, twoRounds},
		// Round 0 stays even when it starts after the end, as a one-round incast does.
		{"start after the end", incast(3, 10*sim.Microsecond, 0), 5 * sim.Microsecond, even(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := mustGen(t, tc.w, 4, tc.dur, 7)
			checkSorted(t, ms)
			if got := slots(ms); !slices.Equal(got, tc.want) {
				t.Errorf("schedule\n got  %v\n want %v", got, tc.want)
			}
			for _, m := range ms {
				if m.Dst != 3 || m.App != "incast-0" {
					t.Errorf("message %d: to %d (%s), want host 3 (incast-0)", m.ID, m.Dst, m.App)
				}
			}
			c, err := CountMessages(tc.w, 4, rate, tc.dur, cdfDir)
			if err != nil || c.Messages != float64(len(tc.want)) {
				t.Errorf("CountMessages = %v, %v; want %d messages", c.Messages, err, len(tc.want))
			}
		})
	}
}

// With qps_per_pair 2 a sender's messages alternate QPs 0, 1 in generation order, across
// rounds too: messages 1 and 3 rounds 2 give each sender QP 0 (round 0), then 1 (round 1).
func TestIncastRoundsQPs(t *testing.T) {
	w := base("incast")
	w.Senders, w.Messages, w.QPsPerPair, w.Rounds, w.Period = 2, 1, 2, 2, sim.Microsecond
	got := slots(mustGen(t, w, 4, sim.Millisecond, 1))
	want := []slot{{0, 0, 0, 0}, {1, 1, 0, 0}, {2, 0, 1, int64(sim.Microsecond)}, {3, 1, 1, int64(sim.Microsecond)}}
	if !slices.Equal(got, want) {
		t.Errorf("schedule\n got  %v\n want %v", got, want)
	}
}

// TestDeterminism: the same seed gives the same schedule; another seed a different one.
func TestDeterminism(t *testing.T) {
	inc := base("incast")
	inc.Jitter = sim.Microsecond
	ld := base("load")
	ld.DataTC = 2
	w := config.Workload{Kind: "mix", Mix: []config.Workload{inc, base("permutation"), ld}}
	a := mustGen(t, w, 16, 2*sim.Millisecond, 42)
	b := mustGen(t, w, 16, 2*sim.Millisecond, 42)
	c := mustGen(t, w, 16, 2*sim.Millisecond, 43)
	if !reflect.DeepEqual(a, b) {
		t.Error("same seed, different schedules")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 42 and 43 give the same schedule")
	}
}

func BenchmarkLoad(b *testing.B) {
	w := base("load")
	w.Load = 0.5
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(w, 64, rate, 10*sim.Millisecond, 1, cdfDir); err != nil {
			b.Fatal(err)
		}
	}
}
