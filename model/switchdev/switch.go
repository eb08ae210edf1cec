package switchdev

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/internal/intern"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Event kinds of the switch (owner 0x01). Dev is the switch's Identity.Dev.
const (
	KindTxDone      sim.Kind = sim.Kind(sim.OwnerSwitch)<<8 | 0x01 // Port = egress port: serialization end (§5.4 step 4)
	KindPfcRefresh  sim.Kind = sim.Kind(sim.OwnerSwitch)<<8 | 0x02 // Port = ingress port, Arg = pool: pause refresh (§7.2)
	KindPauseExpiry sim.Kind = sim.Kind(sim.OwnerSwitch)<<8 | 0x03 // Port = egress port, Arg = TC: received pause ends (§7.3)
)

// KindName names a switch event kind for traces.
func KindName(k sim.Kind) string {
	switch k {
	case KindTxDone:
		return "switch.TxDone"
	case KindPfcRefresh:
		return "switch.PfcRefresh"
	case KindPauseExpiry:
		return "switch.PauseExpiry"
	}
	return fmt.Sprintf("switch.Kind(%#04x)", uint16(k))
}

// Identity names the switch in the fabric and in the records.
type Identity struct {
	Dev    int32 // index in the fabric's switch slice = Dev of this switch's events
	NodeID int64
	Name   string
	Tier   int   // 0 spine, 1 fabric, 2 rack
	Hosts  int32 // hosts in the fabric: sizes the per-destination route cache (0: grown on demand)
	// Keys, when set, number the destinations this switch tells apart (topo.RouteKeys):
	// the route cache holds one entry per key instead of one per host.
	Keys *DestKeys
	// Shared, when set, is where switches of one fabric find each other's read-only
	// per-frame parameters: switches of one configuration then read one copy, which
	// stays in the caches, instead of one each. Nil: the switch keeps its own.
	Shared *Shared
}

// Shared holds the distinct read-only per-frame parameters (frameParams) of a fabric's
// switches, and the slabs their values and ports are built in (Reserve). The zero value
// is ready; not safe for concurrent use (one per job).
type Shared struct {
	fps   []*frameParams
	sws   []Switch // switches not yet handed out by New
	ports []port   // ports not yet handed out by New
}

// Reserve sets aside one array for the next switches New builds with this Shared and
// one for their ports (ports in all): switches and ports by value, one after another,
// rather than each switch and each switch's ports their own allocation (whose size
// classes and page alignment would put every switch, and every switch's port i, on the
// same cache sets).
func (sh *Shared) Reserve(switches, ports int) {
	sh.sws = make([]Switch, switches)
	sh.ports = make([]port, ports)
}

// allocSwitch returns the next switch of the slab, or a new one when none is left.
func (sh *Shared) allocSwitch() *Switch {
	if sh == nil || len(sh.sws) == 0 {
		return new(Switch)
	}
	s := &sh.sws[0]
	sh.sws = sh.sws[1:]
	return s
}

// allocPorts returns the next n ports of the slab, or new ones when fewer are left.
func (sh *Shared) allocPorts(n int) []port {
	if sh == nil || len(sh.ports) < n {
		return make([]port, n)
	}
	p := sh.ports[:n:n]
	sh.ports = sh.ports[n:]
	return p
}

// intern returns the held copy equal to fp, holding fp's if there is none.
func (sh *Shared) intern(fp *frameParams) *frameParams {
	if sh == nil {
		return fp
	}
	return intern.Value(&sh.fps, fp)
}

// DestKeys is a dense numbering of destination hosts such that hosts with the same key
// have the same route at this switch (topo.RouteKeys): a host's attachment ordinal, or N
// + its slot among the hosts attached to this switch (ordinal Self).
type DestKeys struct {
	Attach []int32 // host -> attachment ordinal (shared, never modified)
	Slot   []int32 // host -> index among the hosts of its attachment switch (shared)
	Self   int32   // this switch's attachment ordinal, -1 if no host attaches to it
	N      int32   // attachment switches
	Size   int     // keys
}

