// Package fabric runs one simulation job: it turns a validated configuration into a
// topology of switches, NICs and links (model/topo), posts the workload's messages
// (model/workload), runs the event loop to the stop condition and returns the job's
// records and summary (docs/design.md "The engine").
//
// Run is the interface the sweep runner uses: a pure function of the configuration and
// its seed. Nothing here is global; two jobs in one process share no state.
//
// The loop is a switch on the event's owner, so every call is static:
//
//	link delivery   → the receiving switch's or NIC's Receive
//	switch / NIC    → the device's Handle
//	workload        → post the next message to its sender's NIC
//	fabric          → periodic records (nd-stats, buffer-stats, load-balancing-stats)
package fabric

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"time"
	"unsafe"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/internal/invariants"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/nic"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
	"github.com/rocesweep/rocesweep/model/switchdev"
	"github.com/rocesweep/rocesweep/model/topo"
	"github.com/rocesweep/rocesweep/model/workload"
)

// Event kinds owned by the fabric and the workload.
const (
	kindPost         sim.Kind = sim.Kind(sim.OwnerWorkload)<<8 | 0x01 // post message Arg
	kindCollStart    sim.Kind = sim.Kind(sim.OwnerWorkload)<<8 | 0x02 // collective run Arg begins an iteration
	kindCollPost     sim.Kind = sim.Kind(sim.OwnerWorkload)<<8 | 0x03 // post collective message Arg (released by a completion)
	kindReportND     sim.Kind = sim.Kind(sim.OwnerFabric)<<8 | 0x01   // NDStatsReportInterval records
	kindReportBuffer sim.Kind = sim.Kind(sim.OwnerFabric)<<8 | 0x02   // BufferStatsReportInterval records
	kindReportLB     sim.Kind = sim.Kind(sim.OwnerFabric)<<8 | 0x03   // LoadBalancingStatsReportInterval records
	kindReportNetBuf sim.Kind = sim.Kind(sim.OwnerFabric)<<8 | 0x04   // NetworkBufferStatsReportingInterval records
)

// Options are the parts of a job that are not its configuration.
type Options struct {
	JobID string           // stamped on every row
	Clock func() time.Time // time_utc of rows; nil = time.Now (tests fix it)
	CDFs  fs.FS            // size-CDF files for the load workload; nil = the shipped workload.SizeCDFs
	// PCIeStepwise makes every NIC's PCIe transfers one event each, the reference path
	// that the closed form must reproduce exactly (nic.SetPCIeStepwise). Tests only.
	PCIeStepwise bool
	// Emit, when set, receives the job's rows in batches of about BatchRows while it runs
	// (stats.Recorder.Spill), so that its memory does not grow with simulated time; the
	// rows of the last batch stay in the Result. Nil keeps every row in the Result.
	Emit      func(stats.Batch) error
	BatchRows int
	// Built and Drained, when set, are called once the fabric is built and once a drained
	// job has released its packet pool, before its rows are built: where the caller (the
	// sweep's worker) applies its memory policy. The model itself sets none.
	Built, Drained func()
}

// Fabric is one job's devices, links and event loop.
type Fabric struct {
	cfg  *config.Config
	eng  *sim.Engine
	pool pkt.Pool
	g    *topo.Graph
	rec  *stats.Recorder

	links    []link.Link
	tierSw   [3]config.Switch // each tier's switch attributes (config.TierSwitch)
	switches []*switchdev.Switch
	nics     []*nic.NIC

	msgs      []workload.Message
	next      int                   // next message to post
	completed int                   // messages completed
	drained   bool                  // every message posted and completed, every collective run done (checkDrained): where stop: drain ends
	posted    int64                 // payload bytes posted
	delivered int64                 // payload bytes delivered in order to receiving hosts
	pairs     map[uint64]*pairBytes // key pairKey(src, dst): a 64-bit key takes the map's fast path (one lookup per delivered packet)
	fcts      []float64
	// Per data traffic class: messages posted (started), and FCTs and slowdowns of completed
	// ones (the classes table).
	tcPosted  [8]int64
	tcFct     [8][]float64
	tcSlow    [8][]float64
	tcNoIdeal [8]int64 // completed messages without an ideal FCT (no slowdown)
	ideal     map[[2]int32]idealPath

	// Completion at host memory (nic.md §5): per message, by tag (msgs, then dyn), its
	// post time and the moment the receiver's PCIe transmit buffer accepted its last byte.
	// qpTags[src][qpn-1] lists the tags posted on a requester QP whose last byte has not
	// reached host memory yet, oldest first: a QP's messages reach the receiver in post
	// order, so the next host-memory completion of the QP is its head.
	msgAt         []msgTimes
	qpTags        [][]tagList
	hostCompleted int
	hostFcts      []float64
	tcHostFct     [8][]float64
	// ACK completions whose last byte had not reached host memory yet: their messages rows
	// are written once it has (or at the end, with null host columns).
	pendingRows map[int64]nic.Completion

	// prefetch: the loop hints the next events' lines (prefetchNext), on fabrics of at
	// least prefetchHosts hosts.
	prefetch bool
	// hintFrames: below prefetchHosts, the loop still hints the frame that a link
	// delivers next (fabrics of hintFrameHosts hosts or more).
	hintFrames bool

	lastTierHop [3]int64
	stopReason  string
	// reports counts the periodic-record events: the summary's events leave them out, so
	// a record setting changes no summary metric (spec.md "Seeds and common random numbers").
	reports int64

	// Collectives (collective.go): runs driven by completions. Their messages
	// are dyn[i], NIC tag len(msgs)+i.
	runs     []workload.CollRun
	dyn      []workload.Message
	dynRef   []collRef
	runsDone int
	ccts     []float64 // µs, one per finished iteration
	busbw    []float64 // Gbps, likewise
}

