package switchdev

import (
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/link"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
)

// TestFlowHashLayouts checks the §10.1 bit layouts on hand-computed values.
func TestFlowHashLayouts(t *testing.T) {
	p := &pkt.Packet{Proto: pkt.ProtoUDP, SrcHost: 0, DstHost: 1, SPort: 3, DPort: 4} // SrcIP 1, DstIP 2
	var key [13]byte
	salt := Salt(5)
	if salt != fmix32(5+0x9E3779B9) || Salt(5) != salt || Salt(6) == salt {
		t.Fatalf("salt not a pure, id-dependent function")
	}
	// hash: x = 1 ^ 2 ^ (3<<16 + 4) = 0x30007; fold16 = 0x0007 ^ 0x0003 = 4.
	if h := FlowHash(HashHash, salt, p, 4, &key); h != 4 {
		t.Errorf("hash = %d, want 4", h)
	}
	x := uint32(0x30007) + salt
	if h := FlowHash(HashHashWithSalt, salt, p, 4, &key); h != uint32(uint16(x^(x>>16))) {
		t.Errorf("hashWithSalt = %d", h)
	}
	k := []byte{17, 0, 3, 0, 4, 0, 0, 0, 1, 0, 0, 0, 2}
	c := crc32.ChecksumIEEE(k)
	if h := FlowHash(HashCRC32, salt, p, 4, &key); h != uint32(uint16(c^(c>>16))) {
		t.Errorf("crc32 = %d", h)
	}
	cs := fmix32(crc32.Update(salt, crc32.IEEETable, k) ^ salt)
	if h := FlowHash(HashCRC32WithSalt, salt, p, 4, &key); h != uint32(uint16(cs^(cs>>16))) {
		t.Errorf("crc32WithSalt = %d", h)
	}
	// dpr: low 9 bits of dst − 1; dprWithFallback uses it only when < n.
	p.DstHost = 514 // DstIP 515: index 514 & 0x1FF = 2
	if h := FlowHash(HashDPR, salt, p, 4, &key); h != 2 {
		t.Errorf("dpr = %d, want 2", h)
	}
	if h := FlowHash(HashDPRWithFallback, salt, p, 4, &key); h != 2 {
		t.Errorf("dprWithFallback (index < n) = %d, want 2", h)
	}
	if h, want := FlowHash(HashDPRWithFallback, salt, p, 2, &key), FlowHash(HashCRC32, salt, p, 2, &key); h != want {
		t.Errorf("dprWithFallback (index ≥ n) = %d, want crc32 %d", h, want)
	}
	// DC-17: non-TCP/UDP → 0 for hash methods; dpr still applies.
	p.Proto = 1
	for m := HashHash; m <= HashCRC32WithSalt; m++ {
		if h := FlowHash(m, salt, p, 4, &key); h != 0 {
			t.Errorf("method %s on ICMP = %d, want 0", hashNames[m], h)
		}
	}
	if h := FlowHash(HashDPR, salt, p, 4, &key); h != 2 {
		t.Errorf("dpr on ICMP = %d, want 2", h)
	}
}

// twoTier runs flows through switch A (4 members) into four tier-B switches (4 members
// each) and returns, per B switch, the packets per member.
func twoTier(t *testing.T, method string, flows int) [4][4]int64 {
	cfg := config.DefaultSwitch()
	cfg.EcmpHashMethod = method
	f := newFab(t)
	f.keep = false
	members := []int16{1, 2, 3, 4}
	route := func(int32) []int16 { return members }
	a := f.addSwitch(&cfg, 100, 5, rate400, delay, route)
	var bs [4]*Switch
	for k := 0; k < 4; k++ {
		bs[k] = f.addSwitch(&cfg, int64(200+k), 5, rate400, delay, route)
		a.ports[k+1].out.To = link.Endpoint{Owner: sim.OwnerSwitch, Dev: int32(k + 1), Port: 0}
	}
	r := rand.New(rand.NewPCG(1, 2))
	ser := sim.SerializationCeil(1018, rate400)
	for i := 0; i < flows; i++ {
		h := f.data(0, 1000, int32(r.IntN(1024)), int32(r.IntN(1024)), uint16(r.IntN(65536)))
		f.at(sim.Time(i)*ser, 0, 0, h)
	}
	f.run(sim.Never)
	f.checkConservation()
	var out [4][4]int64
	for k, b := range bs {
		if c := b.Counters(); c.RxDrops+c.TxDrops != 0 {
			t.Fatalf("drops at B%d", k)
		}
		if len(b.ecmp.sets) != 1 {
			t.Fatalf("B%d has %d sets, want 1", k, len(b.ecmp.sets))
		}
		for m := 0; m < 4; m++ {
			out[k][m] = b.ecmp.sets[0].traffic[m].packets
		}
	}
	return out
}

