// Package pkt holds the frame that crosses links between NICs and switches, and the
// per-job pool that recycles frames so the hot path allocates nothing (design.md "The
// engine": pooled packets). Frames are named by Handle, a small integer that fits in an
// event's Arg; a *Packet stays valid until the handle is freed.
package pkt

import "fmt"

// Type is what a frame is. The zero Type is invalid.
type Type uint8

const (
	Data Type = iota + 1 // RoCEv2 data (SEND/WRITE segment)
	Ack                  // RoCEv2 ACK
	Nak                  // RoCEv2 NAK
	Cnp                  // congestion notification packet
	Pfc                  // IEEE 802.1Qbb PFC frame (pause or resume)
)

func (t Type) String() string {
	switch t {
	case Data:
		return "data"
	case Ack:
		return "ack"
	case Nak:
		return "nak"
	case Cnp:
		return "cnp"
	case Pfc:
		return "pfc"
	}
	return fmt.Sprintf("pkt.Type(%d)", uint8(t))
}

// ECN field values (RFC 3168).
const (
	NotECT uint8 = 0
	ECT1   uint8 = 1
	ECT0   uint8 = 2
	CE     uint8 = 3
)

// Frame sizes (nic.md §6, switch.md §5.1, DC-6, DC-8).
const (
	EthOverhead  = 18 // 14 B Ethernet header + 4 B FCS, added on transmit, never charged
	MinL3        = 46 // minimum charge / padded payload of an Ethernet frame
	DataOverhead = 58 // data frame on the wire = payload + 58 (12 BTH + 8 UDP + 20 IPv4 + 18)
	DataL3Extra  = 40 // data L3 length = payload + 40
	AckWire      = 126
	CnpWire      = 122
	PfcWire      = 84
	ProtoUDP     = 17
	ProtoTCP     = 6
	RoCEv2Port   = 4791
	PauseQuanta  = 65535 // quanta of a switch-sent pause (switch.md §7.1)
)

// Handle names a pooled Packet. The zero Handle is invalid.
type Handle int32

// Packet is one frame. Size is the L3 length (the frame without Ethernet header and FCS);
// what a device charges to a buffer and what it puts on the wire derive from it.
type Packet struct {
	// Fields are grouped by size (8, 4, 2, 1 bytes) so that the struct has no padding and
	// fits 64 bytes: a large fabric holds hundreds of thousands of frames at once
	// (TestPacketSize). Sizes in bytes fit 16 bits: a frame is at most MSS (9,216) + 58.

	// RoCEv2 BTH/AETH, simulator metadata.
	PSN int64 // data: its PSN; ACK: last PSN acknowledged (E-1); NAK: expected PSN E
	// Sent is when the frame last left a device (serialization end), for RTT samples.
	Sent int64

	DestQP uint32 // BTH destination QPN
	SrcQP  uint32 // sender's QP number (simulator metadata; the reply goes there)
	// Source and destination hosts; the IPv4 addresses are host + 1 (SrcIP, DstIP).
	// Simulator metadata carried for the receiver (nic.md §3 [DC]: an implicit responder
	// QP copies its TC pair from the first data packet). A PFC frame has DstHost -1.
	SrcHost, DstHost int32
	Epoch            uint32
	// FlowCRC is the CRC-32 (IEEE, zero initial value) of the frame's ECMP hash key
	// (protocol ‖ sport ‖ dport ‖ src ‖ dst, switch.md §10.1), valid when FlowCRCSet: the
	// first switch that hashes the frame computes it, the others reuse it. A
	// frame's header fields never change once it is built.
	FlowCRC uint32

	Size         uint16 // L3 bytes
	Payload      uint16 // data payload bytes
	SPort, DPort uint16
	// PFC (802.1Qbb): the quanta of every class set in PfcVector. A real frame carries
	// eight quanta fields; every frame of this model (switch.md §7.1, nic.md §12) names
	// one class, so one field stands for the one that is used.
	PfcQuanta uint16

	Type           Type
	DSCP           uint8 // class × 8 (nic.md §6)
	ECN            uint8 // NotECT, ECT1, ECT0, CE
	Proto          uint8 // ProtoUDP for RoCEv2
	SE             bool  // solicited event: last packet of a message
	DataTC, CtrlTC uint8
	PfcVector      uint8
	FlowCRCSet     bool
	// live is set from the pool's New to its Free (a second Free panics): kept in the
	// packet, whose line Free's caller has just read, not in an array of its own.
	live bool

	// Unused: keeps a packet one 64-byte cache line (the pool's chunks are line-aligned).
	// A switch keeps a frame's admission tag in its queue entry, not here.
	_ [4]byte
}