// PortSpec describes one connected port.
type PortSpec struct {
	Out      *link.Link // transmit direction of this port: Out.RateBps = link operating rate, Out.Delay = link delay
	PeerTier int        // 0..3 (3 = NIC)
	Uplink   bool       // peer has a smaller tier number ("ul"), else "dl"
}

// Switch is one shared-buffer switch (switch.md). It is driven by the fabric: Receive for
// frames the links deliver, Handle for its own events. Not safe for concurrent use.
//
// Layout (TestSwitchHotLines): what every frame reads (line 0, with the buffer
// parameters by pointer: switches of one configuration share them, Identity.Shared), the
// per-frame counters (line 1), the route cache's line (ecmpState), then each pool's
// totals and views in lines of their own; what set-up, records and rare paths read comes
// last.
type Switch struct {
	eng       *sim.Engine
	pool      *pkt.Pool
	ports     []port
	dev       int32 // id.Dev: the Dev of this switch's events
	uet, trim bool
	pfcAware  bool
	flowlet   bool
	hashFn    uint8 // EcmpHashMethod: HashDPR...
	_         [7]byte
	fp        *frameParams // read-only; shared by the switches of one configuration

	c Counters

	ecmp ecmpState

	pools [8]swPool

	cfg   *config.Switch
	rng   *rand.Rand // ECN marking draws (DC-14)
	id    Identity
	g     *config.Global
	buf   Buffer
	lbRng *rand.Rand // flowlet tie draws: their own stream, so load balancing never shifts ECN draws
	route func(dstHost int32) []int16

	lastND, lastBuf, lastLB sim.Time
	// A Switch is a whole, odd number of lines (TestSwitchHotLines): in a slab
	// (Shared.Reserve) every switch's line 0 starts a line, and the switches' hot lines
	// spread over the cache's sets instead of sharing the few a power-of-two stride maps
	// them to.
	_ [24]byte
}

// frameParams are the buffer parameters (Buffer, switch.md §4), ECN settings (§9) and
// flowlet gap (§10.4) that admission, release, marking and load balancing read for every
// frame, copied in New: one line holds the class maps, port thresholds, the ECN
// average's weight and whether marking is on, then each pool's size, limit and ECN
// thresholds take 32 bytes (pools 0 and 1 share a line). In Buffer and config.Switch
// they sit in as many lines as there are fields, and a hop would read five or six cold
// lines of them. Never modified after New, so switches of one configuration share one
// copy (Shared): on a large fabric each switch's own copy would be cold at every frame.
type frameParams struct {
	poolOfTC    [8]uint8 // Buffer.PoolOfTC
	lossless    [8]bool  // Buffer.LosslessTC
	xoff, xon   int64    // Buffer.Xoff, Xon
	hdrmPerPort int64    // Buffer.HeadroomPerPort
	alpha       float64  // Buffer.Alpha
	ewma        float64  // EcnHandler.EwmaWeight (§9)
	limit       limitForm
	ecnOn       bool // EcnHandler.EnableEcn (§9)
	_           [6]byte
	pool        [8]poolParams
	gap         sim.Time // LoadBalancingFlowlet.Gap (§10.4)
}

// poolParams are one pool's Buffer.PoolSize, PerPortLimit, EcnMin and EcnMax.
type poolParams struct {
	size           int64
	perPortLimit   int64
	ecnMin, ecnMax float64
}

func newFrameParams(b *Buffer, limit limitForm) frameParams {
	fp := frameParams{lossless: b.LosslessTC, limit: limit, xoff: b.Xoff, xon: b.Xon, hdrmPerPort: b.HeadroomPerPort, alpha: b.Alpha}
	for i := 0; i < 8; i++ {
		fp.poolOfTC[i] = uint8(b.PoolOfTC[i])
		fp.pool[i] = poolParams{size: b.PoolSize[i], perPortLimit: b.PerPortLimit[i], ecnMin: b.EcnMin[i], ecnMax: b.EcnMax[i]}
	}
	return fp
}