// msgTimes is one message's post time and its completion at host memory (0 = not yet:
// no message reaches host memory at time 0, its data needs a PCIe fetch and a link
// first); next is the tag+1 of the next message posted on the same QP (0 = none).
type msgTimes struct {
	posted, host sim.Time
	next         int64
}

// tagList is a FIFO of tags threaded through msgTimes.next; head and tail are tag+1, 0
// when empty, so that the zero value is an empty list.
type tagList struct{ head, tail int64 }

// pairBytes is the payload ledger of one (sender, receiver) host pair: what the workload
// posted and what the receiver wrote in order to its host. delivered <= posted always;
// once every message of the pair completed, they are equal (each byte exactly once).
type pairBytes struct{ posted, delivered int64 }

// idealPath caches what an ideal FCT needs about a host pair's path.
type idealPath struct {
	rates []float64 // operating rate of each cable, in travel order
	prop  sim.Time  // Σ propagation delay
}

// Run builds and runs the job described by cfg and returns its records and summary. It
// returns an error for an invalid configuration (before anything runs) or when ctx is
// cancelled (the sweep's --max-wall-per-job and Ctrl-C).
func Run(ctx context.Context, cfg config.Config, opts Options) (*stats.Result, error) {
	start := time.Now()
	f, err := New(cfg, opts)
	if err != nil {
		return nil, err
	}
	if opts.Built != nil {
		opts.Built()
	}
	if err := f.Loop(ctx); err != nil {
		return nil, err
	}
	if err := f.Stalled(); err != nil {
		return nil, err
	}
	if f.pool.InUse() == 0 {
		// Drained: the pool's packets are all free. Hand their memory back before the
		// rows are built.
		f.pool.Release()
		if opts.Drained != nil {
			opts.Drained()
		}
	}
	res := f.Finish()
	// A batch of rows that could not leave the job (Options.Emit failed) is lost: the job
	// has not produced all its rows, so it has no result.
	if err := f.rec.Err(); err != nil {
		return nil, fmt.Errorf("writing rows: %w", err)
	}
	res.Summary.WallSec = time.Since(start).Seconds()
	if res.Summary.WallSec > 0 {
		res.Summary.EventsPerSec = float64(res.Summary.Events) / res.Summary.WallSec
	}
	return res, nil
}

// Validate checks cfg against every rule that stops a simulation (config.Validate) and
// builds its topology, without running anything.
func Validate(cfg *config.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	// The topology, and what the job will need of the workload: sizes, counts,
	// distribution files.
	_, err := EstimateJob(cfg)
	return err
}