// SrcIP is the IPv4 source address: host index + 1.
func (p *Packet) SrcIP() uint32 { return uint32(p.SrcHost + 1) }

// DstIP is the IPv4 destination address: host index + 1 (0 for a PFC frame).
func (p *Packet) DstIP() uint32 { return uint32(p.DstHost + 1) }

// Wire returns the frame's bytes on the wire: max(46, Size) + 18 (switch.md §5.1, DC-6).
func (p *Packet) Wire() int64 {
	return int64(max(MinL3, p.Size)) + EthOverhead
}

// Charge returns the bytes a switch charges to its buffer: max(46, Size) (switch.md §5.1).
func (p *Packet) Charge() int64 { return int64(max(MinL3, p.Size)) }

// TC returns the traffic class from DSCP: DSCP >> 3 (switch.md §5.1, nic.md §6).
func (p *Packet) TC() int { return int(p.DSCP >> 3) }

// IsECT reports whether the ECN field is ECT(0) or ECT(1).
func (p *Packet) IsECT() bool { return p.ECN == ECT0 || p.ECN == ECT1 }

const chunkBits = 10
const chunkSize = 1 << chunkBits

// Pool recycles Packets of one job. Packets live in fixed chunks, so a *Packet stays put
// while the pool grows. A Pool is not safe for concurrent use.
type Pool struct {
	chunks [][]Packet
	free   []Handle
	n      int32 // handles ever created (handle 0 unused)
	inUse  int
}

// New returns a zeroed packet and its handle.
func (pl *Pool) New() (Handle, *Packet) {
	var h Handle
	if k := len(pl.free); k > 0 {
		h = pl.free[k-1]
		pl.free = pl.free[:k-1]
	} else {
		pl.n++
		h = Handle(pl.n)
		if int(h)>>chunkBits >= len(pl.chunks) {
			pl.chunks = append(pl.chunks, make([]Packet, chunkSize))
		}
	}
	p := pl.Get(h)
	*p = Packet{live: true}
	pl.inUse++
	return h, p
}

// Get returns the packet of a live handle.
func (pl *Pool) Get(h Handle) *Packet {
	return &pl.chunks[int(h)>>chunkBits][int(h)&(chunkSize-1)]
}

// Free returns h to the pool. Freeing a handle twice panics: it is a model bug.
func (pl *Pool) Free(h Handle) {
	if h <= 0 || int32(h) > pl.n || !pl.Get(h).live {
		panic(fmt.Sprintf("pkt: free of handle %d that is not live", h))
	}
	pl.Get(h).live = false
	pl.inUse--
	pl.free = append(pl.free, h)
}

// Clone copies the packet h into a new handle (used for retransmission bookkeeping).
func (pl *Pool) Clone(h Handle) (Handle, *Packet) {
	src := *pl.Get(h)
	nh, p := pl.New()
	*p = src
	p.live = true
	return nh, p
}

// Release drops the pool's memory once no packet is live (a drained job, before its rows
// are built); it panics otherwise. The pool is empty and usable afterwards.
func (pl *Pool) Release() {
	if pl.inUse != 0 {
		panic(fmt.Sprintf("pkt: release of a pool with %d live packets", pl.inUse))
	}
	*pl = Pool{}
}

// InUse is the number of live packets (for leak checks in tests).
func (pl *Pool) InUse() int { return pl.inUse }