// TestHashPolarisation: crc32WithSalt spreads the second tier's flows within 10% of
// uniform; crc32 and hash (no salt) polarise: each tier-B switch uses one member.
func TestHashPolarisation(t *testing.T) {
	const flows = 65536
	salted := twoTier(t, "crc32WithSalt", flows)
	for k := range salted {
		var sum int64
		for _, n := range salted[k] {
			sum += n
		}
		mean := float64(sum) / 4
		for m, n := range salted[k] {
			if math.Abs(float64(n)-mean) > 0.1*mean {
				t.Errorf("crc32WithSalt: B%d member %d carried %d, mean %.0f (> 10%% off)", k, m, n, mean)
			}
		}
	}
	if again := twoTier(t, "crc32WithSalt", flows); again != salted {
		t.Errorf("same node ids, different spreads: %v vs %v", salted, again)
	}
	for _, method := range []string{"crc32", "hash"} {
		pol := twoTier(t, method, flows)
		for k := range pol {
			used := 0
			for _, n := range pol[k] {
				if n > 0 {
					used++
				}
			}
			if used != 1 {
				t.Errorf("%s: B%d used %d members %v, want 1 (polarised)", method, k, used, pol[k])
			}
		}
	}
}

// TestFlowlet: PFC-aware exclusion, stickiness within Gap, movement after it (§10.3).
func TestFlowlet(t *testing.T) {
	cfg := config.DefaultSwitch()
	cfg.LoadBalancingMethod = "flowlet"
	f := newFab(t)
	members := []int16{1, 2}
	sw := f.addSwitch(&cfg, 5, 3, rate400, delay, func(int32) []int16 { return members })
	f.at(0, 0, 1, f.pfc(0, pkt.PauseQuanta)) // port 1 paused for TC0 until 84.38 us
	for k := 0; k < 5; k++ {
		f.at(sim.Nanosecond, 0, 0, f.data(0, 4000, 0, 9, 7)) // flow X
	}
	f.run(2 * sim.Nanosecond)
	set := &sw.ecmp.sets[0]
	if set.traffic[1].packets != 5 || set.traffic[0].packets != 0 {
		t.Fatalf("flow X: members carried %d/%d, want 0/5 (port 1 paused)", set.traffic[0].packets, set.traffic[1].packets)
	}
	if set.cnt[0].pausedSkips != 1 || set.cnt[1].assignments != 1 {
		t.Fatalf("skips %d assignments %d, want 1 1 (one decision, one commit into an empty slot)", set.cnt[0].pausedSkips, set.cnt[1].assignments)
	}
	// Port 2 paused later; after the gap flow X moves to port 1.
	f.at(150*sim.Microsecond, 0, 2, f.pfc(0, pkt.PauseQuanta))
	f.at(200*sim.Microsecond, 0, 0, f.data(0, 4000, 0, 9, 7))
	f.run(201 * sim.Microsecond)
	if set.traffic[0].packets != 1 || set.cnt[1].movOut != 1 || set.cnt[0].movIn != 1 {
		t.Fatalf("after gap: member 0 packets %d, movOut[1] %d movIn[0] %d; want 1 1 1", set.traffic[0].packets, set.cnt[1].movOut, set.cnt[0].movIn)
	}
	f.run(sim.Never)
	f.checkConservation()
}

// TestFlowHashCached: the switch's hash, with the key's CRC computed once per frame and
// reused at the next switch, equals FlowHash for every method, salt, set size and
// protocol, on the frame's first and later switches.
func TestFlowHashCached(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 1))
	var key [13]byte
	for i := 0; i < 2000; i++ {
		p := &pkt.Packet{Proto: []uint8{pkt.ProtoUDP, pkt.ProtoTCP, 1}[r.IntN(3)], SPort: uint16(r.Uint32()), DPort: uint16(r.Uint32()),
			SrcHost: r.Int32N(1 << 20), DstHost: r.Int32N(1 << 20)}
		n := 2 + r.IntN(600)
		for hop := 0; hop < 3; hop++ { // the first hop computes the CRC, later hops reuse it
			for m := range hashNames {
				s := &Switch{hashFn: uint8(m)}
				s.ecmp.salt = Salt(r.Int64())
				s.ecmp.crcSaltK = crcSaltK(s.ecmp.salt)
				if got, want := s.flowHash(p, n), FlowHash(m, s.ecmp.salt, p, n, &key); got != want {
					t.Fatalf("%s, %+v, n %d, hop %d: %d, want %d", hashNames[m], *p, n, hop, got, want)
				}
			}
		}
		if p.Proto != 1 && !p.FlowCRCSet {
			t.Fatalf("%+v: no CRC kept", *p)
		}
	}
}

// TestRouteCode: a next-hop table entry decodes to the route it was made from, and no
// route is ever coded as "not yet known".
func TestRouteCode(t *testing.T) {
	for _, d := range []dstEntry{{-1, -1}, {-1, 0}, {-1, 1}, {-1, 32767}, {0, -1}, {1, -1}, {1 << 20, -1}} {
		c := routeCode(d)
		if c == 0 || routeOf(c) != d {
			t.Errorf("%+v: code %d decodes to %+v", d, c, routeOf(c))
		}
	}
}
