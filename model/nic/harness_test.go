package nic

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

const kindTest sim.Kind = sim.Kind(sim.OwnerTest)<<8 | 0x01

// pair is two NICs back to back: links[i] carries nics[i]'s frames to nics[1-i]. sw, when
// set, sees every frame before delivery (a scripted switch stand-in): returning false
// drops it (the harness frees it and counts it in dropped[from]).
type pair struct {
	t       testing.TB
	eng     *sim.Engine
	pool    *pkt.Pool
	nics    [2]*NIC
	links   [2]*link.Link
	sw      func(from int, h pkt.Handle, p *pkt.Packet) bool
	dropped [2]int64
	fns     []func()
	done    []Completion
	recv    [2]int64 // payload delivered to host, per receiving NIC
}

func defaultCfgs() (config.NIC, config.NIC) { return config.DefaultNIC(), config.DefaultNIC() }

func newPair(t testing.TB, a, b *config.NIC) *pair {
	t.Helper()
	return newPairGlobal(t, a, b, config.DefaultGlobal())
}

// newPairGlobal is newPair with simulation-wide settings of its own.
func newPairGlobal(t testing.TB, a, b *config.NIC, g config.Global) *pair {
	t.Helper()
	pr := &pair{t: t, eng: sim.NewEngine(), pool: &pkt.Pool{}}
	cfgs := [2]*config.NIC{a, b}
	rate := min(float64(a.NetworkInterface.UplinkNetworkInterface.DataRate), float64(b.NetworkInterface.UplinkNetworkInterface.DataRate))
	for i := 0; i < 2; i++ {
		pr.links[i] = &link.Link{ID: int32(i), RateBps: rate, Delay: cfgs[i].NetworkInterface.TransmissionMedium.Delay,
			From: link.Endpoint{Owner: sim.OwnerNIC, Dev: int32(i)}, To: link.Endpoint{Owner: sim.OwnerNIC, Dev: int32(1 - i)}}
	}
	for i := 0; i < 2; i++ {
		n, err := New(Identity{Dev: int32(i), NodeID: int64(10 + i), Name: []string{"Host-A", "Host-B"}[i], Host: int32(i)},
			cfgs[i], &g, pr.links[i], pr.eng, pr.pool, 1)
		if err != nil {
			t.Fatal(err)
		}
		i := i
		n.OnComplete = func(c Completion) { pr.done = append(pr.done, c) }
		n.OnDelivered = func(src int32, b int64) { pr.recv[i] += b }
		pr.nics[i] = n
	}
	return pr
}

// at runs f at time t.
func (pr *pair) at(t sim.Time, f func()) {
	pr.fns = append(pr.fns, f)
	pr.eng.Schedule(t, kindTest, 0, 0, int64(len(pr.fns)-1))
}

// every runs f every d from d on until (and including) end.
func (pr *pair) every(d, end sim.Time, f func()) {
	for t := d; t <= end; t += d {
		pr.at(t, f)
	}
}

// run dispatches events until none is left or the next is after until.
func (pr *pair) run(until sim.Time) {
	pr.eng.SetStop(until)
	for ev, ok := pr.eng.Next(); ok; ev, ok = pr.eng.Next() {
		switch ev.Kind.Owner() {
		case sim.OwnerLink:
			h := pr.links[ev.Dev].Deliver(pr.eng)
			from := int(ev.Dev)
			if pr.sw != nil && !pr.sw(from, h, pr.pool.Get(h)) {
				pr.pool.Free(h)
				pr.dropped[from]++
				continue
			}
			pr.nics[1-from].Receive(h)
		case sim.OwnerNIC:
			pr.nics[ev.Dev].Handle(&ev)
		case sim.OwnerTest:
			pr.fns[ev.Arg]()
		default:
			pr.t.Fatalf("unexpected event %#x", uint16(ev.Kind))
		}
	}
}

// post posts a WRITE of size bytes from nic i to the other host on (qp, data 0, ctrl 1).
func (pr *pair) post(i int, qp int32, size int64, tag int64) {
	pr.nics[i].Post(WorkRequest{Dst: int32(1 - i), QP: qp, Size: size, Verb: Write, DataTC: 0, CtrlTC: 1, Tag: tag})
}

// ps converts nanoseconds given as a float to picoseconds, rounded.
func ns(f float64) sim.Time { return sim.Time(f*1000 + 0.5) }