// New builds the fabric of cfg: devices, links, the workload schedule and the first
// report events.
func New(cfg config.Config, opts Options) (*Fabric, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	g, err := topo.BuildConfig(&cfg)
	if err != nil {
		return nil, err
	}
	f := &Fabric{cfg: &cfg, eng: sim.NewEngine(), g: g, rec: stats.NewRecorder(opts.JobID, opts.Clock), ideal: map[[2]int32]idealPath{}, pairs: map[uint64]*pairBytes{},
		pendingRows: map[int64]nic.Completion{}}
	f.rec.Topology = g.TopologyRows(opts.JobID)
	f.rec.Emit, f.rec.BatchRows = opts.Emit, opts.BatchRows

	// Two links per cable: down (A → B) and up (B → A). link id = 2×cable + dir.
	f.links = make([]link.Link, 2*len(g.Cables))
	for ci, c := range g.Cables {
		a, b := &g.Nodes[c.A], &g.Nodes[c.B]
		f.links[2*ci] = link.Link{ID: int32(2 * ci), From: endpoint(a, c.APort), To: endpoint(b, c.BPort), RateBps: c.RateBps, Delay: c.Delay}
		f.links[2*ci+1] = link.Link{ID: int32(2*ci + 1), From: endpoint(b, c.BPort), To: endpoint(a, c.APort), RateBps: c.RateBps, Delay: c.Delay}
	}
	out := func(node int, p topo.Port) *link.Link {
		if g.Cables[p.Cable].A == node {
			return &f.links[2*p.Cable]
		}
		return &f.links[2*p.Cable+1]
	}

	for t := range f.tierSw {
		f.tierSw[t] = cfg.TierSwitch(t)
	}
	var shared switchdev.Shared // one copy of each distinct set of switch parameters, and the switches and their ports by value
	swPorts := 0
	for _, n := range g.Switches {
		swPorts += len(g.Nodes[n].Ports)
	}
	shared.Reserve(len(g.Switches), swPorts)
	for _, n := range g.Switches {
		node := &g.Nodes[n]
		ports := make([]switchdev.PortSpec, len(node.Ports))
		for i, p := range node.Ports {
			ports[i] = switchdev.PortSpec{Out: out(n, p), PeerTier: g.Nodes[p.Peer].Tier, Uplink: p.Uplink}
		}
		nodeIdx := n
		rk := g.RouteKeys(n)
		keys := &switchdev.DestKeys{Attach: rk.Attach, Slot: rk.Slot, Self: rk.Self, N: rk.N, Size: rk.Size}
		sw, err := switchdev.New(switchdev.Identity{Dev: node.Index, NodeID: node.ID, Name: node.Name, Tier: node.Tier, Hosts: int32(len(g.NICs)), Keys: keys, Shared: &shared},
			&f.tierSw[node.Tier], &f.cfg.Global, ports, func(dst int32) []int16 { return g.Route(nodeIdx, dst) },
			f.eng, &f.pool, cfg.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", node.Name, err)
		}
		f.switches = append(f.switches, sw)
	}
	var nicShared nic.Shared // one copy of each distinct set of NIC limits, and the NICs by value
	nicShared.Reserve(len(g.NICs))
	for h, n := range g.NICs {
		node := &g.Nodes[n]
		nc, err := nic.New(nic.Identity{Dev: node.Index, NodeID: node.ID, Name: node.Name, Host: int32(h), Shared: &nicShared},
			&f.cfg.NIC, &f.cfg.Global, out(n, node.Ports[0]), f.eng, &f.pool, cfg.Seed)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", node.Name, err)
		}
		nc.SetPCIeStepwise(opts.PCIeStepwise)
		nc.OnComplete = f.onComplete
		// The receiver's last sender's ledger, so that a run of packets from one sender
		// (the usual case) costs no map lookup per packet.
		dst, lastSrc := int32(h), int32(-1)
		var last *pairBytes
		nc.OnDelivered = func(src int32, bytes int64) {
			if src != lastSrc {
				last, lastSrc = f.pair(src, dst), src
			}
			f.delivered += bytes
			last.delivered += bytes
		}
		nc.OnHostAccepted = f.hostAccepted
		f.nics = append(f.nics, nc)
	}
	f.qpTags = make([][]tagList, len(f.nics))
	f.prefetch = len(f.nics) >= prefetchHosts
	f.hintFrames = len(f.nics) >= hintFrameHosts

	lineRate := g.Cables[g.Nodes[g.NICs[0]].Ports[0].Cable].RateBps
	cdfs := opts.CDFs
	if cdfs == nil {
		cdfs = workload.SizeCDFs
	}
	f.msgs, err = workload.Generate(cfg.Workload, len(g.NICs), lineRate, cfg.Duration, cfg.Seed, cdfs)
	if err != nil {
		return nil, err
	}
	f.msgAt = make([]msgTimes, len(f.msgs))
	if len(f.msgs) > 0 {
		f.eng.Schedule(f.msgs[0].Start, kindPost, 0, 0, 0)
	}
	if err := f.newCollectives(); err != nil {
		return nil, err
	}

	// Periodic records: first row at StartTime + ClientStartOffset + interval (RC-3).
	gl := &cfg.Global
	base := gl.StartTime + gl.ClientStartOffset
	if gl.NDStatsReportInterval > 0 {
		f.eng.Schedule(base+gl.NDStatsReportInterval, kindReportND, 0, 0, 0)
	}
	if iv := cfg.Switch.SharedBufferManager.BufferStatsReportInterval; iv > 0 {
		f.eng.Schedule(base+iv, kindReportBuffer, 0, 0, 0)
	}
	if iv := cfg.Switch.LoadBalancingStatsReportInterval; cfg.Switch.EnableLoadBalancingStats && iv > 0 {
		f.eng.Schedule(base+iv, kindReportLB, 0, 0, 0)
	}
	if iv := gl.NetworkBufferStatsReportingInterval; f.netBuff() && iv > 0 {
		f.eng.Schedule(base+iv, kindReportNetBuf, 0, 0, 0)
	}
	f.eng.SetStop(cfg.Duration)
	f.checkDrained()
	return f, nil
}

func endpoint(n *topo.Node, port int16) link.Endpoint {
	if n.Kind == topo.SwitchNode {
		return link.Endpoint{Owner: sim.OwnerSwitch, Dev: n.Index, Port: port}
	}
	return link.Endpoint{Owner: sim.OwnerNIC, Dev: n.Index, Port: 0}
}

// Loop runs events until the stop condition: the duration, or with stop: drain the
// completion of every message (capped by the duration). It checks ctx every 2^16 events.
func (f *Fabric) Loop(ctx context.Context) (err error) {
	defer f.recoverLimit(&err)
	drain := f.cfg.Stop == "drain"
	for {
		ev := f.eng.NextRef()
		if ev == nil {
			f.stopReason = "duration"
			return nil
		}
		if f.prefetch {
			f.prefetchNext()
		} else if f.hintFrames {
			f.hintFrame()
		}
		switch ev.Kind.Owner() {
		case sim.OwnerLink:
			l := &f.links[ev.Dev]
			h := l.Deliver(f.eng)
			if l.To.Owner == sim.OwnerSwitch {
				f.switches[l.To.Dev].Receive(l.To.Port, h)
			} else {
				f.nics[l.To.Dev].Receive(h)
			}
		case sim.OwnerSwitch:
			f.switches[ev.Dev].Handle(ev)
		case sim.OwnerNIC:
			f.nics[ev.Dev].Handle(ev)
		case sim.OwnerWorkload:
			f.workloadEvent(*ev)
			f.checkDrained()
		case sim.OwnerFabric:
			f.report(*ev)
		default:
			return fmt.Errorf("fabric: event of unknown kind %#04x at %v", uint16(ev.Kind), ev.At)
		}
		if drain && f.drained {
			f.stopReason = "drained"
			return nil
		}
		if invariants.Enabled && f.eng.Fired()&0x3FF == 0 {
			// Every ledger balances after every 1,024th event (switch.md §5.6).
			if err := f.CheckConservation(); err != nil {
				panic(fmt.Sprintf("invariant broken at %v after %d events: %v", f.eng.Now(), f.eng.Fired(), err))
			}
		}
		if f.eng.Fired()&0xFFFF == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("stopped at simulated %v: %w", f.eng.Now(), err)
			}
			if err := f.rec.Err(); err != nil {
				return fmt.Errorf("writing rows at simulated %v: %w", f.eng.Now(), err)
			}
		}
	}
}