// swPool is one pool's switch-wide state: its totals (switch.md §2) and its buffer-stats
// views (records.md §6), a view to a line, so that a frame touches three lines of its
// pool's (totals and shared, its ingress direction's, its egress direction's).
type swPool struct {
	ingTotal int64          // Σ ingOcc over ports (headroom excluded)
	egTotal  int64          // Σ egQ over ports
	shared   sampler        // sharedBuffer view
	ing, eg  [2]lineSampler // ingressUsage and egressQueue views by direction: 0 = ul, 1 = dl
}

// lineSampler is a sampler padded to a cache line.
type lineSampler struct {
	sampler
	_ [16]byte
}

// LBStream is the random stream of a switch's load-balancing draws: the switch owner
// byte in the top byte keeps it apart from the node-id ECN streams and every other
// owner's streams.
func LBStream(nodeID int64) uint64 {
	return uint64(sim.OwnerSwitch)<<56 | 1<<48 | uint64(uint32(nodeID))
}

// New builds a switch with one port per PortSpec (port id = index) and runs the buffer
// initialisation for N = len(ports). The route function returns the equal-cost egress
// ports (ascending ids) toward a host; the switch caches its answer per destination and
// keeps the slice as it is (route must return slices it never modifies: interned sets).
// seed is the job seed: ECN draws use sim.NewRand(seed, NodeID) (DC-14), flowlet ties
// their own stream sim.NewRand(seed, LBStream(NodeID)).
func New(id Identity, cfg *config.Switch, g *config.Global, ports []PortSpec, route func(dstHost int32) []int16, eng *sim.Engine, pool *pkt.Pool, seed uint64) (*Switch, error) {
	b, err := InitBuffer(cfg, len(ports))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id.Name, err)
	}
	s := id.Shared.allocSwitch()
	*s = Switch{
		id: id, dev: id.Dev, cfg: cfg, g: g, buf: b, eng: eng, pool: pool, route: route,
		rng:      sim.NewRand(seed, uint64(id.NodeID)),
		lbRng:    sim.NewRand(seed, LBStream(id.NodeID)),
		ports:    id.Shared.allocPorts(len(ports)),
		uet:      cfg.SharedBufferManager.UETPolicyEnabled,
		trim:     cfg.SharedBufferManager.UETPolicyEnabled && cfg.PacketTrimmer.TrimmingEnabled,
		flowlet:  cfg.LoadBalancingMethod == "flowlet",
		pfcAware: cfg.LoadBalancingFlowlet.PFCAware,
	}
	if k := id.Keys; k != nil {
		s.ecmp.keys, s.ecmp.attach, s.ecmp.self, s.ecmp.n = k, k.Attach, k.Self, k.N
		s.ecmp.dst = make([]int32, k.Size)
	} else {
		s.ecmp.dst = make([]int32, id.Hosts)
	}
	limit, err := parseLimitForm(b.LimitForm)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id.Name, err)
	}
	fp := newFrameParams(&b, limit)
	fp.ewma, fp.ecnOn = cfg.EcnHandler.EwmaWeight, cfg.EcnHandler.EnableEcn
	fp.gap = cfg.LoadBalancingFlowlet.Gap
	s.fp = id.Shared.intern(&fp)
	hashFn, err := hashMethod(cfg.EcmpHashMethod)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id.Name, err)
	}
	s.hashFn = uint8(hashFn)
	s.ecmp.salt = Salt(id.NodeID)
	s.ecmp.crcSaltK = crcSaltK(s.ecmp.salt)
	for i := range ports {
		if ports[i].Out == nil {
			return nil, fmt.Errorf("%s: port %d has no link", id.Name, i)
		}
		pt := &s.ports[i]
		pt.out, pt.rate, pt.uplink, pt.peerTier = ports[i].Out, ports[i].Out.RateBps, ports[i].Uplink, int8(ports[i].PeerTier)
		pt.rxUplink = pt.uplink
		for p := 0; p < 8; p++ {
			if b.Group[p] != 0 {
				pt.refresh[p] = eng.NewTimer(KindPfcRefresh, id.Dev, int16(i), int64(p))
			}
		}
		for tc := 0; tc < 8; tc++ {
			pt.expiry[tc] = eng.NewTimer(KindPauseExpiry, id.Dev, int16(i), int64(tc))
		}
		if cfg.SharedBufferManager.ReportPerPortBufferStats {
			pt.views = &portViews{}
			pt.egViews, pt.rxViews = true, true
			for p := 0; p < 8; p++ {
				pt.views.eg[p].restart()
				pt.views.ing[p].restart()
				pt.views.hdrm[p].restart()
			}
		}
	}
	for p := range s.pools {
		sp := &s.pools[p]
		for d := 0; d < 2; d++ {
			sp.eg[d].restart()
			sp.ing[d].restart()
		}
		sp.shared.restart()
	}
	return s, nil
}

