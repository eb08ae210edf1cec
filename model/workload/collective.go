package workload

import (
	"fmt"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Collective kinds. A collective is not a schedule: each step is posted when
// the step it depends on has completed, so the fabric runs it from NIC completions
// (CollRun); Generate leaves these kinds out.
//
//   - allreduce: ring, 2 (N − 1) steps; in each step every rank sends size / N bytes to
//     the next rank; rank r's step s + 1 waits for the step-s chunk of rank r − 1.
//   - allgather, reducescatter: the same ring with N − 1 steps.
//   - alltoall: every rank sends size / N bytes to every other rank, the destinations
//     split into `phases` with a barrier (all ranks' messages complete) between them.
//
// size = message_size, the buffer each rank holds, as NCCL's tests count it. Bus
// bandwidth is algbw = size / time times BusFactor, NCCL's factor.
func IsCollective(kind string) bool {
	switch kind {
	case "allreduce", "allgather", "reducescatter", "alltoall":
		return true
	}
	return false
}

// BusFactor is NCCL's bus-bandwidth factor for kind over n ranks: 2 (n − 1) / n for
// allreduce, (n − 1) / n for allgather, reducescatter and alltoall.
func BusFactor(kind string, n int) float64 {
	f := float64(n-1) / float64(n)
	if kind == "allreduce" {
		return 2 * f
	}
	return f
}

// Collective is one workload element of a collective kind, with its groups resolved.
type Collective struct {
	Kind       string
	Elem       int    // element index (0 outside a mix)
	App        string // application_name of its messages: "<kind>-<element>"
	Groups     [][]int32
	Size       int64 // each rank's buffer, bytes
	Iterations int
	Gap        sim.Time
	Start      sim.Time
	Phases     int
	DataTC     uint8
	CtrlTC     uint8
	Verb       string
}

// Collectives returns the collective elements of w (w itself, or the collective entries
// of a mix). rackOf gives each host's rack switch (for group_by: rail); hosts are
// numbered rack by rack (model/topo), so a rail is the g-th host of every rack.
func Collectives(w config.Workload, rackOf []int) ([]Collective, error) {
	elems, paths := []config.Workload{w}, []string{"workload"}
	if w.Kind == "mix" {
		elems, paths = w.Mix, nil
		for i := range w.Mix {
			paths = append(paths, fmt.Sprintf("workload.mix.%d", i))
		}
	}
	var out []Collective
	for i, e := range elems {
		if !IsCollective(e.Kind) {
			continue
		}
		groups, err := collectiveGroups(paths[i], e, rackOf)
		if err != nil {
			return nil, err
		}
		if e.MessageSize < 1 {
			return nil, fmt.Errorf("%s.message_size: %d B, want >= 1", paths[i], e.MessageSize)
		}
		verb := e.Verb
		if verb == "" {
			verb = "write"
		}
		out = append(out, Collective{Kind: e.Kind, Elem: i, App: fmt.Sprintf("%s-%d", e.Kind, i), Groups: groups,
			Size: int64(e.MessageSize), Iterations: max(e.Iterations, 1), Gap: e.Gap, Start: e.Start,
			Phases: max(e.Phases, 1), DataTC: uint8(e.DataTC), CtrlTC: uint8(e.ControlTC), Verb: verb})
	}
	return out, nil
}

// collectiveGroups splits the hosts: `groups` blocks of consecutive hosts (group_by
// block), or one group per position in a rack (group_by rail).
func collectiveGroups(path string, w config.Workload, rackOf []int) ([][]int32, error) {
	H := len(rackOf)
	var groups [][]int32
	if w.GroupBy == "rail" {
		pos := map[int]int{} // rack → hosts seen
		for h, r := range rackOf {
			p := pos[r]
			pos[r]++
			for len(groups) <= p {
				groups = append(groups, nil)
			}
			groups[p] = append(groups[p], int32(h))
		}
	} else {
		g := max(w.Groups, 1)
		if H%g != 0 {
			return nil, fmt.Errorf("%s.groups: %d hosts do not split into %d equal groups", path, H, g)
		}
		n := H / g
		for i := 0; i < g; i++ {
			grp := make([]int32, n)
			for j := range grp {
				grp[j] = int32(i*n + j)
			}
			groups = append(groups, grp)
		}
	}
	for i, g := range groups {
		if len(g) < 2 {
			return nil, fmt.Errorf("%s.groups: group %d has %d host; a collective needs 2 ranks or more (group_by %s)", path, i, len(g), w.GroupBy)
		}
	}
	return groups, nil
}

// Send is one message a collective posts now: rank Rank's message of step Step.
type Send struct {
	Rank, Step int
	Src, Dst   int32
	Size       int64
}

// CollRun is one group's run of a collective: which messages each step needs and what a
// completion releases. It is pure logic; the fabric posts the Sends and reports their
// completions.
type CollRun struct {
	C         *Collective
	Group     int
	Ranks     []int32
	Iter      int      // current iteration, from 0
	IterStart sim.Time // when the current iteration began
	phase     int      // alltoall: current phase
	left      int      // messages of the iteration (ring) or phase (alltoall) not yet complete
}

// Steps is the number of ring steps of the kind over n ranks (0 for alltoall).
func Steps(kind string, n int) int {
	switch kind {
	case "allreduce":
		return 2 * (n - 1)
	case "allgather", "reducescatter":
		return n - 1
	}
	return 0
}

// Chunk is the bytes of one message: size / N, at least 1.
func (r *CollRun) Chunk() int64 { return max(r.C.Size/int64(len(r.Ranks)), 1) }

// Begin starts iteration r.Iter at now and returns its first messages.
func (r *CollRun) Begin(now sim.Time) []Send {
	r.IterStart = now
	n := len(r.Ranks)
	if r.C.Kind == "alltoall" {
		r.phase = 0
		return r.phaseSends()
	}
	r.left = n * Steps(r.C.Kind, n)
	out := make([]Send, n)
	for k := range out {
		out[k] = r.ring(k, 0)
	}
	return out
}

func (r *CollRun) ring(rank, step int) Send {
	n := len(r.Ranks)
	return Send{Rank: rank, Step: step, Src: r.Ranks[rank], Dst: r.Ranks[(rank+1)%n], Size: r.Chunk()}
}

// phaseSends returns every rank's messages of the current alltoall phase: destination
// offsets d = 1 … N − 1 split into Phases contiguous blocks.
func (r *CollRun) phaseSends() []Send {
	n := len(r.Ranks)
	p := min(r.C.Phases, n-1)
	lo, hi := 1+r.phase*(n-1)/p, 1+(r.phase+1)*(n-1)/p
	var out []Send
	for k := 0; k < n; k++ {
		for d := lo; d < hi; d++ {
			out = append(out, Send{Rank: k, Step: r.phase, Src: r.Ranks[k], Dst: r.Ranks[(k+d)%n], Size: r.Chunk()})
		}
	}
	r.left = len(out)
	return out
}

// Completed reports that rank's message of step completed. It returns the messages this
// releases and whether the iteration is over.
func (r *CollRun) Completed(rank, step int) (next []Send, done bool) {
	r.left--
	n := len(r.Ranks)
	if r.C.Kind == "alltoall" {
		if r.left > 0 {
			return nil, false
		}
		r.phase++
		if r.phase < min(r.C.Phases, n-1) {
			return r.phaseSends(), false
		}
		return nil, true
	}
	if step+1 < Steps(r.C.Kind, n) {
		// The next rank has the chunk it reduces (or forwards) in its step + 1.
		next = []Send{r.ring((rank+1)%n, step+1)}
	}
	return next, r.left == 0
}

// Messages returns how many messages and payload bytes all iterations of c post over
// every group (an upper bound when the run ends first).
func (c *Collective) Messages() (count, bytes float64) {
	for _, g := range c.Groups {
		n := len(g)
		per := n * Steps(c.Kind, n)
		if c.Kind == "alltoall" {
			per = n * (n - 1)
		}
		chunk := max(c.Size/int64(n), 1)
		count += float64(per) * float64(c.Iterations)
		bytes += float64(per) * float64(c.Iterations) * float64(chunk)
	}
	return count, bytes
}