// recoverLimit turns the engine's *sim.LimitError panic into the job's error, naming the
// job, its fabric and what to change; any other panic goes on.
func (f *Fabric) recoverLimit(err *error) {
	r := recover()
	if r == nil {
		return
	}
	le, ok := r.(*sim.LimitError)
	if !ok {
		panic(r)
	}
	job := f.rec.JobID
	if job == "" {
		job = f.cfg.Name
	}
	fix := "simulate a smaller fabric (fewer hosts: topology.k, leaves, hosts_per_leaf) or split its traffic over several jobs"
	if le.What == "timers" {
		fix = "each queue pair takes 3 timers: use fewer sender-receiver pairs (a workload with fewer destinations per host, or fewer hosts)"
	}
	*err = fmt.Errorf("job %s (%d hosts): more than %d %s at simulated %v, the most one job's event engine holds; %s",
		job, len(f.nics), sim.MaxPending, le.What, le.At, fix)
}

// hintFrame hints the processor to load the frame that a link delivers next, when that
// event is already in the engine's sorted run (one load to find it). Below
// prefetchHosts it is the one hint the loop gives: the frame's first touch in the
// switch's or NIC's Receive was the leaf-spine job's costliest miss (Receive 12.6% of
// its CPU profile, 78% of that on the frame's first line; 7.2% with the hint).
func (f *Fabric) hintFrame() {
	if h := f.eng.NextInRun(); h != nil && h.Kind.Owner() == sim.OwnerLink {
		sim.Prefetch(unsafe.Pointer(f.pool.Get(pkt.Handle(h.Arg))))
	}
}

// hintFrameHosts is the fabric size from which the loop hints the next frame
// (hintFrame), measured with go test -bench, interleaved pairs: a fat tree of k = 4 (16
// hosts) took 12% longer with the hint and the 9-host incast 3% longer (their frames
// stay in the caches); a leaf-spine of 32 hosts 3% less, the 128-host leaf-spine 5% less
// and the fat tree of k = 8 (128 hosts) 11% less.
const hintFrameHosts = 64

// prefetchHosts is the fabric size from which the loop prefetches: a smaller fabric's
// per-event state mostly stays in the caches, and the hints' instructions would cost more
// than the misses they hide. The 128-host fabrics (leaf-spine 8×16, fat tree k = 8) are
// still below it; a fat tree of k = 10 (250 hosts) is above.
const prefetchHosts = 192

// prefetchNext hints the processor to load, while the current event is handled, the
// first lines the event after next will read (its link and frame, its switch port, its
// NIC's PCIe or transmit state) and the deeper lines of the next one, whose first lines
// the previous call asked for: each event's chain of dependent loads is started two
// events ahead. Hints change nothing the model computes.
func (f *Fabric) prefetchNext() {
	h1, h2 := f.eng.Upcoming()
	if h2 != nil {
		switch h2.Kind.Owner() {
		case sim.OwnerLink:
			sim.Prefetch(unsafe.Pointer(&f.links[h2.Dev]))
			if h2.Arg > 0 {
				sim.Prefetch(unsafe.Pointer(f.pool.Get(pkt.Handle(h2.Arg))))
			}
		case sim.OwnerSwitch:
			f.switches[h2.Dev].PrefetchTx(h2.Port)
		case sim.OwnerNIC:
			f.nics[h2.Dev].Prefetch(h2.Kind, h2.Port)
		}
	}
	if h1 != nil {
		switch h1.Kind.Owner() {
		case sim.OwnerLink:
			l := &f.links[h1.Dev]
			l.PrefetchHead()
			if to := l.To; h1.Arg > 0 {
				if p := f.pool.Get(pkt.Handle(h1.Arg)); to.Owner == sim.OwnerSwitch {
					f.switches[to.Dev].PrefetchRx(to.Port, p)
				} else {
					f.nics[to.Dev].PrefetchRx(p)
				}
			}
		case sim.OwnerSwitch:
			f.switches[h1.Dev].PrefetchTxDeep(h1.Port)
		case sim.OwnerNIC:
			f.nics[h1.Dev].PrefetchDeep(h1.Kind, h1.Port)
		}
	}
}

// checkDrained sets drained from the counts it depends on: messages posted, completed
// and created by collectives, and collective runs done. Those change only in the
// workload's events and at completions, which call it (and New, once).
func (f *Fabric) checkDrained() {
	f.drained = f.next == len(f.msgs) && f.completed == len(f.msgs)+len(f.dyn) && f.runsDone == len(f.runs)
}