// Buffer returns the switch's buffer set-up (switch.md §4).
func (s *Switch) Buffer() Buffer { return s.buf }

// NumPorts is the number of connected ports N.
func (s *Switch) NumPorts() int { return len(s.ports) }

// Handle runs one of the switch's own events (kinds 0x01xx).
// PrefetchTx hints the processor to load the first lines a serialization end on port e
// reads: the port's egress line and its class queues.
func (s *Switch) PrefetchTx(e int16) {
	if uint(e) < uint(len(s.ports)) {
		pt := &s.ports[e]
		sim.Prefetch(unsafe.Pointer(pt))
		sim.Prefetch(unsafe.Pointer(&pt.fifo[0]))
	}
}

// PrefetchTxDeep hints the processor to load what a serialization end on port e reads
// once the port's lines are in: its link, the ingress line of the frame's arrival port
// and the head of the class queue served next.
func (s *Switch) PrefetchTxDeep(e int16) {
	if uint(e) >= uint(len(s.ports)) {
		return
	}
	pt := &s.ports[e]
	sim.Prefetch(unsafe.Pointer(pt.out))
	if in := pt.tx.in; uint(in) < uint(len(s.ports)) {
		sim.Prefetch(unsafe.Pointer(&s.ports[in].xoff))
	}
	s.prefetchPool(int(pt.txTC))
	if pt.queued != 0 {
		if h := pt.fifo[bits.Len8(pt.queued)-1].Head(); h != nil {
			sim.Prefetch(unsafe.Pointer(h))
		}
	}
}

// prefetchPool hints the lines of class tc's pool: its totals and its views by
// direction, which a frame's admission, transmission and release update.
func (s *Switch) prefetchPool(tc int) {
	sim.PrefetchSpan(unsafe.Pointer(&s.pools[s.fp.poolOfTC[tc&7]]), int(unsafe.Sizeof(swPool{})/64))
}

// PrefetchRx hints the processor to load the first lines frame p arriving on port i
// reads: the port's ingress line, its class's pool and the route cache's entry.
func (s *Switch) PrefetchRx(i int16, p *pkt.Packet) {
	if uint(i) < uint(len(s.ports)) {
		sim.Prefetch(unsafe.Pointer(&s.ports[i].xoff))
	}
	s.prefetchPool(s.classify(p))
	dst := p.DstHost
	es := &s.ecmp
	if dst < 0 || (es.attach != nil && int(dst) >= len(es.attach)) {
		return
	}
	key := dst
	if es.attach != nil {
		if a := es.attach[dst]; a != es.self {
			key = a
		} else if int(dst) < len(es.keys.Slot) {
			key = es.n + es.keys.Slot[dst]
		}
	}
	if uint(key) < uint(len(es.dst)) {
		sim.Prefetch(unsafe.Pointer(&es.dst[key]))
	}
}

func (s *Switch) Handle(ev *sim.Event) {
	switch ev.Kind {
	case KindTxDone:
		s.txDone(int(ev.Port), pkt.Handle(ev.Arg))
	case KindPfcRefresh:
		s.refreshPause(int(ev.Port), int(ev.Arg))
	case KindPauseExpiry:
		s.pauseExpired(int(ev.Port), int(ev.Arg))
	default:
		panic(fmt.Sprintf("switchdev: %s got event %s", s.id.Name, KindName(ev.Kind)))
	}
}
