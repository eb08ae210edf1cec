package switchdev

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/rocesweep/rocesweep/model/config"
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

// UET DSCP codepoints (switch.md §6.2, DC-11: the suggested values). The NIC model of
// nic.md does not emit them; they are exported so a UET-capable sender can share them.
const (
	DSCPControl        = 46
	DSCPTrimmable      = 8
	DSCPTrimmableRetx  = 10
	DSCPNoTrim         = 12
	DSCPTrimmed        = 16
	DSCPTrimmedLastHop = 18
)

// trimmedL3 is the L3 length of a trimmed packet: 20 B IPv4 + 8 B UDP + 16 B of transport
// header (switch.md §6.3, DC-12); charged at least 46 B like any frame.
const trimmedL3 = 20 + 8 + 16

// pfcL3 makes a PFC frame 84 B on the wire (DC-8): Wire() = 66 + 18.
const pfcL3 = pkt.PfcWire - pkt.EthOverhead

// Identity names the switch in the fabric and in the records.
type Identity struct {
	Dev    int32 // index in the fabric's switch slice = Dev of this switch's events
	NodeID int64
	Name   string
	Tier   int   // 0 spine, 1 fabric, 2 rack
	Hosts  int32 // hosts in the fabric: sizes the per-destination route cache (0: grown on demand)
	// Keys, when set, number the destinations this switch tells apart (topo.RouteKeys):
	// the route cache holds one entry per key instead of one per host (issue 15).
	Keys *DestKeys
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

// ring is a FIFO that grows by doubling and is reused: no allocation once it has reached
// its working size.
type ring[T any] struct {
	buf     []T
	head, n uint32
}

func (r *ring[T]) push(v T) {
	if int(r.n) == len(r.buf) {
		size := 2 * len(r.buf)
		if size == 0 {
			size = 64
		}
		nb := make([]T, size)
		for i := uint32(0); i < r.n; i++ {
			nb[i] = r.buf[int(r.head+i)&(len(r.buf)-1)]
		}
		r.buf, r.head = nb, 0
	}
	r.buf[int(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

func (r *ring[T]) pop() T {
	v := r.buf[r.head]
	r.head = (r.head + 1) & uint32(len(r.buf)-1)
	r.n--
	return v
}

// qent is a queued data frame with its admission tag {ingressPort, bytes} (switch.md §2):
// what scheduling, transmission and release need, so that a frame's 64-byte packet is read
// only at Receive (issue 15). Its class is the FIFO it waits in, its pool and losslessness
// follow from the class (PoolOfTC, LosslessTC; a trimmed frame is TC1 in pool 1, and the
// UET policy maps TC1 to pool 1, §6.1, §6.3). 8 bytes, eight to a cache line.
type qent struct {
	h  pkt.Handle
	in int16  // ingress port
	b  uint16 // charged bytes (at most MSS + 58 < 2^15); top bit: ECN-capable transport
}

const qentECT = 1 << 15

func (q qent) bytes() int64 { return int64(q.b &^ qentECT) }

func (q qent) ect() bool { return q.b&qentECT != 0 }

// sampler is one buffer-stats view (records.md §6, RC-15): the current occupancy, bytes
// ever charged, and the interval samples (one carried over at interval start, one after
// every charge or release).
type sampler struct {
	cur, total    int64
	cnt, min, max int64
	sum           float64
}

func (s *sampler) add(d int64) {
	s.cur += d
	if d > 0 {
		s.total += d
	}
	s.cnt++
	if s.cur < s.min {
		s.min = s.cur
	}
	if s.cur > s.max {
		s.max = s.cur
	}
	s.sum += float64(s.cur)
}

// restart begins a new interval with the carried-over sample.
func (s *sampler) restart() {
	s.cnt, s.min, s.max, s.sum = 1, s.cur, s.cur, float64(s.cur)
}

// pauseLog accumulates received-pause time of one port × TC (records.md §4, RC-11).
type pauseLog struct {
	since       sim.Time // start of the open episode; valid while open
	open        bool
	total       sim.Time // closed episodes, cumulative
	ivlStart    sim.Time // start of the current report interval
	ivlClosed   sim.Time // closed time inside the current interval
	ivlMaxEpoch sim.Time // longest closed episode part inside the interval
}

func (l *pauseLog) start(now sim.Time) {
	if !l.open {
		l.open, l.since = true, now
	}
}

func (l *pauseLog) end(now sim.Time) {
	if !l.open {
		return
	}
	l.open = false
	l.total += now - l.since
	part := now - max(l.since, l.ivlStart)
	l.ivlClosed += part
	l.ivlMaxEpoch = max(l.ivlMaxEpoch, part)
}

// poolState is one port's per-pool buffer state (switch.md §2), together so that the
// admission, release and ECN work of a frame touches one cache line of the port.
type poolState struct {
	ingOcc int64   // ingress occupancy charged to this port and pool (headroom excluded)
	hdrm   int64   // headroom charged (lossless pools)
	egQ    int64   // egress queue bytes of this port and pool
	avgQ   float64 // §9 ECN moving average of egQ
}

// port is one connected port: its transmit side (queues, scheduler, received pauses)
// and its ingress ledger (ingOcc, hdrm, xoff) per pool (switch.md §2).
//
// Layout (issue 15, TestPortHotLines): line 0 holds what the port touches as an egress
// for every frame (flags, the frame on the wire, the link, transmit counters), line 1
// what it touches as an ingress (xoff, receive counters), then the per-pool state (two
// pools to a line), the queues of classes 0 and 1 in one line, and last what only PFC,
// records and checks read. A hop touches two lines of its ingress port and three of its
// egress port, besides the queue slot.
type port struct {
	busy      bool  // a frame is being serialised
	busyPfc   bool  // ... and it is a PFC frame this switch made
	queued    uint8 // bit tc set: fifo[tc] holds frames (the scheduler skips empty classes)
	paused    uint8 // bit tc set: a pause received on this port may hold tc (pausedBy)
	pfcQueued bool  // pfcQ holds frames
	txTC      uint8 // class of the data frame being serialised
	uplink    bool  // peer has a smaller tier number ("ul"), else "dl"
	peerTier  int8  // 0..3 (3 = NIC)
	tx        qent  // the data frame being serialised
	out       *link.Link
	// port-buffer-stats views: nil unless ReportPerPortBufferStats (1,152 B a port that
	// a large fabric should not pay for when nobody asked).
	views *portViews
	// Counters (§8; DC-13: frames and wire bytes incl. PFC), and the conservation
	// ledger in charged bytes (by ingress port: rx, sent; egress: admitted, sent).
	txFrames, txBytes  int64
	egAdmitted, egSent int64

	xoff                   [8]bool // per pool: a pause is out (§2)
	rxFrames, rxBytes      int64
	rxCharged, sentCharged int64
	txDrops, rxDrops       int64
	dropCharged            int64

	pl [8]poolState // per pool (§2)

	fifo [8]ring[qent]    // per TC, no length limit of its own
	pfcQ ring[pkt.Handle] // §5.4 step 1: control frames, served first

	rxPausedUntil [8]sim.Time // per TC (§7.3)
	refresh       [8]sim.TimerID
	expiry        [8]sim.TimerID
	pause         [8]pauseLog
	xoffSince     [8]sim.Time // per pool: when xoff last went true (StuckPauses; PFC only, so cold)

	pauseTx, pauseRx   [8]int64
	resumeTx, resumeRx [8]int64
	ecnMarks           [8]int64
	ivlTxBytes         int64 // txBytes at the previous nd-stats row
	ivlRxBytes         int64

	trimCharged int64
	_           int64 // a whole number of lines, so every port of a switch starts a line
}

// portViews are one port's egressQueue, ingressUsage and hdrm samplers per pool (RC-17).
type portViews struct {
	eg, ing, hdrm [8]sampler
}

// Counters are the switch totals the job summary and conservation checks read. The
// eight that every frame updates come first: one cache line (issue 15).
type Counters struct {
	RxFrames, RxBytes   int64 // every frame received, wire bytes, PFC included
	TxFrames, TxBytes   int64 // every frame sent, wire bytes, PFC included
	Forwarded           int64 // egress-admitted packets (tier-hop, records.md RC-20)
	MaxEgressQueueBytes int64 // max egQ[e][p] ever
	MaxIngressPortBytes int64 // max ingOcc[i][p] ever
	MaxPoolBytes        int64 // max ingTotal[p] ever

	RxPfcFrames      int64    // PFC frames received (consumed at ingress)
	TxPfcFrames      int64    // PFC frames sent
	DropsLossless    int64    // packets of lossless classes dropped (rx + tx)
	DropsLossy       int64    // packets of lossy classes dropped (rx + tx)
	DropsTC          [8]int64 // packets dropped (rx + tx) by the TC they were classified in
	RxDrops, TxDrops int64    // ingress-admission / egress-admission drops
	NoRoute          int64    // packets dropped for an empty route (integration bug; in RxDrops)
	DroppedBytes     int64    // charged bytes of dropped packets
	BufferedBytes    int64    // charged bytes currently held (Σ ingOcc + hdrm)
	PfcPauseTx       int64    // pause frames sent, refreshes included
	PfcResumeTx      int64    // resume frames sent
	PfcPauseRx       int64    // pause frames received
	PfcResumeRx      int64    // resume frames received
	PfcPausedTime    sim.Time // received-pause time over ports × TCs, open pauses to now
	EcnMarked        int64    // packets marked CE
	Trimmed          int64    // packets trimmed (§6.3)
}

// Switch is one shared-buffer switch (switch.md). It is driven by the fabric: Receive for
// frames the links deliver, Handle for its own events. Not safe for concurrent use.
//
// Layout (issue 15, TestSwitchHotLines): what every frame reads (line 0), the per-frame
// counters (line 1), then each pool's totals and views in lines of their own.
type Switch struct {
	eng       *sim.Engine
	pool      *pkt.Pool
	ports     []port
	cfg       *config.Switch
	rng       *rand.Rand // ECN marking draws (DC-14)
	dev       int32      // id.Dev: the Dev of this switch's events
	uet, trim bool
	pfcAware  bool
	flowlet   bool

	c Counters

	pools [8]swPool

	id    Identity
	g     *config.Global
	buf   Buffer
	lbRng *rand.Rand // flowlet tie draws: their own stream, so load balancing never shifts ECN draws
	route func(dstHost int32) []int16

	ecmp ecmpState

	gap    sim.Time
	hashFn int

	lastND, lastBuf, lastLB sim.Time
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
	s := &Switch{
		id: id, dev: id.Dev, cfg: cfg, g: g, buf: b, eng: eng, pool: pool, route: route,
		rng:      sim.NewRand(seed, uint64(id.NodeID)),
		lbRng:    sim.NewRand(seed, LBStream(id.NodeID)),
		ports:    make([]port, len(ports)),
		uet:      cfg.SharedBufferManager.UETPolicyEnabled,
		trim:     cfg.SharedBufferManager.UETPolicyEnabled && cfg.PacketTrimmer.TrimmingEnabled,
		flowlet:  cfg.LoadBalancingMethod == "flowlet",
		pfcAware: cfg.LoadBalancingFlowlet.PFCAware,
		gap:      cfg.LoadBalancingFlowlet.Gap,
	}
	if id.Keys != nil {
		s.ecmp.keys = id.Keys
		s.ecmp.dst = make([]int32, id.Keys.Size)
	} else {
		s.ecmp.dst = make([]int32, id.Hosts)
	}
	s.hashFn, err = hashMethod(cfg.EcmpHashMethod)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", id.Name, err)
	}
	s.ecmp.salt = Salt(id.NodeID)
	s.ecmp.crcSaltK = crcSaltK(s.ecmp.salt)
	for i := range ports {
		if ports[i].Out == nil {
			return nil, fmt.Errorf("%s: port %d has no link", id.Name, i)
		}
		pt := &s.ports[i]
		pt.out, pt.uplink, pt.peerTier = ports[i].Out, ports[i].Uplink, int8(ports[i].PeerTier)
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

func dir(uplink bool) int {
	if uplink {
		return 0
	}
	return 1
}

// pausedBy reports whether the peer of port e has paused class tc (§5.4: now <
// rxPausedUntil). The paused bit is set with rxPausedUntil and cleared when the pause is
// lifted or expires (at now = rxPausedUntil), so a clear bit means not paused without
// reading rxPausedUntil's cache line.
func (pt *port) pausedBy(tc int, now sim.Time) bool {
	return pt.paused&(1<<tc) != 0 && now < pt.rxPausedUntil[tc]
}

// classify is switch.md §5.1 (tc = DSCP >> 3) or §6.2 under the UET policy (codepoints).
func (s *Switch) classify(p *pkt.Packet) int {
	if !s.uet {
		return p.TC()
	}
	switch p.DSCP {
	case DSCPControl:
		return 2
	case DSCPTrimmed, DSCPTrimmedLastHop:
		return 1
	}
	return 0
}

// ---- ingress -------------------------------------------------------------------------

// Receive handles a frame that arrived on port i (the link delivered it).
func (s *Switch) Receive(i int16, h pkt.Handle) {
	now := s.eng.Now()
	pt := &s.ports[i]
	p := s.pool.Get(h)
	wire := p.Wire()
	if p.Type == pkt.Pfc {
		wire = pkt.PfcWire
	}
	pt.rxFrames++
	pt.rxBytes += wire
	s.c.RxFrames++
	s.c.RxBytes += wire

	// §5.2: a PFC frame is consumed at ingress, never buffered or forwarded.
	if p.Type == pkt.Pfc {
		s.handleReceivedPFC(int(i), p, now)
		s.pool.Free(h)
		return
	}

	// §5.1 classification and charged size b = max(46, L3).
	tc := s.classify(p)
	pl := s.buf.PoolOfTC[tc]
	lossless := s.buf.LosslessTC[tc]
	b := p.Charge()
	pt.rxCharged += b
	if b >= qentECT {
		panic(fmt.Sprintf("switchdev: %s: frame of %d B charged", s.id.Name, b))
	}
	q := qent{h: h, in: i, b: uint16(b)}
	if p.IsECT() {
		q.b |= qentECT
	}

	inHdrm := false
	if lossless && pt.xoff[pl] {
		// §5.2: already paused → charge headroom (cap per port per lossless pool, DC-3);
		// not pool-checked; drop when headroom would overflow.
		if pt.pl[pl].hdrm+b > s.buf.HeadroomPerPort {
			s.rxDrop(int(i), h, b, lossless)
			return
		}
		pt.pl[pl].hdrm += b
		if pt.views != nil {
			pt.views.hdrm[pl].add(b)
		}
		inHdrm = true
	} else {
		// §5.2: Xoff test before the charge, strictly greater; the packet is still admitted.
		if lossless && pt.pl[pl].ingOcc+b > s.buf.Xoff {
			s.sendPause(int(i), pl)
		}
		// Charge (lossy: same, no PFC test).
		pt.pl[pl].ingOcc += b
		s.pools[pl].ingTotal += b
		// §5.2 pool overflow: roll back and drop, whatever the class. A pause already
		// sent for this packet stands (DC-7).
		if s.pools[pl].ingTotal > s.buf.PoolSize[pl] {
			pt.pl[pl].ingOcc -= b
			s.pools[pl].ingTotal -= b
			s.rxDrop(int(i), h, b, lossless)
			return
		}
		s.chargeIngressViews(pt, pl, b)
	}

	// forward: the queue entry q carries the tag {tc, pool, ingressPort, bytes} (§2) for
	// the release.

	// §10 route lookup.
	e, dec := s.selectEgress(p, tc, now)
	if e < 0 {
		// No route: undo the ingress charge and count an rx drop (integration bug).
		if inHdrm {
			pt.pl[pl].hdrm -= b
			if pt.views != nil {
				pt.views.hdrm[pl].add(-b)
			}
		} else {
			pt.pl[pl].ingOcc -= b
			s.pools[pl].ingTotal -= b
			s.chargeIngressViews(pt, pl, -b)
		}
		s.c.NoRoute++
		s.rxDrop(int(i), h, b, lossless)
		return
	}
	s.egressAdmit(int(e), q, p, tc, dec, now)
}

// chargeIngressViews samples the ingressUsage and sharedBuffer views after an ingOcc change.
func (s *Switch) chargeIngressViews(pt *port, pl int, d int64) {
	s.pools[pl].ing[dir(pt.uplink)].add(d)
	s.pools[pl].shared.add(d)
	if pt.views != nil {
		pt.views.ing[pl].add(d)
	}
	if pt.pl[pl].ingOcc > s.c.MaxIngressPortBytes {
		s.c.MaxIngressPortBytes = pt.pl[pl].ingOcc
	}
	if s.pools[pl].ingTotal > s.c.MaxPoolBytes {
		s.c.MaxPoolBytes = s.pools[pl].ingTotal
	}
}

// rxDrop drops a packet at ingress admission: the arriving port's receive-drop counter
// (§5.2 rxDrop). The caller has undone any charge.
func (s *Switch) rxDrop(i int, h pkt.Handle, b int64, lossless bool) {
	pt := &s.ports[i]
	pt.rxDrops++
	pt.dropCharged += b
	s.c.RxDrops++
	s.c.DropsTC[s.classify(s.pool.Get(h))]++
	s.countDrop(b, lossless)
	s.pool.Free(h)
}

func (s *Switch) countDrop(b int64, lossless bool) {
	s.c.DroppedBytes += b
	if lossless {
		s.c.DropsLossless++
	} else {
		s.c.DropsLossy++
	}
}

// ---- egress --------------------------------------------------------------------------

// egressLimitExceeded is the lossy test of §5.3: over the port's limit L (§4.4) or over the
// pool's egress capacity. "Exceeded" is strictly greater.
func (s *Switch) egressLimitExceeded(e int, pl int, b int64, retx bool) bool {
	q := s.ports[e].pl[pl].egQ
	if s.pools[pl].egTotal+b > s.buf.PoolSize[pl] {
		return true
	}
	if s.buf.LimitForm == LimitDynamic {
		// Dynamic: LossyAlpha × (poolSize − egTotal) in float64, per packet, before it is counted.
		return float64(q+b) > s.buf.Alpha*float64(s.buf.PoolSize[pl]-s.pools[pl].egTotal)
	}
	L := s.buf.PerPortLimit[pl]
	if retx {
		L = s.buf.RetxLimit[pl] // §6.1: trimmable-retransmit codepoint may use 1.5 × B
	}
	return q+b > L
}

// egressAdmit is switch.md §5.3 for a packet already charged at ingress.
func (s *Switch) egressAdmit(e int, q qent, p *pkt.Packet, tc int, dec lbDecision, now sim.Time) {
	pl, b := s.buf.PoolOfTC[tc], q.bytes()
	if !s.buf.LosslessTC[tc] {
		retx := s.uet && p.DSCP == DSCPTrimmableRetx
		if s.egressLimitExceeded(e, pl, b, retx) {
			// §6.3: trim eligible packets instead of dropping them.
			if s.trim && (p.DSCP == DSCPTrimmable || p.DSCP == DSCPTrimmableRetx) {
				s.trimAndReoffer(e, q, p, tc, dec, now)
				return
			}
			// §5.3: an egress drop releases the ingress charge (lossy) and counts a tx drop.
			s.releaseIngress(q.in, pl, b, true)
			s.txDrop(e, q.h, q.in, tc, b, false)
			return
		}
	}
	s.enqueue(e, q, tc, dec, now)
}

// enqueue charges the egress queue (lossless without checks), updates the ECN average,
// commits the load-balancing decision and queues the packet in FIFO[e][tc] (§5.3).
func (s *Switch) enqueue(e int, q qent, tc int, dec lbDecision, now sim.Time) {
	pt := &s.ports[e]
	pl, b := s.buf.PoolOfTC[tc], q.bytes()
	pt.pl[pl].egQ += b
	s.pools[pl].egTotal += b
	pt.egAdmitted += b
	if pt.pl[pl].egQ > s.c.MaxEgressQueueBytes {
		s.c.MaxEgressQueueBytes = pt.pl[pl].egQ
	}
	s.pools[pl].eg[dir(pt.uplink)].add(b)
	if pt.views != nil {
		pt.views.eg[pl].add(b)
	}
	// §9: EWMA at every egress admission, after the packet is counted.
	w := s.cfg.EcnHandler.EwmaWeight
	pt.pl[pl].avgQ = (1-w)*pt.pl[pl].avgQ + w*float64(pt.pl[pl].egQ)
	// §10.3, §10.4: commit the flowlet choice and count the member's traffic.
	s.lbOnAdmit(e, b, dec, now)
	s.c.Forwarded++
	if !pt.busy && pt.queued == 0 && !pt.pfcQueued && !pt.pausedBy(tc, now) {
		// An idle port with nothing queued sends the frame at once: startNext would pick it
		// right after the push (§5.4; an idle port holds no PFC frame), so it skips the FIFO.
		s.transmit(e, q, tc, now)
		return
	}
	pt.fifo[tc].push(q)
	pt.queued |= 1 << tc
	if !pt.busy {
		s.startNext(e)
	}
}

// trimAndReoffer is switch.md §6.3: cut to headers, re-mark, move the ingress charge to
// pool 1 (no capacity test), offer again to TC1 of the same port with the lossy check.
func (s *Switch) trimAndReoffer(e int, q qent, p *pkt.Packet, tc int, dec lbDecision, now sim.Time) {
	in := &s.ports[q.in]
	old := q.bytes()
	s.releaseIngress(q.in, s.buf.PoolOfTC[tc], old, true)
	p.Size = trimmedL3
	if s.ports[e].peerTier == 3 {
		p.DSCP = DSCPTrimmedLastHop // DC-12: last hop toward a NIC
	} else {
		p.DSCP = DSCPTrimmed
	}
	nb := p.Charge()
	in.trimCharged += old - nb
	const tp = 1
	in.pl[tp].ingOcc += nb
	s.pools[tp].ingTotal += nb
	s.chargeIngressViews(in, tp, nb)
	// The new tag: TC1, pool 1 (PoolOfTC[1] = 1 under the UET policy, §6.1), nb bytes.
	q.b = uint16(nb) | q.b&qentECT
	lossless := s.buf.LosslessTC[1]
	s.c.Trimmed++
	if !lossless && s.egressLimitExceeded(e, tp, nb, false) {
		s.releaseIngress(q.in, tp, nb, true)
		s.txDrop(e, q.h, q.in, 1, nb, lossless)
		return
	}
	s.enqueue(e, q, 1, dec, now)
}

// txDrop drops a packet at egress admission: the egress port's transmit-drop counter.
func (s *Switch) txDrop(e int, h pkt.Handle, in int16, tc int, b int64, lossless bool) {
	pt := &s.ports[e]
	pt.txDrops++
	s.ports[in].dropCharged += b
	s.c.TxDrops++
	s.c.DropsTC[tc&7]++
	s.countDrop(b, lossless)
	s.pool.Free(h)
}

// releaseIngress undoes the ingress charge of an admitted packet (switch.md §5.5): b
// bytes in pool pl charged to ingress port in.
func (s *Switch) releaseIngress(in int16, pl int, b int64, lossy bool) {
	i := int(in)
	pt := &s.ports[i]
	if lossy {
		pt.pl[pl].ingOcc -= b
		s.pools[pl].ingTotal -= b
		s.chargeIngressViews(pt, pl, -b)
		return
	}
	// Headroom repaid first, regardless of which packet was charged there.
	hr := min(pt.pl[pl].hdrm, b)
	if hr > 0 {
		pt.pl[pl].hdrm -= hr
		if pt.views != nil {
			pt.views.hdrm[pl].add(-hr)
		}
	}
	if r := b - hr; r > 0 {
		pt.pl[pl].ingOcc -= r
		s.pools[pl].ingTotal -= r
		s.chargeIngressViews(pt, pl, -r)
	}
	// §5.5 resume test, only on lossless departures (DC-9: lossy releases never resume).
	if pt.xoff[pl] && pt.pl[pl].hdrm == 0 && pt.pl[pl].ingOcc <= s.buf.Xon {
		s.sendResume(i, pl)
	}
}

// ---- scheduling and transmission -----------------------------------------------------

// startNext is switch.md §5.4: PFC queue first, then strict priority TC7..TC0 skipping
// classes the peer paused; at transmit start the ECN decision, then the link is occupied
// for the serialization time. Nothing eligible ⇒ the port idles until re-kicked.
func (s *Switch) startNext(e int) {
	pt := &s.ports[e]
	now := s.eng.Now()
	if pt.pfcQueued {
		h := pt.pfcQ.pop()
		pt.pfcQueued = pt.pfcQ.n > 0
		pt.busy, pt.busyPfc = true, true
		// DC-1: serialization rounded up to a whole ps; 0 interframe gap.
		s.eng.Schedule(now+sim.SerializationCeil(pkt.PfcWire, pt.out.RateBps), KindTxDone, s.dev, int16(e), int64(h))
		return
	}
	// Strict priority, highest class first, over the classes that hold frames.
	tc := -1
	var q qent
	for m := pt.queued; m != 0; {
		c := bits.Len8(m) - 1
		m &^= 1 << c
		if !pt.pausedBy(c, now) {
			tc = c
			q = pt.fifo[c].pop()
			if pt.fifo[c].n == 0 {
				pt.queued &^= 1 << c
			}
			break
		}
	}
	if tc < 0 {
		pt.busy = false
		return
	}
	s.transmit(e, q, tc, now)
}

// transmit starts serialising data frame q of class tc on port e: the §9 ECN decision at
// transmit start, then the link is occupied for the serialization time (§5.4).
func (s *Switch) transmit(e int, q qent, tc int, now sim.Time) {
	pt := &s.ports[e]
	if q.ect() {
		s.ecnDecide(e, tc, q.h)
	}
	pt.busy, pt.busyPfc = true, false
	pt.tx, pt.txTC = q, uint8(tc)
	// DC-1: serialization rounded up to a whole ps; 0 interframe gap. The wire size is
	// max(46, L3) + 18 = the charged bytes + 18 (switch.md §5.1, DC-6).
	s.eng.Schedule(now+sim.SerializationCeil(q.bytes()+pkt.EthOverhead, pt.out.RateBps), KindTxDone, s.dev, int16(e), int64(q.h))
}

// ecnDecide is the §9 marking decision at transmit start for an ECN-capable frame h of
// class tc.
func (s *Switch) ecnDecide(e, tc int, h pkt.Handle) {
	ec := &s.cfg.EcnHandler
	if !ec.EnableEcn {
		return // Not-ECT and already-CE packets are left alone
	}
	pl := s.buf.PoolOfTC[tc]
	avg := s.ports[e].pl[pl].avgQ
	minB, maxB := s.buf.EcnMin[pl], s.buf.EcnMax[pl]
	switch {
	case avg < minB:
		return
	case avg >= maxB:
	default:
		prob := ec.MaxMarkProbability * (avg - minB) / (maxB - minB)
		if s.rng.Float64() >= prob {
			return
		}
	}
	s.pool.Get(h).ECN = pkt.CE
	s.ports[e].ecnMarks[tc]++
	s.c.EcnMarked++
}

// txDone is serialization end (§5.4 step 4): the frame goes onto the link, charges are
// released (§5.5), then the next frame starts.
func (s *Switch) txDone(e int, h pkt.Handle) {
	pt := &s.ports[e]
	now := s.eng.Now()
	if pt.busyPfc {
		pt.txFrames++
		pt.txBytes += pkt.PfcWire
		s.c.TxFrames++
		s.c.TxBytes += pkt.PfcWire
		s.c.TxPfcFrames++
		pt.out.Send(s.eng, now, h, pkt.PfcWire)
		s.startNext(e)
		return
	}
	q, tc := pt.tx, int(pt.txTC)
	pl, b := s.buf.PoolOfTC[tc], q.bytes()
	wire := b + pkt.EthOverhead
	pt.txFrames++
	pt.txBytes += wire
	s.c.TxFrames++
	s.c.TxBytes += wire
	// §5.5 onTxComplete: egress release, then ingress release (may send a resume).
	pt.pl[pl].egQ -= b
	s.pools[pl].egTotal -= b
	pt.egSent += b
	s.pools[pl].eg[dir(pt.uplink)].add(-b)
	if pt.views != nil {
		pt.views.eg[pl].add(-b)
	}
	s.ports[q.in].sentCharged += b
	s.releaseIngress(q.in, pl, b, !s.buf.LosslessTC[tc])
	pt.out.Send(s.eng, now, h, wire)
	s.startNext(e)
}

// ---- PFC (§7) ------------------------------------------------------------------------

// pauseTime is §7.1 for port i: q × 512 bit / link rate + link propagation delay.
func (s *Switch) pauseTime(i int, q int64) sim.Time {
	l := s.ports[i].out
	return sim.PauseTime(q, l.RateBps, l.Delay)
}

// PauseTime is the §7.1 pause time of port i for the 65,535 quanta a switch requests;
// its refresh period is half of it (§7.2). For explain and tests, not the packet path.
func (s *Switch) PauseTime(i int) sim.Time { return s.pauseTime(i, 65535) }

// queuePFC puts one PFC frame naming class tc with quanta q on port i's control queue.
func (s *Switch) queuePFC(i, tc int, q uint16) {
	pt := &s.ports[i]
	h, f := s.pool.New()
	f.Type = pkt.Pfc
	f.Size = pfcL3
	f.PfcVector = 1 << tc
	f.PfcQuanta = q
	pt.pfcQ.push(h)
	pt.pfcQueued = true
	if q > 0 {
		pt.pauseTx[tc]++
		s.c.PfcPauseTx++
	} else {
		pt.resumeTx[tc]++
		s.c.PfcResumeTx++
	}
	if !pt.busy {
		s.startNext(i)
	}
}

// sendPause is §7.2 Send: set xoff, one frame (65535 quanta) per TC of the pool's
// priority group, refresh timer at pauseTime(65535)/2.
func (s *Switch) sendPause(i, pl int) {
	pt := &s.ports[i]
	pt.xoff[pl] = true
	pt.xoffSince[pl] = s.eng.Now()
	s.queueGroup(i, pl, pkt.PauseQuanta)
	s.eng.Reset(pt.refresh[pl], s.eng.Now()+s.pauseTime(i, pkt.PauseQuanta)/2)
}

func (s *Switch) queueGroup(i, pl int, q uint16) {
	g := s.buf.Group[pl]
	for tc := 0; tc < 8; tc++ {
		if g&(1<<tc) != 0 {
			s.queuePFC(i, tc, q)
		}
	}
}

// refreshPause is §7.2 Refresh: while xoff holds, the same frames again and re-arm.
func (s *Switch) refreshPause(i, pl int) {
	pt := &s.ports[i]
	if !pt.xoff[pl] {
		return
	}
	s.queueGroup(i, pl, pkt.PauseQuanta)
	s.eng.Reset(pt.refresh[pl], s.eng.Now()+s.pauseTime(i, pkt.PauseQuanta)/2)
}

// sendResume is §7.2 Resume: cancel the refresh, clear xoff, one quanta-0 frame per TC.
func (s *Switch) sendResume(i, pl int) {
	pt := &s.ports[i]
	s.eng.Stop(pt.refresh[pl])
	pt.xoff[pl] = false
	s.queueGroup(i, pl, 0)
}

// handleReceivedPFC is §7.3: q > 0 pauses the named classes for pauseTime(q) (a new
// pause restarts the full timer); q = 0 clears the pause at once and kicks the port.
func (s *Switch) handleReceivedPFC(e int, f *pkt.Packet, now sim.Time) {
	pt := &s.ports[e]
	s.c.RxPfcFrames++
	kick := false
	for tc := 0; tc < 8; tc++ {
		if f.PfcVector&(1<<tc) == 0 {
			continue
		}
		q := int64(f.PfcQuanta)
		if q > 0 {
			pt.pauseRx[tc]++
			s.c.PfcPauseRx++
			pt.pause[tc].start(now)
			pt.paused |= 1 << tc
			pt.rxPausedUntil[tc] = now + s.pauseTime(e, q)
			s.eng.Reset(pt.expiry[tc], pt.rxPausedUntil[tc])
		} else {
			pt.resumeRx[tc]++
			s.c.PfcResumeRx++
			if pt.pause[tc].open {
				pt.pause[tc].end(now)
			}
			pt.paused &^= 1 << tc
			pt.rxPausedUntil[tc] = 0
			s.eng.Stop(pt.expiry[tc])
			kick = true
		}
	}
	if kick && !pt.busy {
		s.startNext(e)
	}
}

// pauseExpired is §7.3 expiry: the class is eligible again and the port is kicked.
func (s *Switch) pauseExpired(e, tc int) {
	pt := &s.ports[e]
	pt.pause[tc].end(s.eng.Now())
	pt.paused &^= 1 << tc // the timer fires at rxPausedUntil[tc]: pausedBy is false from now
	if !pt.busy {
		s.startNext(e)
	}
}

// Handle runs one of the switch's own events (kinds 0x01xx).
func (s *Switch) Handle(ev sim.Event) {
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

// ---- totals and checks ---------------------------------------------------------------

// Counters returns the switch totals; open received pauses count up to now.
func (s *Switch) Counters() Counters {
	c := s.c
	now := s.eng.Now()
	c.BufferedBytes = 0
	c.PfcPausedTime = 0
	for i := range s.ports {
		pt := &s.ports[i]
		for p := 0; p < 8; p++ {
			c.BufferedBytes += pt.pl[p].ingOcc + pt.pl[p].hdrm
		}
		for tc := 0; tc < 8; tc++ {
			c.PfcPausedTime += pt.pause[tc].cumulative(now)
		}
	}
	return c
}

func (l *pauseLog) cumulative(now sim.Time) sim.Time {
	if l.open {
		return l.total + now - l.since
	}
	return l.total
}

// HeldFrames counts the frames the switch holds: queued (data and PFC) or being
// serialised. With the links' in-flight frames it closes a fabric-wide frame ledger.
func (s *Switch) HeldFrames() int {
	n := 0
	for i := range s.ports {
		pt := &s.ports[i]
		n += int(pt.pfcQ.n)
		for tc := range pt.fifo {
			n += int(pt.fifo[tc].n)
		}
		if pt.busy {
			n++
		}
	}
	return n
}

// HeldDataFrames is HeldFrames without the PFC frames this switch made: the received
// frames it still holds, queued or on the wire (for the fabric's frame ledger:
// received = forwarded + dropped + held).
func (s *Switch) HeldDataFrames() int {
	n := 0
	for i := range s.ports {
		pt := &s.ports[i]
		for tc := range pt.fifo {
			n += int(pt.fifo[tc].n)
		}
		if pt.busy && !pt.busyPfc {
			n++
		}
	}
	return n
}

// PortState is a read-only view of one port × pool for tests and `explain`-style tracing.
type PortState struct {
	IngOcc, Hdrm, EgQ int64
	Xoff              bool
	AvgQ              float64
}

// Port returns port i's state in pool pl.
func (s *Switch) Port(i, pl int) PortState {
	pt := &s.ports[i]
	return PortState{IngOcc: pt.pl[pl].ingOcc, Hdrm: pt.pl[pl].hdrm, EgQ: pt.pl[pl].egQ, Xoff: pt.xoff[pl], AvgQ: pt.pl[pl].avgQ}
}

// StuckPauses counts the port × pool pairs whose pause nothing can lift (issue 17): xoff
// held since more than longer before now, headroom empty and ingress occupancy at or
// below Xon. Only a lossless departure re-checks Xon (§5.5, DC-9), so such a pause, left
// by lossy bytes in a pool shared with a lossless class (§4.6 condition 3), lasts until
// the port's next lossless packet.
func (s *Switch) StuckPauses(now, longer sim.Time) int {
	n := 0
	for i := range s.ports {
		pt := &s.ports[i]
		for pl := 0; pl < 8; pl++ {
			if pt.xoff[pl] && now-pt.xoffSince[pl] > longer && pt.pl[pl].hdrm == 0 && pt.pl[pl].ingOcc <= s.buf.Xon {
				n++
			}
		}
	}
	return n
}

// PoolTotals returns ingTotal[p] and egTotal[p].
func (s *Switch) PoolTotals(pl int) (ing, eg int64) { return s.pools[pl].ingTotal, s.pools[pl].egTotal }

// CheckConservation verifies the byte ledgers, per port: charged bytes received on a port
// = sent + dropped + trimmed off + still held (ingOcc + hdrm); bytes admitted to a port's
// egress = sent from it + still queued; Σ ingress holdings = Σ egress queues; pool totals
// equal the sums of their parts.
func (s *Switch) CheckConservation() error {
	var held, queued int64
	var ing, eg [8]int64
	for i := range s.ports {
		pt := &s.ports[i]
		var h, q int64
		for p := 0; p < 8; p++ {
			if pt.pl[p].ingOcc < 0 || pt.pl[p].hdrm < 0 || pt.pl[p].egQ < 0 {
				return fmt.Errorf("%s port %d pool %d: negative ledger ingOcc %d hdrm %d egQ %d", s.id.Name, i, p, pt.pl[p].ingOcc, pt.pl[p].hdrm, pt.pl[p].egQ)
			}
			h += pt.pl[p].ingOcc + pt.pl[p].hdrm
			q += pt.pl[p].egQ
			ing[p] += pt.pl[p].ingOcc
			eg[p] += pt.pl[p].egQ
		}
		if pt.rxCharged != pt.sentCharged+pt.dropCharged+pt.trimCharged+h {
			return fmt.Errorf("%s port %d: received %d B ≠ sent %d + dropped %d + trimmed %d + held %d",
				s.id.Name, i, pt.rxCharged, pt.sentCharged, pt.dropCharged, pt.trimCharged, h)
		}
		if pt.egAdmitted != pt.egSent+q {
			return fmt.Errorf("%s port %d: egress admitted %d B ≠ sent %d + queued %d", s.id.Name, i, pt.egAdmitted, pt.egSent, q)
		}
		held += h
		queued += q
	}
	if held != queued {
		return fmt.Errorf("%s: ingress holdings %d B ≠ egress queues %d B", s.id.Name, held, queued)
	}
	for p := 0; p < 8; p++ {
		if ing[p] != s.pools[p].ingTotal || eg[p] != s.pools[p].egTotal {
			return fmt.Errorf("%s pool %d: ingTotal %d vs Σ %d, egTotal %d vs Σ %d", s.id.Name, p, s.pools[p].ingTotal, ing[p], s.pools[p].egTotal, eg[p])
		}
	}
	return nil
}