// Stalled reports why messages remain incomplete when a NIC can never send them (nic.md
// §4: a data-TC egress pool smaller than one packet blocks generation for good), so such
// a job fails with that reason instead of ending quietly with nothing delivered. A
// control class without an egress pool is not one: its NICs send no ACK or NAK (nic.md
// §6), the senders time out and resend, and the job ends at its duration with its rows.
func (f *Fabric) Stalled() error {
	if f.completed == len(f.msgs)+len(f.dyn) {
		return nil
	}
	for i, n := range f.nics {
		if err := n.Stalled(); err != nil {
			return fmt.Errorf("%s: %w (%d of %d messages completed)", f.g.Nodes[f.g.NICs[i]].Name, err, f.completed, len(f.msgs))
		}
	}
	return nil
}

// post hands every message due now to its sender's NIC and schedules the next one.
func (f *Fabric) post() {
	now := f.eng.Now()
	for f.next < len(f.msgs) && f.msgs[f.next].Start <= now {
		m := &f.msgs[f.next]
		verb := nic.Write
		if m.Verb == "send" {
			verb = nic.Send
		}
		f.nics[m.Src].Post(nic.WorkRequest{Dst: m.Dst, QP: m.QP, Size: m.Size, Verb: verb, DataTC: m.DataTC, CtrlTC: m.CtrlTC, Tag: int64(f.next)})
		f.started(int64(f.next), m)
		f.posted += m.Size
		f.tcPosted[m.DataTC&7]++
		f.pair(m.Src, m.Dst).posted += m.Size
		f.next++
	}
	if f.next < len(f.msgs) {
		f.eng.Schedule(f.msgs[f.next].Start, kindPost, 0, 0, 0)
	}
}

func (f *Fabric) pair(src, dst int32) *pairBytes {
	k := pairKey(src, dst)
	p := f.pairs[k]
	if p == nil {
		p = &pairBytes{}
		f.pairs[k] = p
	}
	return p
}

// pairKey packs a host pair into a map key; pairHosts unpacks it.
func pairKey(src, dst int32) uint64 { return uint64(uint32(src))<<32 | uint64(uint32(dst)) }

func pairHosts(k uint64) (src, dst int32) { return int32(uint32(k >> 32)), int32(uint32(k)) }

// started records that message tag (m) was posted now: it counts in every percentile
// from now on (records.md §8.1 "started"), and its host-memory completion is the next
// one of its requester QP after those posted before it.
func (f *Fabric) started(tag int64, m *workload.Message) {
	for int64(len(f.msgAt)) <= tag { // a collective's step: tags grow with dyn
		f.msgAt = append(f.msgAt, msgTimes{})
	}
	f.msgAt[tag] = msgTimes{posted: f.eng.Now()}
	qpn := int(f.nics[m.Src].RequesterQPN(m.Dst, m.QP))
	lists := f.qpTags[m.Src]
	for len(lists) < qpn {
		lists = append(lists, tagList{})
	}
	f.qpTags[m.Src] = lists
	l := &lists[qpn-1]
	if l.tail == 0 {
		l.head = tag + 1
	} else {
		f.msgAt[l.tail-1].next = tag + 1
	}
	l.tail = tag + 1
}

// hostAccepted is the receiver's NIC.OnHostAccepted: the last byte of the oldest message
// of requester QP (src, qpn) not yet at host memory has been accepted by the receiver's
// PCIe transmit buffer (nic.md §5: "handed it to the host interface"). It records the
// host-memory completion and writes the messages row if the sender's ACK completion came
// first.
func (f *Fabric) hostAccepted(src int32, qpn uint32) {
	l := &f.qpTags[src][qpn-1]
	tag := l.head - 1
	t := &f.msgAt[tag]
	l.head = t.next
	if l.head == 0 {
		l.tail = 0
	}
	t.host = f.eng.Now()
	fct := (t.host - t.posted).Micros()
	f.hostCompleted++
	f.hostFcts = append(f.hostFcts, fct)
	tc := f.message(tag).DataTC & 7
	f.tcHostFct[tc] = append(f.tcHostFct[tc], fct)
	if c, ok := f.pendingRows[tag]; ok {
		delete(f.pendingRows, tag)
		f.messageRow(c)
		f.rec.Spill()
	}
}

// onComplete counts a work request completed at the sender (its last PSN acknowledged,
// nic.md §10) and writes its messages row (records.md §8 perf record plus FCT columns)
// once its completion at host memory is known too.
func (f *Fabric) onComplete(c nic.Completion) {
	f.completed++
	m := f.message(c.Tag)
	fct := (c.Completed - c.Posted).Micros()
	ideal := f.idealFCT(m)
	f.fcts = append(f.fcts, fct)
	tc := c.DataTC & 7
	f.tcFct[tc] = append(f.tcFct[tc], fct)
	if ideal > 0 {
		f.tcSlow[tc] = append(f.tcSlow[tc], fct/ideal.Micros())
	} else {
		f.tcNoIdeal[tc]++
	}
	if f.msgAt[c.Tag].host == 0 {
		f.pendingRows[c.Tag] = c // ACKs leave on arrival (nic.md §8): the host write may be behind
	} else {
		f.messageRow(c)
	}
	if c.Tag >= int64(len(f.msgs)) {
		f.collCompleted(int(c.Tag) - len(f.msgs))
	}
	f.checkDrained()
	f.rec.Spill()
}

