package nic

import (
	"fmt"
	"math"
	"math/rand/v2"
	"unsafe"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/internal/intern"
	"github.com/rocesweep/rocesweep/model/internal/ring"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Event kinds of the NIC (owner 0x02). Dev is the NIC's Identity.Dev; Port and Arg are
// given per kind.
const (
	KindGenStart   sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x01 // §3 generation start, 80 ns after Idle/Blocked
	KindTxDone     sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x02 // §7 serialization end on the Ethernet port
	KindPCIeDone   sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x03 // §5 serialization end of a PCIe transfer; Port = direction
	KindRtxTimer   sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x04 // §10 retransmission timer; Arg = QP index
	KindAckTimer   sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x05 // §9 ACK coalescing timer; Arg = QP index
	KindRateTimer  sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x06 // §13 DCQCN half period; Arg = QP index
	KindPfcRefresh sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x07 // §12.2 pause refresh; Port = TC
	KindPauseEnd   sim.Kind = sim.Kind(sim.OwnerNIC)<<8 | 0x08 // §12.3 received pause expiry; Port = TC
)

// KindString names a NIC event kind (sim.Kind has no String for other owners' ranges).
func KindString(k sim.Kind) string {
	switch k {
	case KindGenStart:
		return "nic.GenStart"
	case KindTxDone:
		return "nic.TxDone"
	case KindPCIeDone:
		return "nic.PCIeDone"
	case KindRtxTimer:
		return "nic.RtxTimer"
	case KindAckTimer:
		return "nic.AckTimer"
	case KindRateTimer:
		return "nic.RateTimer"
	case KindPfcRefresh:
		return "nic.PfcRefresh"
	case KindPauseEnd:
		return "nic.PauseEnd"
	}
	return fmt.Sprintf("nic.Kind(%#04x)", uint16(k))
}

// Identity places a NIC in the fabric.
type Identity struct {
	Dev    int32  // index in the fabric's NIC slice = Dev of this NIC's events
	NodeID int64  // records' node_id
	Name   string // records' component_name
	Host   int32  // host index; its IPv4 address is Host+1
	// Shared, when set, is where NICs of one fabric find each other's read-only
	// per-frame parameters: NICs of one configuration then read one copy. Nil: the NIC
	// keeps its own.
	Shared *Shared
}

// Shared holds the distinct read-only per-frame parameters (the per-class limits) of a
// fabric's NICs, and the slab their values are built in (Reserve). The zero value is
// ready; not safe for concurrent use (one per job).
type Shared struct {
	lims []*[8]tcLimits
	slab []NIC // NICs not yet handed out by New
}

// Reserve sets aside one array for the next n NICs New builds with this Shared: NICs
// by value, one after another, rather than each its own allocation (whose size class
// would put every NIC at a multiple of 4 KiB, on the same cache sets).
func (sh *Shared) Reserve(n int) { sh.slab = make([]NIC, n) }

// alloc returns the next NIC of the slab, or a new one when none is left.
func (sh *Shared) alloc() *NIC {
	if sh == nil || len(sh.slab) == 0 {
		return new(NIC)
	}
	n := &sh.slab[0]
	sh.slab = sh.slab[1:]
	return n
}

// intern returns the held copy equal to l, holding l if there is none.
func (sh *Shared) intern(l *[8]tcLimits) *[8]tcLimits {
	if sh == nil {
		return l
	}
	return intern.Value(&sh.lims, l)
}

// Verb is the RDMA operation of a work request (nic.md §3). Both behave the same on the
// wire; the records count both as writes (§16.1 [DC]).
type Verb uint8

const (
	Write Verb = iota
	Send
)

// WorkRequest is one doorbell (nic.md §3).
type WorkRequest struct {
	Dst            int32 // destination host index
	QP             int32 // sender-local QP index chosen by the workload; the same (Dst, QP) reuses the same QP
	Size           int64 // bytes (0 allowed: one empty packet)
	Verb           Verb
	DataTC, CtrlTC uint8 // fixed by the QP's first WR (§3: a QP has one TC pair)
	Tag            int64 // workload's message id, echoed in Completion
}

// Completion reports a work request whose last PSN was retired (nic.md §10, §16.4).
type Completion struct {
	Tag               int64
	Src, Dst          int32 // host indices
	QP                int32 // the WR's QP (workload index)
	Size              int64
	Posted, Completed sim.Time
	DataTC            uint8
}

// FCT is the completion time minus the post time.
func (c Completion) FCT() sim.Time { return c.Completed - c.Posted }

// generation states (nic.md §3 "Generation state machine").
type genState uint8

const (
	genIdle genState = iota
	genScheduled
	genRunning
	genBlocked
)

// NIC is one RoCE NIC with its host, Ethernet port and PCIe link (nic.md §2). It is
// driven by the fabric: Post (doorbells), Receive (frames from the link), Handle (its own
// events). It is single-threaded and allocates nothing per packet once its rings and QP
// table have grown. Every callback runs synchronously inside the call that caused it.
//
// Layout (TestNICHotLines): what a data packet's events read and write at its sender and
// its receiver comes first, in as few cache lines as it fits (a large fabric's NICs do
// not all fit in cache): the pointers and rates (line 0), the pools' occupancies and
// limits (lines 1-6), the per-frame flags and parameters (lines 7-8), the dedicated
// queue with class 0's egress queue and class 1's with the ready queue (lines 9-10), the
// per-frame counters (a line each of Counters and RoceCounters), then the PCIe link. The
// rest is read at set-up, on timers, for control frames or at report instants.
type NIC struct {
	eng   *sim.Engine
	pool  *pkt.Pool
	out   *link.Link
	qps   []qp    // QPs (§3): qps[i] has QPN i+1 (a *qp into it is stale after newQP)
	L     float64 // line rate (§0)
	clk   float64 // transmit clock factor 1 + offset (config ClockTolerancePpm); 1 = exact
	egOcc [8]int64
	inOcc [8]int64

	txCur      pkt.Handle
	host       int32 // id.Host: a frame's SrcHost (§6)
	txBusy     bool
	txqQueued  uint8 // bit c set: txq[c] holds frames (strict priority scans only these)
	ackWaiting uint8 // bit c set: ackWait[c] holds ACK/NAK (retryAcks reads only these)
	schedMode  schedMode
	ecn        bool // EnableECN (§13)
	gen        genState
	coalesce   bool                                         // AckCoalescingEnabled (§9)
	paused     [8]bool                                      // a received pause holds class c (§12.3)
	pfcEnable  [8]bool                                      // PFCEnableVector[c] == 1 (§12.1)
	pauseOut   [8]bool                                      // a pause this NIC sent for class c is out (§12.1, §12.2)
	trace      func(ev string, h pkt.Handle, p *pkt.Packet) // tests only
	mss        int64                                        // MSS (§4)
	rto        sim.Time                                     // RetransmitTimeout (§10)
	txJitter   int64                                        // config TxJitter in ps; 0 = frames leave at serialisation end
	written    int64                                        // in-order payload bytes handed to the PCIe write FIFO
	bs         *bufStats                                    // net-buff-stats sampling (records.md §6.2); nil when the record is off
	ackDelay   sim.Time                                     // AckDelay (§9)
	ackThresh  int                                          // AckThreshold (§9)
	// OnDelivered is called at the receiver when an in-order data packet's payload has been
	// written to host memory (its last PCIe write reached the host, §5). May be nil.
	OnDelivered func(src int32, bytes int64)
	// lim is P's per-class pools and thresholds, 32 B a class, read-only: NICs of one
	// configuration share one copy (Identity.Shared), which stays in the caches where
	// each NIC's own would be cold at its frames on a large fabric.
	lim *[8]tcLimits
	// lastResp is the index of the responder QP that the last data packet needing a
	// lookup by its source went to (responder): a sender's packets carry no destination
	// QPN until its first ACK returns, a round trip of packets on a large fabric, and a
	// receiver's senders mostly come one at a time. -1: none yet.
	lastResp int32
	_        [4]byte

	// Egress (§4, §6, §7, §11): the dedicated queue shares a line with class 0's queue.
	dedicated ring.Ring[pkt.Handle]    // PFC frames and CNPs (§6, §7)
	txq       [8]ring.Ring[pkt.Handle] // per-TC egress queues
	ready     ring.Ring[int32]         // QPs with segments to fetch (§3 rule 2)

	cnt  Counters // counters and report state (§16)
	_    [48]byte
	roce RoceCounters // roce-transport-stats (§16.1)
	_    [24]byte

	// PCIe (§5), three lines each.
	n2h, h2n pcieDir

	P  Pools // pools, thresholds and pause times (§11, §12)
	id Identity

	// OnComplete is called at the sender when a WR's last PSN is retired (§10). Nil:
	// ignored. It must not Post to this NIC (the fabric posts through an event): the NIC
	// goes on with a QP of its table after the call, which a new QP would move.
	OnComplete func(c Completion)
	// OnReceived is called at the receiver when a message's last packet has been written to
	// host memory ("message received", §8 [DC]); bytes = payload since the previous SE.
	OnReceived func(src int32, bytes int64)
	// OnHostAccepted is called at the receiver when the PCIe transmit buffer accepts the
	// last write of a message's last packet: the moment the seed calls "handed it to the
	// host interface" (nic.md §5, §8). src and srcQPN name the requester QP that sent it;
	// its messages arrive in post order, one at a time. May be nil.
	OnHostAccepted func(src int32, srcQPN uint32)

	// Configuration, resolved once.
	jitRng    *rand.Rand
	lastOut   sim.Time // when the previous frame left the port (TxJitter keeps the order)
	quanta    [8]int64 // QuantaValue (§12)
	wrrWeight [8]int64
	dc        dcqcnParams
	nEgPools  int      // TCs with an egress pool (§7 WRR n)
	recND     bool     // EnableNetDeviceStatLogging
	ndIvl     sim.Time // NDStatsReportInterval (rate divisor)
	recPFC    bool     // EnablePFCECNStatsLogging
	recRoce   bool     // EnableRoceTransportStats

	// QP lookup (§3).
	reqIndex  map[qpKey]int32 // (Dst, workload QP) -> index; used at Post only
	respIndex map[qpKey]int32 // (source host, source QPN) -> responder QP index; first packet only

	// Packet generation (§3).
	blockedPool int
	blockedNeed int64
	blockedQP   int32

	ackWait [8]ring.Ring[pkt.Handle] // ACK/NAK waiting for control-pool room (§6 [DC])
	rrLast  int                      // §7 RoundRobin "last served"
	wrrCur  int                      // §7 WRR turn holder
	wrrUsed int64                    // §7 WRR frames sent in the current turn

	// Received PFC (§12.3).
	pauseTimer [8]sim.TimerID

	// Ingress (§8, §11, §12).
	refreshTimer [8]sim.TimerID

	// Counters and report state (§16).
	pfc  [8]pfcStat
	rtt  rttStat
	last reportSnap
	// A NIC is a whole, odd number of lines (TestNICHotLines): in a slab (Shared.Reserve)
	// every NIC's line 0 starts a line, and the NICs' hot lines spread over the cache's
	// sets instead of sharing the few a power-of-two stride maps them to.
	_ [24]byte
}

// tcLimits are the pools and PFC thresholds of one class (Pools.Egress, Ingress, Xoff,
// Xon; nic.md §11, §12) that every frame of the class reads, copied from P in New: in P
// they sit in four lines, here classes 0 and 1 (the data and control classes) share one.
type tcLimits struct {
	egress, ingress int64
	xoff, xon       int64
}

type qpKey struct{ dst, qp int32 }

// ClockStream is the random stream of a NIC's clock offset (its TxJitter draws use
// ClockStream | 1<<48): the NIC owner byte in the top byte keeps them apart from the
// switches' node-id streams and the workload's streams.
func ClockStream(nodeID int64) uint64 { return uint64(sim.OwnerNIC)<<56 | uint64(uint32(nodeID)) }

// New builds a NIC. out is its transmit link: out.RateBps = L, out.Delay = the NIC's
// Delay. seed is the job seed: the NIC's transmit clock offset (ClockTolerancePpm) is
// drawn from its own stream sim.NewRand(seed, ClockStream(NodeID)). It fails only on
// configurations it cannot run at all; the validation rules of nic.md §15 are
// config.ValidateNIC's job.
func New(id Identity, cfg *config.NIC, g *config.Global, out *link.Link, eng *sim.Engine, pool *pkt.Pool, seed uint64) (*NIC, error) {
	if out == nil || out.RateBps <= 0 {
		return nil, fmt.Errorf("nic %s: transmit link missing or without a rate", id.Name)
	}
	mss := int64(cfg.RoceQpManager.MSS)
	if mss < 1 || mss > 9216 {
		// Also what keeps a frame's size within pkt.Packet's 16-bit Size and Payload.
		return nil, fmt.Errorf("nic %s: RoceQpManager.MSS %d outside 1-9,216 B (nic.md §15 rule 3)", id.Name, mss)
	}
	n2hRate := float64(cfg.HostInterface.NICSide.PhysicalLayer.LaneBps) * float64(cfg.HostInterface.NICSide.PhysicalLayer.LaneCount)
	h2nRate := float64(cfg.HostInterface.HostSide.PhysicalLayer.LaneBps) * float64(cfg.HostInterface.HostSide.PhysicalLayer.LaneCount)
	if n2hRate <= 0 || h2nRate <= 0 {
		return nil, fmt.Errorf("nic %s: PCIe rate LaneBps x LaneCount must be positive (NIC side %g, host side %g bit/s; nic.md §5)", id.Name, n2hRate, h2nRate)
	}
	n := id.Shared.alloc()
	*n = NIC{
		id: id, host: id.Host, eng: eng, pool: pool, out: out,
		P:         ComputePools(cfg, g, out.RateBps),
		L:         out.RateBps,
		mss:       mss,
		rto:       cfg.TransportProcessingLayers.RoceTransportLayer.RetransmitTimeout,
		ackDelay:  cfg.TransportProcessingLayers.RoceTransportLayer.AckDelay,
		ackThresh: int(cfg.TransportProcessingLayers.RoceTransportLayer.AckThreshold),
		coalesce:  cfg.TransportProcessingLayers.RoceTransportLayer.AckCoalescingEnabled,
		ecn:       cfg.ECNHandler.EnableECN,
		dc:        newDcqcnParams(&cfg.ECNHandler, out.RateBps),
		reqIndex:  make(map[qpKey]int32),
		respIndex: make(map[qpKey]int32),
		lastResp:  -1,
		recND:     g.EnableNetDeviceStatLogging,
		ndIvl:     g.NDStatsReportInterval,
		recPFC:    g.EnablePFCECNStatsLogging,
		recRoce:   g.EnableRoceTransportStats,
		clk:       1,
	}
	if cfg.EnableBufferStats && g.EnableNetworkBufferStatsReporting {
		n.bs = newBufStats() // §16.5: both settings on
	}
	if ppm := cfg.ClockTolerancePpm; ppm > 0 {
		// Uniform in ±ppm, one draw per NIC per job from the NIC's clock stream.
		u := sim.NewRand(seed, ClockStream(id.NodeID)).Float64()
		n.clk = 1 + (2*u-1)*ppm*1e-6
		// The same clock drives the retransmission timer: a fast clock times out early.
		// Over 64 ms, ±100 ppm is ±6.4 us, so senders that lost packets together no longer
		// resend together.
		n.rto = sim.Time(math.Round(float64(n.rto) / n.clk))
	}
	if j := cfg.TxJitter; j > 0 {
		n.txJitter = int64(j)
		n.jitRng = sim.NewRand(seed, ClockStream(id.NodeID)|1<<48)
	}
	in := &cfg.NetworkInterface.IngressBufferManager
	eg := &cfg.NetworkInterface.EgressBufferManager
	var lim [8]tcLimits
	for c := 0; c < 8; c++ {
		lim[c] = tcLimits{egress: n.P.Egress[c], ingress: n.P.Ingress[c], xoff: n.P.Xoff[c], xon: n.P.Xon[c]}
		n.pfcEnable[c] = in.PFCEnableVector[c] == 1 // §12.1: any other value disables
		n.quanta[c] = int64(in.QuantaValue[c])
		n.wrrWeight[c] = int64(eg.WRRQueueWeights[c])
		if n.P.Egress[c] > 0 {
			n.nEgPools++
		}
		n.pauseTimer[c] = eng.NewTimer(KindPauseEnd, id.Dev, int16(c), 0)
		n.refreshTimer[c] = eng.NewTimer(KindPfcRefresh, id.Dev, int16(c), 0)
	}
	n.lim = id.Shared.intern(&lim)
	switch eg.QueueSchedulingType {
	case "", "StrictPriority":
		n.schedMode = schedSP
	case "RoundRobin":
		n.schedMode = schedRR
	case "WeightedRoundRobin":
		n.schedMode = schedWRR
	default:
		return nil, fmt.Errorf("nic %s: EgressBufferManager.QueueSchedulingType %q: want StrictPriority, RoundRobin or WeightedRoundRobin (nic.md §7)", id.Name, eg.QueueSchedulingType)
	}
	// §7 [DC]: RR's initial "last served" and WRR's first turn are the highest TC with a pool.
	for c := 7; c >= 0; c-- {
		if n.P.Egress[c] > 0 {
			n.rrLast, n.wrrCur = c, c
			break
		}
	}
	n.n2h = pcieDir{rateBps: n2hRate,
		txHdrCap: int64(cfg.HostInterface.NICSide.TransactionLayer.TXHeaderBufferSize), txDataCap: int64(cfg.HostInterface.NICSide.TransactionLayer.TXDataBufferSize),
		readHdr: int32(cfg.HostInterface.NICSide.NICPCIeHandler.ReadRequestSize) + PCIeOverhead,
		readSer: sim.SerializationNearest(int64(cfg.HostInterface.NICSide.NICPCIeHandler.ReadRequestSize)+PCIeOverhead, n2hRate),
		fullSer: sim.SerializationNearest(PCIeMaxPayload+PCIeOverhead, n2hRate),
		timer:   eng.NewTimer(KindPCIeDone, id.Dev, int16(dirN2H), 0), armedAt: sim.Never}
	n.h2n = pcieDir{rateBps: h2nRate,
		txHdrCap: int64(cfg.HostInterface.HostSide.TransactionLayer.TXHeaderBufferSize), txDataCap: int64(cfg.HostInterface.HostSide.TransactionLayer.TXDataBufferSize),
		fullSer: sim.SerializationNearest(PCIeMaxPayload+PCIeOverhead, h2nRate),
		timer:   eng.NewTimer(KindPCIeDone, id.Dev, int16(dirH2N), 0), armedAt: sim.Never}
	return n, nil
}

// ID returns the NIC's identity.
func (n *NIC) ID() Identity { return n.id }

// Handle runs one of the NIC's own events (kinds 0x02xx).
// Prefetch hints the processor to load the state an event of the given kind and port
// reads first: the NIC's per-frame lines and the PCIe direction of a PCIeDone.
func (n *NIC) Prefetch(kind sim.Kind, port int16) {
	n.prefetchHot()
	if kind == KindPCIeDone {
		sim.PrefetchSpan(unsafe.Pointer(n.pcieDirOf(port)), 2)
	}
}

// PrefetchRx hints the processor to load what the arrival of frame p reads: the NIC's
// per-frame lines and the lines of the QP it names.
func (n *NIC) PrefetchRx(p *pkt.Packet) {
	n.prefetchHot()
	if i := int(p.DestQP) - 1; i >= 0 && i < len(n.qps) {
		sim.PrefetchSpan(unsafe.Pointer(&n.qps[i]), 4)
	}
}

// prefetchHot hints the lines every frame reads (TestNICHotLines): the pointers, the
// occupancies, the flags, parameters and queues (lines 0-6) and the first lines of the
// two counter sets.
func (n *NIC) prefetchHot() {
	sim.PrefetchSpan(unsafe.Pointer(n), 7)
	sim.Prefetch(unsafe.Pointer(&n.cnt))
	sim.Prefetch(unsafe.Pointer(&n.roce))
}

// PrefetchDeep hints the processor to load what an event of the given kind and port
// reads once Prefetch's lines are in: the head transfer of a PCIe direction, the frame
// that ends its serialization.
func (n *NIC) PrefetchDeep(kind sim.Kind, port int16) {
	switch kind {
	case KindPCIeDone:
		if x := n.pcieDirOf(port).acc.Head(); x != nil {
			sim.Prefetch(unsafe.Pointer(x))
		}
	case KindTxDone:
		if h := n.txCur; h > 0 {
			sim.Prefetch(unsafe.Pointer(n.pool.Get(h)))
		}
	}
}

func (n *NIC) pcieDirOf(port int16) *pcieDir {
	if port == int16(dirN2H) {
		return &n.n2h
	}
	return &n.h2n
}

func (n *NIC) Handle(ev *sim.Event) {
	switch ev.Kind {
	case KindGenStart:
		n.genRun()
	case KindTxDone:
		n.txDone()
	case KindPCIeDone:
		if ev.Port == int16(dirN2H) {
			n.pcieDone(&n.n2h)
		} else {
			n.pcieDone(&n.h2n)
		}
	case KindRtxTimer:
		n.rtxExpired(&n.qps[ev.Arg])
	case KindAckTimer:
		n.ackTimerExpired(&n.qps[ev.Arg])
	case KindRateTimer:
		n.rateTimer(&n.qps[ev.Arg])
	case KindPfcRefresh:
		n.pfcRefresh(int(ev.Port))
	case KindPauseEnd:
		n.pauseEnd(int(ev.Port))
	default:
		panic(fmt.Sprintf("nic %s: event %s is not a NIC event", n.id.Name, KindString(ev.Kind)))
	}
}

// Stalled reports a NIC that can never make progress again on its own, so the fabric can
// fail the job with a clear reason instead of running silently to its time cap (nic.md
// §4: a data-TC egress pool below MSS + 58 blocks generation permanently). Nil when no
// such condition holds. A control class without an egress pool is no stall: its ACKs
// and NAKs are never sent (§6 [DC]), the senders' timers resend, and the job runs to its
// duration with all its records.
func (n *NIC) Stalled() error {
	if n.gen == genBlocked && n.blockedNeed > n.P.Egress[n.blockedPool] {
		q := &n.qps[n.blockedQP]
		return fmt.Errorf("nic %s: packet generation blocked for good: a %d B data packet of QP %d (to host %d) does not fit the %d B egress pool of data TC %d (EgressBufferManager.PoolAllocationVector[%d] x TotalBufferSize; it must hold MSS + 58 = %d B, nic.md §4, §11)",
			n.id.Name, n.blockedNeed, q.wqp, q.peerHost, n.P.Egress[n.blockedPool], n.blockedPool, n.blockedPool, n.mss+pkt.DataOverhead)
	}
	return nil
}
