package switchdev

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Test event kinds (owner 0x7f).
const (
	kindInject sim.Kind = sim.Kind(sim.OwnerTest)<<8 | 0x01 // Arg = index in fab.injects
	kindCall   sim.Kind = sim.Kind(sim.OwnerTest)<<8 | 0x02 // Arg = index in fab.calls
)

// delivery is a frame a test sink received.
type delivery struct {
	at   sim.Time
	link int
	typ  pkt.Type
	tc   int // data: DSCP>>3; PFC: the single named class
	q    uint16
	ecn  uint8
	size int32
}

type inject struct {
	sw   int
	port int16
	h    pkt.Handle
}

// fab is a test fabric: switches, links between them or to sinks, scripted senders.
type fab struct {
	t       testing.TB
	eng     *sim.Engine
	pool    *pkt.Pool
	sws     []*Switch
	links   []*link.Link
	injects []inject
	calls   []func()
	got     []delivery // frames delivered to sinks
	keep    bool       // record deliveries
	sunk    int64      // frames freed by sinks
	fired   int        // injections done
	afterSw func(sw int, ev sim.Event)
}

func newFab(t testing.TB) *fab {
	return &fab{t: t, eng: sim.NewEngine(), pool: &pkt.Pool{}, keep: true}
}

// newLink adds a link from switch sw's port to the given endpoint (a sink when Owner is test).
func (f *fab) newLink(sw int, port int16, to link.Endpoint, rate float64, delay sim.Time) *link.Link {
	l := &link.Link{ID: int32(len(f.links)), From: link.Endpoint{Owner: sim.OwnerSwitch, Dev: int32(sw), Port: port}, To: to, RateBps: rate, Delay: delay}
	f.links = append(f.links, l)
	return l
}

// addSwitch builds switch number len(f.sws) with n ports whose links go to sinks.
// Returns the switch; peers may be rewired with f.links[...].To before traffic.
func (f *fab) addSwitch(cfg *config.Switch, nodeID int64, n int, rate float64, delay sim.Time, route func(int32) []int16) *Switch {
	dev := len(f.sws)
	specs := make([]PortSpec, n)
	for i := 0; i < n; i++ {
		specs[i] = PortSpec{Out: f.newLink(dev, int16(i), link.Endpoint{Owner: sim.OwnerTest}, rate, delay), PeerTier: 3}
	}
	g := config.DefaultGlobal()
	sw, err := New(Identity{Dev: int32(dev), NodeID: nodeID, Name: "sw", Tier: 2}, cfg, &g, specs, route, f.eng, f.pool, 1)
	if err != nil {
		f.t.Fatal(err)
	}
	f.sws = append(f.sws, sw)
	return sw
}

// at schedules frame h to arrive on switch sw's port at time t.
func (f *fab) at(t sim.Time, sw int, port int16, h pkt.Handle) {
	f.injects = append(f.injects, inject{sw, port, h})
	f.eng.Schedule(t, kindInject, 0, 0, int64(len(f.injects)-1))
}

// do runs fn at time t.
func (f *fab) do(t sim.Time, fn func()) {
	f.calls = append(f.calls, fn)
	f.eng.Schedule(t, kindCall, 0, 0, int64(len(f.calls)-1))
}

func (f *fab) data(tc int, size int32, srcHost, dstHost int32, sport uint16) pkt.Handle {
	h, p := f.pool.New()
	p.Type = pkt.Data
	p.DSCP = uint8(tc * 8)
	p.Size = uint16(size)
	p.Proto = pkt.ProtoUDP
	p.SrcHost, p.DstHost = srcHost, dstHost
	p.SPort, p.DPort = sport, pkt.RoCEv2Port
	p.ECN = pkt.ECT0
	return h
}

func (f *fab) pfc(tc int, q uint16) pkt.Handle {
	h, p := f.pool.New()
	p.Type = pkt.Pfc
	p.Size = pfcL3
	p.PfcVector = 1 << tc
	p.PfcQuanta = q
	return h
}

func (f *fab) step(ev sim.Event) {
	switch ev.Kind.Owner() {
	case sim.OwnerLink:
		l := f.links[ev.Dev]
		h := l.Deliver(f.eng)
		if l.To.Owner == sim.OwnerSwitch {
			f.sws[l.To.Dev].Receive(l.To.Port, h)
			return
		}
		if f.keep {
			p := f.pool.Get(h)
			d := delivery{at: f.eng.Now(), link: int(ev.Dev), typ: p.Type, ecn: p.ECN, size: int32(p.Size)}
			if p.Type == pkt.Pfc {
				for tc := 0; tc < 8; tc++ {
					if p.PfcVector&(1<<tc) != 0 {
						d.tc, d.q = tc, p.PfcQuanta
					}
				}
			} else {
				d.tc = p.TC()
			}
			f.got = append(f.got, d)
		}
		f.sunk++
		f.pool.Free(h)
	case sim.OwnerSwitch:
		f.sws[ev.Dev].Handle(&ev)
		if f.afterSw != nil {
			f.afterSw(int(ev.Dev), ev)
		}
	case sim.OwnerTest:
		switch ev.Kind {
		case kindInject:
			in := f.injects[ev.Arg]
			f.fired++
			f.sws[in.sw].Receive(in.port, in.h)
		case kindCall:
			f.calls[ev.Arg]()
		}
	default:
		f.t.Fatalf("unexpected event %#04x", uint16(ev.Kind))
	}
}

// run processes events up to time until (sim.Never: until none is left).
func (f *fab) run(until sim.Time) {
	f.eng.SetStop(until)
	for {
		ev, ok := f.eng.Next()
		if !ok {
			return
		}
		f.step(ev)
	}
}

// checkConservation verifies every switch's ledgers and that every pooled frame is
// accounted for: live frames = held by switches + on links + not yet injected.
func (f *fab) checkConservation() {
	f.t.Helper()
	held := 0
	for _, sw := range f.sws {
		if err := sw.CheckConservation(); err != nil {
			f.t.Fatal(err)
		}
		held += sw.HeldFrames()
	}
	for _, l := range f.links {
		n, _ := l.InFlight()
		held += n
	}
	notYet := len(f.injects) - f.fired
	if got := f.pool.InUse(); got != held+notYet {
		f.t.Fatalf("pool holds %d frames, switches+links hold %d, %d not yet injected", got, held, notYet)
	}
}

// routeAll sends every destination to port e.
func routeAll(e int16) func(int32) []int16 {
	r := []int16{e}
	return func(int32) []int16 { return r }
}