// messageRow appends the messages row of completion c, with its completion at host
// memory if there is one yet (null columns otherwise: only at the job's end).
func (f *Fabric) messageRow(c nic.Completion) {
	m := f.message(c.Tag)
	fct := (c.Completed - c.Posted).Micros()
	ideal := f.idealFCT(m)
	slow := math.NaN()
	if ideal > 0 {
		slow = fct / ideal.Micros()
	}
	hostSec, hostFct := math.NaN(), math.NaN()
	if t := f.msgAt[c.Tag]; t.host != 0 {
		hostSec, hostFct = t.host.Seconds(), (t.host - t.posted).Micros()
	}
	f.rec.Messages = append(f.rec.Messages, stats.Message{
		JobID: f.rec.JobID, TimeUTC: f.rec.UTC(f.eng.Now()), SimTimeSec: c.Completed.Seconds(),
		MetricName: "fct", PerfMetricUsec: fct, MetricPath: "NAN", MetricAggregationID: "NAN",
		NodeID: f.g.Nodes[f.g.NICs[c.Src]].ID, TransactionNumber: c.Tag, StartTimeSec: c.Posted.Seconds(),
		TransferSizeB: float64(c.Size), ApplicationName: m.App,
		SrcNode: f.g.Nodes[f.g.NICs[c.Src]].ID, DstNode: f.g.Nodes[f.g.NICs[c.Dst]].ID, QP: int64(c.QP),
		DataTC: int32(c.DataTC), SizeBytes: c.Size, PostNs: int64(c.Posted / sim.Nanosecond),
		CompleteNs: int64(c.Completed / sim.Nanosecond), FctUsec: fct, IdealUsec: ideal.Micros(), Slowdown: slow,
		HostCompleteSec: hostSec, HostFctUsec: hostFct,
	})
}

// report writes the periodic records due now and schedules the next row.
func (f *Fabric) report(ev sim.Event) {
	now := f.eng.Now()
	f.reports++
	switch ev.Kind {
	case kindReportND:
		f.reportND(now)
		f.eng.Schedule(now+f.cfg.Global.NDStatsReportInterval, kindReportND, 0, 0, 0)
	case kindReportBuffer:
		for _, s := range f.switches {
			s.ReportBuffer(now, f.rec)
		}
		f.eng.Schedule(now+f.cfg.Switch.SharedBufferManager.BufferStatsReportInterval, kindReportBuffer, 0, 0, 0)
	case kindReportLB:
		for _, s := range f.switches {
			s.ReportLB(now, f.rec)
		}
		f.eng.Schedule(now+f.cfg.Switch.LoadBalancingStatsReportInterval, kindReportLB, 0, 0, 0)
	case kindReportNetBuf:
		for _, n := range f.nics {
			n.ReportNetBuff(now, f.rec)
		}
		f.eng.Schedule(now+f.cfg.Global.NetworkBufferStatsReportingInterval, kindReportNetBuf, 0, 0, 0)
	}
	f.rec.Spill() // rows leave the job per report interval, in batches
}

// reportND writes nd-stats, ecn-pfc-stats, roce-transport-stats and tier-hop rows.
func (f *Fabric) reportND(now sim.Time) {
	for _, s := range f.switches {
		s.ReportND(now, f.rec)
	}
	for _, n := range f.nics {
		n.ReportND(now, f.rec)
	}
	var tiers [3]int64
	for i, s := range f.switches {
		if t := f.g.Nodes[f.g.Switches[i]].Tier; t < 3 {
			tiers[t] += s.Counters().Forwarded
		}
	}
	f.rec.TierHop = append(f.rec.TierHop, stats.TierHop{
		JobID: f.rec.JobID, TimeUTC: f.rec.UTC(now), SimTimeSec: now.Seconds(),
		Spine: tiers[0], Fabric: tiers[1], Rack: tiers[2],
		SpineInt: tiers[0] - f.lastTierHop[0], FabricInt: tiers[1] - f.lastTierHop[1], RackInt: tiers[2] - f.lastTierHop[2],
	})
	f.lastTierHop = tiers
}

// netBuff reports whether the job writes net-buff-stats: the NICs' EnableBufferStats and
// the global EnableNetworkBufferStatsReporting both on (nic.md §16.5, records.md §6.2).
func (f *Fabric) netBuff() bool {
	return f.cfg.NIC.EnableBufferStats && f.cfg.Global.EnableNetworkBufferStatsReporting
}

// Finish writes the final rows (a last partial interval when the run did not end on a
// report boundary, and the final load-balancing row of records.md §7) and the summary.
func (f *Fabric) Finish() *stats.Result {
	now := f.eng.Now()
	if last, ok := f.rec.LastTierHopSec(); f.cfg.Global.NDStatsReportInterval > 0 && (!ok || last < now.Seconds()) {
		f.reportND(now)
	}
	if last, ok := f.rec.LastBufferStatsSec(); !ok || last < now.Seconds() {
		for _, s := range f.switches {
			s.ReportBuffer(now, f.rec)
		}
	}
	if last, ok := f.rec.LastNetBuffStatsSec(); f.netBuff() && (!ok || last < now.Seconds()) {
		for _, n := range f.nics {
			n.ReportNetBuff(now, f.rec)
		}
	}
	if f.cfg.Switch.EnableLoadBalancingStats {
		for _, s := range f.switches {
			s.ReportLB(now, f.rec)
		}
	}
	// Messages completed at the sender whose last byte had not reached host memory by
	// the end: their rows, host columns null, in tag order (a map has none).
	tags := make([]int64, 0, len(f.pendingRows))
	for tag := range f.pendingRows {
		tags = append(tags, tag)
	}
	slices.Sort(tags)
	for _, tag := range tags {
		f.messageRow(f.pendingRows[tag])
	}
	sum := f.summary()
	f.rec.Classes = f.classes(&sum)
	return &stats.Result{Rec: f.rec, Summary: sum}
}

