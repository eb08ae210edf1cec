// Package workload turns a job's config.Workload into a schedule of messages: which host
// sends how many bytes to which host, on which queue pair and traffic classes, and when
// the work request is posted. It is pure data: it schedules no events and
// knows no device; the fabric posts each Message to the source NIC at Message.Start.
//
// Randomness comes only from sim.NewRand(seed, stream) with streams in the workload range
// (see stream), so a schedule is a pure function of (config, hosts, rate, duration,
// seed).
package workload

import (
	"cmp"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Message is one work request (an RDMA write or send) to post.
type Message struct {
	ID     int64    // unique in the schedule; generation order (element, then kind order)
	Src    int32    // sending host index
	Dst    int32    // receiving host index, != Src
	QP     int32    // sender-local QP index for the pair (Src, Dst): 0, 1, ... (see assignQPs)
	Size   int64    // bytes, >= 1
	Start  sim.Time // post time
	DataTC uint8    // traffic class of data packets (data_tc)
	CtrlTC uint8    // traffic class of ACK/NAK/CNP (control_tc)
	Verb   string   // "write" or "send"
	App    string   // application_name of the perf record: "<kind>-<element>", e.g. "incast-0"
}

// MaxMessages bounds a schedule's length (about 64 B per message) so that a mistyped
// duration or load fails fast instead of exhausting memory.
const MaxMessages = 20_000_000

// Generate builds the message schedule of w for a fabric of hosts hosts whose host links
// run at lineRateBps, over [0, duration), sorted by (Start, ID). cdfDir holds the named
// size distributions (usually SizeCDFs); it may be nil when
// no `load` element names one. Errors name the key path: "workload.mix.1.senders: ...".
//
// Kinds (each element of a mix likewise, with its own data_tc, control_tc and start):
//   - incast: the first `senders` hosts other than `receiver` (-1 = the last host), in
//     host order, each send `messages` messages of `message_size` to the receiver.
//   - permutation: a uniformly random derangement: every host sends `messages` messages
//     of `message_size` to one other host, no two hosts to the same one.
//   - all-to-all: every host sends `messages` messages of `message_size` to every other
//     host (sources in host order, destinations in host order).
//   - load: each host posts messages as a Poisson process from `start` until `duration`
//     at the rate that offers `load` × lineRateBps on average; sizes are drawn from the
//     CDF `distribution`, destinations uniformly among the other hosts.
//   - mix: the elements of `mix` together; application names carry the element index.
//   - none: no messages.
//
// For incast, permutation and all-to-all every message is posted at `start`, plus an
// independent uniform offset in [0, jitter) when `jitter` > 0. `messages` 0 means 1,
// `qps_per_pair` 0 means 1 and `verb` "" means write; every other field is taken as
// given (the config layer fills defaults, including those of mix elements).
//
// An incast repeats when `rounds` > 1: round r (from 0) posts every sender's messages at
// start + r × period, each plus its own jitter draw. The jitter stream is drawn round by
// round, within a round sender by sender in host order, within a sender message by
// message: round 0 draws exactly what a one-round incast draws (so rounds 0 and 1 give
// the same schedule), and adding rounds never moves an earlier round's offsets. A round
// after the first whose start is at or after duration is left out (it would post
// nothing) and draws nothing; round 0 is always generated, as a one-round incast is.
func Generate(w config.Workload, hosts int, lineRateBps float64, duration sim.Time, seed uint64, cdfDir fs.FS) ([]Message, error) {
	elems := []config.Workload{w}
	paths := []string{"workload"}
	if w.Kind == "mix" {
		if len(w.Mix) == 0 {
			return nil, fmt.Errorf("workload.mix: a mix needs at least one element")
		}
		elems, paths = w.Mix, nil
		for i := range w.Mix {
			paths = append(paths, fmt.Sprintf("workload.mix.%d", i))
		}
	}
	g := &gen{hosts: hosts, rate: lineRateBps, duration: duration, seed: seed, cdfDir: cdfDir, qpBase: map[pair]int32{}}
	for i, e := range elems {
		if err := g.element(i, paths[i], e); err != nil {
			return nil, err
		}
	}
	slices.SortFunc(g.msgs, func(a, b Message) int {
		if c := cmp.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return g.msgs, nil
}

type pair struct{ src, dst int32 }

// gen accumulates the schedule across mix elements.
type gen struct {
	hosts    int
	rate     float64
	duration sim.Time
	seed     uint64
	cdfDir   fs.FS
	msgs     []Message
	qpBase   map[pair]int32 // QPs of a pair already taken by earlier elements
}

// stream returns the random stream of element elem, sub-stream sub (0 for the element's
// own draws, host+1 for a load host's arrivals, jitterStream for start jitter). Workload streams carry the workload
// owner byte (0x04) in the top byte so they never meet the node-id streams of devices
// (switch.md DC-14).
func stream(elem, sub int) uint64 {
	return uint64(sim.OwnerWorkload)<<56 | uint64(elem)<<32 | uint64(uint32(sub))
}

// jitterStream is the sub-stream of an element's start jitter: its own stream, so that
// turning jitter on or changing it never moves the element's other draws (the
// permutation's derangement) and the reverse (spec.md "Seeds and common random numbers").
const jitterStream = 0xFFFFFFFF

func (g *gen) element(elem int, path string, w config.Workload) error {
	if w.Kind == "none" {
		return nil
	}
	if w.Kind == "mix" {
		return fmt.Errorf("%s.kind: a mix element cannot be a mix", path)
	}
	if w.DataTC < 0 || w.DataTC > 7 {
		return fmt.Errorf("%s.data_tc: %d is not a traffic class 0..7", path, w.DataTC)
	}
	if w.ControlTC < 0 || w.ControlTC > 7 {
		return fmt.Errorf("%s.control_tc: %d is not a traffic class 0..7", path, w.ControlTC)
	}
	if w.Start < 0 {
		return fmt.Errorf("%s.start: %v is negative", path, w.Start)
	}
	if w.Jitter < 0 {
		return fmt.Errorf("%s.jitter: %v is negative", path, w.Jitter)
	}
	if w.Messages < 0 {
		return fmt.Errorf("%s.messages: %d is negative", path, w.Messages)
	}
	if w.QPsPerPair < 0 {
		return fmt.Errorf("%s.qps_per_pair: %d is negative", path, w.QPsPerPair)
	}
	if w.Rounds < 0 {
		return fmt.Errorf("%s.rounds: %d is negative", path, w.Rounds)
	}
	if w.Period < 0 {
		return fmt.Errorf("%s.period: %v is negative", path, w.Period)
	}
	if w.Rounds > 1 && w.Kind != "incast" {
		return fmt.Errorf("%s.rounds: %d; only an incast repeats in rounds", path, w.Rounds)
	}
	if w.Rounds > 1 && w.Period == 0 {
		return fmt.Errorf("%s.period: 0s; %d rounds need a period > 0 between their starts", path, w.Rounds)
	}
	verb := w.Verb
	switch verb {
	case "":
		verb = "write"
	case "write", "send":
	default:
		return fmt.Errorf("%s.verb: %q is not write or send", path, w.Verb)
	}
	if g.hosts < 2 {
		return fmt.Errorf("%s.kind: %s needs at least 2 hosts, the topology has %d", path, w.Kind, g.hosts)
	}
	if IsCollective(w.Kind) {
		return nil // run from completions by the fabric (Collectives, CollRun)
	}
	msgs := max(w.Messages, 1)
	first := len(g.msgs)
	e := elemGen{g: g, w: w, path: path, verb: verb, app: fmt.Sprintf("%s-%d", w.Kind, elem),
		rng: sim.NewRand(g.seed, stream(elem, 0)), jitter: sim.NewRand(g.seed, stream(elem, jitterStream))}
	H := int32(g.hosts)
	switch w.Kind {
	case "incast":
		recv := int32(w.Receiver)
		if w.Receiver == -1 {
			recv = H - 1
		}
		if recv < 0 || recv >= H {
			return fmt.Errorf("%s.receiver: %d is not a host 0..%d (or -1 for the last)", path, w.Receiver, H-1)
		}
		if w.Senders < 1 || w.Senders > g.hosts-1 {
			return fmt.Errorf("%s.senders: %d, want 1..%d (hosts other than the receiver)", path, w.Senders, g.hosts-1)
		}
		rounds := incastRounds(w, g.duration)
		if err := e.fixedSize(float64(w.Senders) * float64(msgs) * float64(rounds)); err != nil {
			return err
		}
		for r := int64(0); r < rounds; r++ {
			at := w.Start + sim.Time(r)*w.Period
			sent := 0
			for s := int32(0); s < H && sent < w.Senders; s++ {
				if s == recv {
					continue
				}
				e.repeat(s, recv, msgs, at)
				sent++
			}
		}
	case "permutation":
		if err := e.fixedSize(float64(g.hosts) * float64(msgs)); err != nil {
			return err
		}
		dst := derangement(e.rng, g.hosts)
		for s := int32(0); s < H; s++ {
			e.repeat(s, dst[s], msgs, w.Start)
		}
	case "all-to-all":
		if err := e.fixedSize(float64(g.hosts) * float64(g.hosts-1) * float64(msgs)); err != nil {
			return err
		}
		for s := int32(0); s < H; s++ {
			for d := int32(0); d < H; d++ {
				if d != s {
					e.repeat(s, d, msgs, w.Start)
				}
			}
		}
	case "load":
		if err := e.load(elem); err != nil {
			return err
		}
	default:
		return fmt.Errorf("%s.kind: unknown kind %q (incast, permutation, all-to-all, load, mix, none)", path, w.Kind)
	}
	g.assignQPs(g.msgs[first:], max(w.QPsPerPair, 1))
	return nil
}

// assignQPs spreads each pair's messages of one element round robin over qps QPs, in
// generation order, numbered after the QPs earlier elements took for the pair. So QP
// numbers of a pair run 0, 1, ... and one QP never carries two elements (its traffic
// classes are constant).
func (g *gen) assignQPs(ms []Message, qps int) {
	count := map[pair]int32{}
	for i := range ms {
		p := pair{ms[i].Src, ms[i].Dst}
		n := count[p]
		ms[i].QP = g.qpBase[p] + n%int32(qps)
		count[p] = n + 1
	}
	for p, n := range count {
		g.qpBase[p] += min(n, int32(qps))
	}
}

// elemGen generates the messages of one element.
type elemGen struct {
	g         *gen
	w         config.Workload
	path      string
	verb, app string
	rng       *rand.Rand // the element's shape (derangement)
	jitter    *rand.Rand // start jitter, its own stream
}

// incastRounds is the number of rounds of incast w that Generate generates over
// [0, duration): max(rounds, 1), less the rounds after the first that start at or after
// duration. Round r starts at start + r × period, so with start < duration the rounds
// that start in time are r = 0 .. ⌊(duration − start − 1) / period⌋.
func incastRounds(w config.Workload, duration sim.Time) int64 {
	n := int64(max(w.Rounds, 1))
	if n == 1 || w.Period <= 0 || w.Start >= duration {
		return 1
	}
	return min(n, int64((duration-w.Start-1)/w.Period)+1)
}

// fixedSize checks message_size and that count more messages stay within MaxMessages
// (a float64, so that a product of large counts cannot overflow).
func (e *elemGen) fixedSize(count float64) error {
	if e.w.MessageSize < 1 {
		return fmt.Errorf("%s.message_size: %d B, want >= 1", e.path, e.w.MessageSize)
	}
	if e.w.MessageSize > MaxMessageSize {
		return fmt.Errorf("%s.message_size: %d B; at most %d B per message", e.path, e.w.MessageSize, int64(MaxMessageSize))
	}
	if total := count + float64(len(e.g.msgs)); total > MaxMessages {
		return fmt.Errorf("%s: %.0f messages exceed the limit of %d", e.path, total, MaxMessages)
	}
	return nil
}

// repeat appends n messages src → dst of message_size at at (+ jitter, one draw each).
func (e *elemGen) repeat(src, dst int32, n int, at sim.Time) {
	for range n {
		t := at
		if e.w.Jitter > 0 {
			t += sim.Time(e.jitter.Int64N(int64(e.w.Jitter)))
		}
		e.add(src, dst, int64(e.w.MessageSize), t)
	}
}

func (e *elemGen) add(src, dst int32, size int64, start sim.Time) {
	e.g.msgs = append(e.g.msgs, Message{ID: int64(len(e.g.msgs)), Src: src, Dst: dst, Size: size, Start: start,
		DataTC: uint8(e.w.DataTC), CtrlTC: uint8(e.w.ControlTC), Verb: e.verb, App: e.app})
}

// load appends each host's Poisson arrivals over [start, duration): exponential gaps of
// mean 8 × mean size / (load × rate) seconds, sizes from the CDF, destinations uniform
// among the other hosts. Host h draws from its own stream (elem, h+1), so hosts are
// independent and adding hosts does not change the others' arrivals.
func (e *elemGen) load(elem int) error {
	w, g := e.w, e.g
	if !(w.Load > 0) {
		return fmt.Errorf("%s.load: %g, want > 0 (a fraction of the host link rate)", e.path, w.Load)
	}
	if !(g.rate > 0) {
		return fmt.Errorf("%s: host link rate %g bps, want > 0", e.path, g.rate)
	}
	cdf, err := LoadCDF(g.cdfDir, w.Distribution)
	if err != nil {
		return fmt.Errorf("%s.%v", e.path, trimPrefix(err))
	}
	mean := cdf.Mean()
	gapPs := 8 * mean / (w.Load * g.rate) * 1e12 // mean inter-arrival, ps
	span := float64(g.duration - w.Start)
	if span <= 0 {
		return nil
	}
	if expect := float64(g.hosts) * span / gapPs; expect+float64(len(g.msgs)) > MaxMessages {
		return fmt.Errorf("%s: about %.0f messages over %v exceed the limit of %d; lower load or duration", e.path, expect, g.duration-w.Start, MaxMessages)
	}
	H := int32(g.hosts)
	for s := int32(0); s < H; s++ {
		r := sim.NewRand(g.seed, stream(elem, int(s)+1))
		t := float64(w.Start)
		for {
			t += r.ExpFloat64() * gapPs
			if t >= float64(g.duration) {
				break
			}
			size := cdf.Sample(r)
			d := int32(r.IntN(g.hosts - 1))
			if d >= s {
				d++
			}
			e.add(s, d, size, sim.Time(t))
		}
	}
	return nil
}

// trimPrefix drops the "workload." prefix LoadCDF puts on its messages so the caller can
// put the element path in front.
func trimPrefix(err error) string {
	const p = "workload."
	s := err.Error()
	if len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return "distribution: " + s
}

// derangement returns a uniformly random permutation of 0..n-1 without fixed points
// (n >= 2), by rejection: shuffle until no host maps to itself (about e ≈ 2.72 tries).
func derangement(r *rand.Rand, n int) []int32 {
	p := make([]int32, n)
	for {
		for i := range p {
			p[i] = int32(i)
		}
		r.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
		ok := true
		for i, v := range p {
			if int(v) == i {
				ok = false
				break
			}
		}
		if ok {
			return p
		}
	}
}
