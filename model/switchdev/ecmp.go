package switchdev

import (
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"

	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// Hash methods of switch.md §10.1 (EcmpHashMethod).
const (
	HashDPR = iota
	HashHash
	HashHashWithSalt
	HashCRC32
	HashCRC32WithSalt
	HashDPRWithFallback
)

var hashNames = [...]string{"dpr", "hash", "hashWithSalt", "crc32", "crc32WithSalt", "dprWithFallback"}

func hashMethod(name string) (int, error) {
	for i, n := range hashNames {
		if n == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("switch: EcmpHashMethod %q is not one of %s (switch.md §10.1)", name, strings.Join(hashNames[:], ", "))
}

// Flowlet table geometry (switch.md §10.3).
const (
	FlowTableSlots = 512 // slots per set, slot = h mod 512
	FlowTableSets  = 128 // only the first 128 sets get a table
)

// fmix32 is the MurmurHash3 finaliser (§10.1).
func fmix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x85EBCA6B
	x ^= x >> 13
	x *= 0xC2B2AE35
	x ^= x >> 16
	return x
}

func fold16(x uint32) uint32 { return uint32(uint16(x ^ (x >> 16))) }

// Salt is the per-switch salt, a pure function of the node id (switch.md §10.1, DC-18):
// fmix32(uint32(nodeID) + 0x9E3779B9).
func Salt(nodeID int64) uint32 { return fmix32(uint32(nodeID) + 0x9E3779B9) }

// FlowHash is the flow identity h of switch.md §10.1 for method m (HashDPR..) and salt.
// key is scratch space for the CRC input (protocol ‖ sport ‖ dport ‖ src ‖ dst, big-endian),
// passed in so that the hot path does not allocate. The member index is h mod set size.
// For dprWithFallback, n is the set size (the dpr index is used only when it is < n).
func FlowHash(m int, salt uint32, p *pkt.Packet, n int, key *[13]byte) uint32 {
	hashed := p.Proto == pkt.ProtoTCP || p.Proto == pkt.ProtoUDP // DC-17
	switch m {
	case HashDPR:
		return (p.DstIP() - 1) & 0x1FF // destination index, every IP packet
	case HashDPRWithFallback:
		if idx := (p.DstIP() - 1) & 0x1FF; int(idx) < n {
			return idx
		}
		m = HashCRC32 // fallback: unsalted CRC of the headers
	}
	if !hashed {
		return 0 // DC-17: one shared identity for non-TCP/UDP
	}
	switch m {
	case HashCRC32, HashCRC32WithSalt:
		key[0] = p.Proto
		key[1], key[2] = byte(p.SPort>>8), byte(p.SPort)
		key[3], key[4] = byte(p.DPort>>8), byte(p.DPort)
		key[5], key[6], key[7], key[8] = byte(p.SrcIP()>>24), byte(p.SrcIP()>>16), byte(p.SrcIP()>>8), byte(p.SrcIP())
		key[9], key[10], key[11], key[12] = byte(p.DstIP()>>24), byte(p.DstIP()>>16), byte(p.DstIP()>>8), byte(p.DstIP())
		if m == HashCRC32 {
			return fold16(crc32.ChecksumIEEE(key[:]))
		}
		c := crc32.Update(salt, crc32.IEEETable, key[:])
		return fold16(fmix32(c ^ salt))
	case HashHash, HashHashWithSalt:
		x := p.SrcIP() ^ p.DstIP() ^ (uint32(p.SPort)<<16 + uint32(p.DPort))
		if m == HashHashWithSalt {
			x += salt
		}
		return fold16(x)
	}
	panic(fmt.Sprintf("switchdev: hash method %d", m))
}

// flowHash is FlowHash for this switch, with the CRC of the frame's key computed once per
// frame (pkt.Packet.FlowCRC) instead of at every switch. The salted CRC follows from the
// unsalted one: CRC-32 is affine in its initial value, so crc32.Update(salt, key) =
// crc32.Update(0, key) ^ crcSaltK, crcSaltK = crc32.Update(salt, 0¹³) ^ crc32.Update(0, 0¹³)
// (TestFlowHashCached checks it against FlowHash).
func (s *Switch) flowHash(p *pkt.Packet, n int) uint32 {
	m := int(s.hashFn)
	switch m {
	case HashCRC32, HashCRC32WithSalt, HashDPRWithFallback:
	default:
		return FlowHash(m, s.ecmp.salt, p, n, &s.ecmp.key)
	}
	if m == HashDPRWithFallback {
		if idx := (p.DstIP() - 1) & 0x1FF; int(idx) < n {
			return idx
		}
		m = HashCRC32 // fallback: unsalted CRC of the headers
	}
	if p.Proto != pkt.ProtoTCP && p.Proto != pkt.ProtoUDP {
		return 0 // DC-17: one shared identity for non-TCP/UDP
	}
	if !p.FlowCRCSet {
		key := &s.ecmp.key
		key[0] = p.Proto
		key[1], key[2] = byte(p.SPort>>8), byte(p.SPort)
		key[3], key[4] = byte(p.DPort>>8), byte(p.DPort)
		key[5], key[6], key[7], key[8] = byte(p.SrcIP()>>24), byte(p.SrcIP()>>16), byte(p.SrcIP()>>8), byte(p.SrcIP())
		key[9], key[10], key[11], key[12] = byte(p.DstIP()>>24), byte(p.DstIP()>>16), byte(p.DstIP()>>8), byte(p.DstIP())
		p.FlowCRC, p.FlowCRCSet = crc32.ChecksumIEEE(key[:]), true
	}
	if m == HashCRC32 {
		return fold16(p.FlowCRC)
	}
	return fold16(fmix32(p.FlowCRC ^ s.ecmp.crcSaltK ^ s.ecmp.salt))
}

// crcSaltK is the term that turns the zero-initial CRC-32 of a 13-byte key into the one
// with initial value salt (flowHash).
func crcSaltK(salt uint32) uint32 {
	var zero [13]byte
	return crc32.Update(salt, crc32.IEEETable, zero[:]) ^ crc32.Update(0, crc32.IEEETable, zero[:])
}

type flowSlot struct {
	member int16 // index into the set's members
	valid  bool
	last   sim.Time
}

// lbTraffic is one member's traffic (§10.4), which every packet through the set counts:
// 16 bytes, apart from lbCount, so that a set's traffic counters share a line or two.
type lbTraffic struct {
	bytes, packets int64
}

// lbCount are one member's flowlet and pause counters (§10.3, §10.4).
type lbCount struct {
	assignments, movIn, movOut, pausedSkips, pausedSels int64
}

// ecmpSet is one ECMP set (§10.2). What every frame through it reads (its members, its
// traffic counters, whether it has a flowlet table) fills its first line; a set is three
// lines, so that in the switch's slice of sets every set's first line is a whole line.
type ecmpSet struct {
	members []int16 // ascending port ids (DC-15)
	traffic []lbTraffic
	table   *[FlowTableSlots]flowSlot // nil: no flowlet table (§10.3: sets after the 128th, or `none`)
	formed  sim.Time
	ifids   string // "a;b;c" (RC-18)
	cnt     []lbCount
	prevT   []lbTraffic // at the previous load-balancing row
	prev    []lbCount   // likewise
	_       [40]byte
}

// dstEntry is the route toward one destination.
type dstEntry struct {
	set  int32 // the ECMP set (>= 2 members); -1: a single route, port
	port int16 // set == -1: the only egress port; -1: no route
}

// A next-hop table entry is a route code of 4 bytes, sixteen to a cache line: 0 not yet
// known; c > 0 the ECMP set c-1; c < 0 the single egress port -c-2 (-1: no route).
func routeCode(d dstEntry) int32 {
	if d.set >= 0 {
		return d.set + 1
	}
	return -int32(d.port) - 2
}

func routeOf(c int32) dstEntry {
	if c > 0 {
		return dstEntry{set: c - 1, port: -1}
	}
	return dstEntry{set: -1, port: int16(-c - 2)}
}

// ecmpState is the switch's route cache and ECMP state (§10). Its first line is what
// every frame's lookup reads: the hash salts, the destination keys of other attachment
// switches (a copy of keys.Attach, Self and N) and the route codes.
type ecmpState struct {
	salt     uint32
	crcSaltK uint32  // crcSaltK(salt)
	self, n  int32   // keys.Self, keys.N
	attach   []int32 // keys.Attach; nil: dst is indexed by host
	dst      []int32 // route codes per destination key (per host when keys is nil), filled at first sight
	sets     []ecmpSet
	keys     *DestKeys
	key      [13]byte
	_        [19]byte
}

// lbDecision carries the route choice from lookup to egress admission, where it is
// committed (§10.3 "commit on egress admission only").
type lbDecision struct {
	set    int32 // -1: no set (single route)
	member int16 // index in the set
	slot   int32 // -1: no flowlet slot
}

// lookup returns the cached equal-cost members toward dstHost, asking route on first sight
// of its key and creating the set (DC-16: ≥ 2 members; ids in creation order) when
// needed. Hosts of one key share the route, so a set is created at the first packet that
// needs it whether the cache is per host or per key.
func (s *Switch) lookup(dstHost int32, now sim.Time) dstEntry {
	es := &s.ecmp
	if dstHost < 0 {
		return dstEntry{set: -1, port: -1}
	}
	key := dstHost
	if es.attach != nil {
		if a := es.attach[dstHost]; a != es.self {
			key = a
		} else {
			key = es.n + es.keys.Slot[dstHost]
		}
	}
	if int(key) >= len(es.dst) {
		// Identity.Hosts or Keys sizes the cache; grow only when neither was given (tests).
		nd := make([]int32, max(int(key)+1, 2*len(es.dst)))
		copy(nd, es.dst)
		es.dst = nd
	}
	if c := es.dst[key]; c != 0 {
		return routeOf(c)
	}
	d := s.learnRoute(dstHost, now)
	es.dst[key] = routeCode(d)
	return d
}

// learnRoute asks route for the members toward dstHost and finds or creates their set.
func (s *Switch) learnRoute(dstHost int32, now sim.Time) dstEntry {
	es := &s.ecmp
	members := s.route(dstHost) // interned by the caller: shared, never modified
	d := dstEntry{set: -1, port: -1}
	switch {
	case len(members) == 1:
		d.port = members[0]
		return d
	case len(members) == 0:
		return d
	}
	for k := range es.sets {
		if slices.Equal(es.sets[k].members, members) {
			d.set = int32(k)
			return d
		}
	}
	ids := make([]string, len(members))
	for k, m := range members {
		ids[k] = strconv.Itoa(int(m))
	}
	set := ecmpSet{members: members, ifids: strings.Join(ids, ";"), formed: now,
		traffic: make([]lbTraffic, len(members)), cnt: make([]lbCount, len(members)),
		prevT: make([]lbTraffic, len(members)), prev: make([]lbCount, len(members))}
	if s.flowlet && len(es.sets) < FlowTableSets {
		set.table = new([FlowTableSlots]flowSlot)
	}
	d.set = int32(len(es.sets))
	es.sets = append(es.sets, set)
	return d
}

// selectEgress is switch.md §10: the egress port for packet p of class tc, with the
// decision to commit at egress admission. It returns -1 when there is no route.
func (s *Switch) selectEgress(p *pkt.Packet, tc int, now sim.Time) (int16, lbDecision) {
	dec := lbDecision{set: -1, slot: -1}
	d := s.lookup(p.DstHost, now)
	if d.set < 0 {
		return d.port, dec // a single route, or -1: none
	}
	set := &s.ecmp.sets[d.set]
	n := len(set.members)
	h := s.flowHash(p, n)
	dec.set = d.set
	if set.table == nil {
		// §10.2: member = members[h mod n].
		dec.member = int16(h % uint32(n))
		return set.members[dec.member], dec
	}
	// §10.3 flowlet.
	slotIdx := int32(h % FlowTableSlots)
	dec.slot = slotIdx
	slot := &set.table[slotIdx]
	if slot.valid && now-slot.last < s.fp.gap {
		dec.member = slot.member // within the gap: keep it, even if since paused
		return set.members[dec.member], dec
	}
	dec.member = s.flowletPick(set, slot, tc, now)
	return set.members[dec.member], dec
}

// flowletPick is the §10.3 decision: candidates (PFC-aware exclusion unless all are
// paused), least load Σ_p egQ, keep the slot's member on a tie, else a seeded uniform
// choice among the least loaded (DC-14, from the switch's load-balancing stream). paused_* counters are taken here (DC-19).
func (s *Switch) flowletPick(set *ecmpSet, slot *flowSlot, tc int, now sim.Time) int16 {
	n := len(set.members)
	paused := 0
	for k := 0; k < n; k++ {
		if s.ports[set.members[k]].pausedBy(tc, now) {
			paused++
		}
	}
	exclude := s.pfcAware && paused > 0 && paused < n
	candidate := func(k int) bool {
		return !exclude || !s.ports[set.members[k]].pausedBy(tc, now)
	}
	minLoad := int64(-1)
	for k := 0; k < n; k++ {
		if !candidate(k) {
			set.cnt[k].pausedSkips++
			continue
		}
		if l := s.load(set.members[k]); minLoad < 0 || l < minLoad {
			minLoad = l
		}
	}
	var pick int16 = -1
	if slot.valid && candidate(int(slot.member)) && s.load(set.members[slot.member]) == minLoad {
		pick = slot.member
	} else {
		ties := 0
		for k := 0; k < n; k++ {
			if candidate(k) && s.load(set.members[k]) == minLoad {
				ties++
			}
		}
		r := 0
		if ties > 1 {
			r = s.lbRng.IntN(ties)
		}
		for k := 0; k < n; k++ {
			if candidate(k) && s.load(set.members[k]) == minLoad {
				if r == 0 {
					pick = int16(k)
					break
				}
				r--
			}
		}
	}
	if s.ports[set.members[pick]].pausedBy(tc, now) {
		set.cnt[pick].pausedSels++
	}
	return pick
}

// load is the §10.3 load metric: bytes in the port's egress queues, all pools, including
// the frame being serialised.
func (s *Switch) load(e int16) int64 {
	var l int64
	pt := &s.ports[e]
	for pl := 0; pl < 8; pl++ {
		l += pt.eg(pl).egQ
	}
	return l
}

// lbOnAdmit commits the flowlet choice and counts the member's traffic (§10.3, §10.4).
func (s *Switch) lbOnAdmit(e int, b int64, dec lbDecision, now sim.Time) {
	if dec.set < 0 {
		return
	}
	set := &s.ecmp.sets[dec.set]
	t := &set.traffic[dec.member]
	t.bytes += b
	t.packets++
	if dec.slot < 0 {
		return
	}
	c := &set.cnt[dec.member]
	slot := &set.table[dec.slot]
	switch {
	case !slot.valid:
		c.assignments++
	case slot.member != dec.member:
		set.cnt[slot.member].movOut++
		c.movIn++
	}
	slot.member, slot.last, slot.valid = dec.member, now, true
}