// classes builds the classes rows (one per data TC that carried messages) and sets the
// summary's per-kind answers: nearest-rank percentiles over every message started
// (posted by the end) of lossless (rack switch EnablePFC = 1, switch.md §4.3) and lossy
// data classes, a message not completed counting as slower than every completed one
// (records.md §8.1: NaN, "not reached", where the rank falls among those).
func (f *Fabric) classes(s *stats.Summary) []stats.Class {
	var drops, rtx, delivered [8]int64
	for _, sw := range f.switches {
		c := sw.Counters()
		for tc := range drops {
			drops[tc] += c.DropsTC[tc]
		}
	}
	for _, n := range f.nics {
		c := n.Counters()
		for tc := range rtx {
			rtx[tc] += c.RetransmitsTC[tc]
			delivered[tc] += c.PayloadDeliveredTC[tc]
		}
	}
	var rows []stats.Class
	var fct, hostFct, slow [2][]float64 // [lossy, lossless]
	var started, slowStarted [2]int64
	now := f.eng.Now()
	for tc := range f.tcPosted {
		if f.tcPosted[tc] == 0 {
			continue
		}
		// The rack tier's EnablePFC: every host's traffic enters and leaves through it.
		lossless := f.tierSw[config.TierRack].SharedBufferManager.EnablePFC[tc] == 1
		k := 0
		if lossless {
			k = 1
		}
		n, nSlow := f.tcPosted[tc], f.tcPosted[tc]-f.tcNoIdeal[tc]
		started[k] += n
		slowStarted[k] += nSlow
		fct[k] = append(fct[k], f.tcFct[tc]...)
		hostFct[k] = append(hostFct[k], f.tcHostFct[tc]...)
		slow[k] = append(slow[k], f.tcSlow[tc]...)
		r := stats.Class{JobID: f.rec.JobID, DataTC: int32(tc), Lossless: lossless,
			MsgsPosted: n, MsgsCompleted: int64(len(f.tcFct[tc])), MsgsHostCompleted: int64(len(f.tcHostFct[tc])),
			BytesDelivered: delivered[tc], Drops: drops[tc], Retransmits: rtx[tc]}
		r.CompletedFrac = float64(r.MsgsCompleted) / float64(n)
		if now > 0 {
			r.GoodputGbps = float64(delivered[tc]) * 8 / now.Seconds() / 1e9
		}
		fs, hs, ss := sortedCopy(f.tcFct[tc]), sortedCopy(f.tcHostFct[tc]), sortedCopy(f.tcSlow[tc])
		r.FctP50Usec, r.FctP99Usec, r.FctMaxUsec = percentileStarted(fs, n, 0.50), percentileStarted(fs, n, 0.99), percentileStarted(fs, n, 1)
		r.HostFctP50Usec, r.HostFctP99Usec, r.HostFctMaxUsec = percentileStarted(hs, n, 0.50), percentileStarted(hs, n, 0.99), percentileStarted(hs, n, 1)
		r.SlowdownP50, r.SlowdownP99 = percentileStarted(ss, nSlow, 0.50), percentileStarted(ss, nSlow, 0.99)
		rows = append(rows, r)
	}
	p99 := func(v []float64, n int64) float64 { return percentileStarted(sortedCopy(v), n, 0.99) }
	s.MsgsStartedLossy, s.MsgsStartedLossless = started[0], started[1]
	s.MsgsCompletedLossy, s.MsgsCompletedLossless = int64(len(fct[0])), int64(len(fct[1]))
	s.CompletedFracLossy, s.CompletedFracLossless = fraction(len(fct[0]), started[0]), fraction(len(fct[1]), started[1])
	s.FctP99UsecLossy, s.FctP99UsecLossless = p99(fct[0], started[0]), p99(fct[1], started[1])
	s.HostFctP99UsecLossy, s.HostFctP99UsecLossless = p99(hostFct[0], started[0]), p99(hostFct[1], started[1])
	s.SlowdownP99Lossy, s.SlowdownP99Lossless = p99(slow[0], slowStarted[0]), p99(slow[1], slowStarted[1])
	return rows
}

// fraction is done / started, NaN when nothing started (null: no answer).
func fraction(done int, started int64) float64 {
	if started == 0 {
		return math.NaN()
	}
	return float64(done) / float64(started)
}

func sortedCopy(v []float64) []float64 {
	out := slices.Clone(v)
	slices.Sort(out)
	return out
}

