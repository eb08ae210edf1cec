package fabric

import (
	"math"
	"slices"

	"github.com/rocesweep/rocesweep/model/nic"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/model/workload"
)

// collQPBase numbers the QPs of collective element e as collQPBase + e, apart from the
// QPs of scheduled messages (0, 1, ... per pair), so a collective's steps never queue
// behind another element's messages on one QP.
const collQPBase = 1 << 16

// collRef says which collective step a dyn message is.
type collRef struct {
	run, rank, step int
}

// newCollectives sets up one run per collective element and group, and schedules the
// first iteration of each at its element's start.
func (f *Fabric) newCollectives() error {
	rackOf := make([]int, len(f.g.NICs))
	for h, n := range f.g.NICs {
		rackOf[h] = f.g.Nodes[n].Ports[0].Peer
	}
	colls, err := workload.Collectives(f.cfg.Workload, rackOf)
	if err != nil {
		return err
	}
	// The runs point into colls, which stays with the fabric.
	for i := range colls {
		for g, ranks := range colls[i].Groups {
			f.runs = append(f.runs, workload.CollRun{C: &colls[i], Group: g, Ranks: ranks})
		}
	}
	for i := range f.runs {
		f.eng.Schedule(f.runs[i].C.Start, kindCollStart, 0, 0, int64(i))
	}
	return nil
}

// workloadEvent handles the workload's events: scheduled posts, a collective iteration's
// start, and a collective message released by a completion.
func (f *Fabric) workloadEvent(ev sim.Event) {
	switch ev.Kind {
	case kindCollStart:
		r := &f.runs[ev.Arg]
		f.collSend(int(ev.Arg), r.Begin(f.eng.Now()))
	case kindCollPost:
		m := &f.dyn[ev.Arg]
		verb := nic.Write
		if m.Verb == "send" {
			verb = nic.Send
		}
		tag := int64(len(f.msgs)) + ev.Arg
		f.nics[m.Src].Post(nic.WorkRequest{Dst: m.Dst, QP: m.QP, Size: m.Size, Verb: verb, DataTC: m.DataTC, CtrlTC: m.CtrlTC, Tag: tag})
		f.started(tag, m)
		f.posted += m.Size
		f.tcPosted[m.DataTC&7]++ // a step is a message of its class like any other (records.md §8.1)
		f.pair(m.Src, m.Dst).posted += m.Size
	default:
		f.post()
	}
}

// collSend queues the messages of run ri for posting now. Posting goes through an event
// at the current time, so a completion callback never re-enters a NIC.
func (f *Fabric) collSend(ri int, sends []workload.Send) {
	r := &f.runs[ri]
	now := f.eng.Now()
	for _, s := range sends {
		i := len(f.dyn)
		f.dyn = append(f.dyn, workload.Message{ID: int64(len(f.msgs) + i), Src: s.Src, Dst: s.Dst, QP: collQPBase + int32(r.C.Elem),
			Size: s.Size, Start: now, DataTC: r.C.DataTC, CtrlTC: r.C.CtrlTC, Verb: r.C.Verb, App: r.C.App})
		f.dynRef = append(f.dynRef, collRef{run: ri, rank: s.Rank, step: s.Step})
		f.eng.Schedule(now, kindCollPost, 0, 0, int64(i))
	}
}

// collCompleted advances the run of dyn message i: the steps it releases are posted, and
// a finished iteration writes its collectives row and starts the next after the gap.
func (f *Fabric) collCompleted(i int) {
	ref := f.dynRef[i]
	r := &f.runs[ref.run]
	next, done := r.Completed(ref.rank, ref.step)
	f.collSend(ref.run, next)
	if !done {
		return
	}
	now := f.eng.Now()
	n := len(r.Ranks)
	cct := now - r.IterStart
	alg := 0.0
	if cct > 0 {
		alg = float64(r.C.Size) * 8 / cct.Seconds() / 1e9
	}
	bus := alg * workload.BusFactor(r.C.Kind, n)
	f.rec.Collectives = append(f.rec.Collectives, stats.Collective{
		JobID: f.rec.JobID, ApplicationName: r.C.App, Kind: r.C.Kind, Group: int32(r.Group), Iteration: int32(r.Iter),
		Ranks: int32(n), SizeBytes: r.C.Size, StartSec: r.IterStart.Seconds(), EndSec: now.Seconds(),
		CctUsec: cct.Micros(), AlgbwGbps: alg, BusbwGbps: bus,
	})
	f.ccts = append(f.ccts, cct.Micros())
	f.busbw = append(f.busbw, bus)
	r.Iter++
	if r.Iter < r.C.Iterations {
		f.eng.Schedule(now+r.C.Gap, kindCollStart, 0, 0, int64(ref.run))
		return
	}
	f.runsDone++
}

// message returns the message of NIC tag t: a scheduled one or a collective's.
func (f *Fabric) message(t int64) *workload.Message {
	if t < int64(len(f.msgs)) {
		return &f.msgs[t]
	}
	return &f.dyn[t-int64(len(f.msgs))]
}

// collectiveSummary fills the jobs columns of the collectives: the iterations finished
// (every group's), their median and largest completion time, mean bus bandwidth; NaN
// (null in jobs) when no iteration finished, so an unfinished collective never reads as
// an instant one.
func (f *Fabric) collectiveSummary(s *stats.Summary) {
	s.CctIterations = int64(len(f.ccts))
	if len(f.ccts) == 0 {
		s.CctP50Usec, s.CctMaxUsec, s.BusbwGbps = math.NaN(), math.NaN(), math.NaN()
		return
	}
	sorted := slices.Clone(f.ccts)
	slices.Sort(sorted)
	s.CctP50Usec = percentile(sorted, 0.50)
	s.CctMaxUsec = sorted[len(sorted)-1]
	sum := 0.0
	for _, b := range f.busbw {
		sum += b
	}
	s.BusbwGbps = sum / float64(len(f.busbw))
}