// summary aggregates the device counters into the jobs metrics (design.md "Summary
// metrics"). drops_total = drops_lossless + drops_lossy + nic_rx_drops.
func (f *Fabric) summary() stats.Summary {
	now := f.eng.Now()
	s := stats.Summary{
		SimTimeSec:        now.Seconds(),
		Events:            int64(f.eng.Fired()) - f.reports, // model events only
		BytesDelivered:    f.delivered,
		MsgsCompleted:     int64(f.completed),
		MsgsHostCompleted: int64(f.hostCompleted),
	}
	if now > 0 {
		s.GoodputGbps = float64(f.delivered) * 8 / now.Seconds() / 1e9
	}
	// Over every message started, unfinished ones counted as slower than any completed:
	// NaN (null in jobs) where the rank falls among them, "not reached" (results.md §2);
	// 0 would read as the best job, a percentile of the completed alone flatters it.
	for _, n := range f.tcPosted {
		s.MsgsStarted += n
	}
	fs, hs := sortedCopy(f.fcts), sortedCopy(f.hostFcts)
	s.FctP50Usec, s.FctP99Usec, s.FctMaxUsec = percentileStarted(fs, s.MsgsStarted, 0.50), percentileStarted(fs, s.MsgsStarted, 0.99), percentileStarted(fs, s.MsgsStarted, 1)
	s.HostFctP50Usec, s.HostFctP99Usec, s.HostFctMaxUsec = percentileStarted(hs, s.MsgsStarted, 0.50), percentileStarted(hs, s.MsgsStarted, 0.99), percentileStarted(hs, s.MsgsStarted, 1)
	var paused sim.Time
	for _, sw := range f.switches {
		c := sw.Counters()
		s.DropsLossless += c.DropsLossless
		s.DropsLossy += c.DropsLossy
		s.PfcPauseTx += c.PfcPauseTx
		paused += c.PfcPausedTime
		s.EcnMarked += c.EcnMarked
		s.MaxEgressQueueBytes = max(s.MaxEgressQueueBytes, c.MaxEgressQueueBytes)
		s.MaxIngressPortBytes = max(s.MaxIngressPortBytes, c.MaxIngressPortBytes)
		s.MaxPoolBytes = max(s.MaxPoolBytes, c.MaxPoolBytes)
		s.StuckPausePorts += int64(sw.StuckPauses(now, now/2))
	}
	for _, n := range f.nics {
		c := n.Counters()
		s.NicRxDrops += c.RxDrops
		s.PfcPauseTx += c.PfcPauseTx
		paused += c.PfcPausedTime
		s.CnpSent += c.CnpSent
		s.Retransmits += c.Retransmits
		s.DataPackets += c.DataFramesSent
	}
	s.PfcPausedUsec = paused.Micros()
	f.collectiveSummary(&s)
	s.DropsTotal = s.DropsLossless + s.DropsLossy + s.NicRxDrops
	return s
}

// percentile returns the nearest-rank p-quantile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	k := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// percentileStarted is the nearest-rank p-quantile over the started messages, of which
// the completed ones have the values sorted: the k-th smallest with k = ceil(p ×
// started). A message not completed counts as slower than every completed one (its time
// is at least the job's end minus its post time, and unknown), so when k exceeds the
// completed count the quantile is among the unfinished: NaN, "not reached" (records.md
// §8.1). p = 1 is the maximum: NaN unless every started message completed. Nothing
// started: NaN.
func percentileStarted(sorted []float64, started int64, p float64) float64 {
	started = max(started, int64(len(sorted)))
	if started == 0 {
		return math.NaN()
	}
	k := max(1, int64(math.Ceil(p*float64(started))))
	if k > int64(len(sorted)) {
		return math.NaN()
	}
	return sorted[k-1]
}

// idealFCT is the completion time of message m alone in an idle fabric: the 80 ns
// generation start, the first segment's PCIe read (request + completion), the first
// packet's store-and-forward trip over every cable, the remaining packets at the
// bottleneck pace (slowest cable or PCIe completion stream), and the ACK's trip back
// (nic.md §3, §5, §6, §9: the solicited last packet is acknowledged on arrival).
func (f *Fabric) idealFCT(m *workload.Message) sim.Time {
	key := [2]int32{m.Src, m.Dst}
	ip, ok := f.ideal[key]
	if !ok {
		for _, c := range f.g.Path(m.Src, m.Dst) {
			ip.rates = append(ip.rates, f.g.Cables[c].RateBps)
			ip.prop += f.g.Cables[c].Delay
		}
		f.ideal[key] = ip
	}
	if len(ip.rates) == 0 {
		return 0
	}
	nc := &f.cfg.NIC
	mss := int64(nc.RoceQpManager.MSS)
	n := max(1, (m.Size+mss-1)/mss)
	first := min(m.Size, mss)
	toHost := float64(nc.HostInterface.NICSide.PhysicalLayer.LaneBps) * float64(nc.HostInterface.NICSide.PhysicalLayer.LaneCount)
	toNIC := float64(nc.HostInterface.HostSide.PhysicalLayer.LaneBps) * float64(nc.HostInterface.HostSide.PhysicalLayer.LaneCount)
	pcie := func(payload int64) sim.Time {
		tr := max(1, (payload+511)/512)
		return sim.SerializationNearest(payload+34*tr, toNIC)
	}
	t := 80*sim.Nanosecond + sim.SerializationNearest(int64(nc.HostInterface.NICSide.NICPCIeHandler.ReadRequestSize)+34, toHost) + pcie(first)
	// pace(b) is the spacing of b-byte segments at the bottleneck: the slowest cable or
	// the PCIe completion stream, whichever is slower.
	pace := func(b int64) sim.Time {
		p := pcie(b)
		for _, r := range ip.rates {
			p = max(p, sim.SerializationNearest(b+pkt.DataOverhead, r))
		}
		return p
	}
	for _, r := range ip.rates {
		t += sim.SerializationNearest(first+pkt.DataOverhead, r) + sim.SerializationNearest(pkt.AckWire, r)
	}
	t += 2 * ip.prop
	if n > 1 { // the other segments follow at the bottleneck pace; the last may be short
		t += sim.Time(n-2)*pace(mss) + pace(m.Size-(n-1)*mss)
	}
	return t
}
