// Package config is the attribute schema of rocesweep: every NIC and switch attribute of
// docs/nic.md and docs/switch.md with its component path, type, unit and default, the
// global simulation parameters, the topology and workload of a job, the unit parsers,
// and the rules that stop a simulation before it starts.
//
// The typed structs below are the single source of truth: the schema (paths, types,
// defaults) is derived from their field tags and from Default(), so `rocesweep defaults`,
// the defaults table of docs/spec.md and validation cannot drift apart.
//
// Tags: `rs:"Name"` is the attribute or component name as the spec spells it; `type:"..."`
// overrides the type derived from the Go type (e.g. queuesize); `doc:"..."` is a one-line
// description with the spec section; `enum:"a|b|c"` lists allowed strings; `whole:"1"`
// requires whole-number vector entries; `key:"..."` names topology/workload keys;
// `unit:"..."` overrides the unit shown by the schema; `bare:"s"` lets a timeval be a bare
// number of seconds (the spec's "double s" globals, nic.md §14), `bare:"B"` a bytes value a
// bare number of bytes (Mtu, MSS: frame sizes, which everyone writes bare).
package config

import "github.com/rocesweep/rocesweep/model/sim"

// Bytes is a byte count. Units: B, KB = 1,000, KiB = 1,024, MB = 10^6, MiB = 2^20.
type Bytes int64

// Rate is a data rate in bit/s. Units: Gbps = 10^9, Mbps = 10^6.
type Rate float64

// Gbps returns r in 10^9 bit/s.
func (r Rate) Gbps() float64 { return float64(r) / 1e9 }

// Vec8 is an 8-entry list indexed by traffic class or pool, e.g. "[0.9, 0.1, 0, 0, 0, 0, 0, 0]".
type Vec8 [8]float64

// Config is everything one simulation job needs.
type Config struct {
	Name     string   `key:"name" doc:"names the results"`
	Seed     uint64   `key:"seed" doc:"job seed; devices draw from streams derived from it"`
	Duration sim.Time `key:"duration" doc:"simulated time per job (the cap, with stop: drain)"`
	Stop     string   `key:"stop" enum:"duration|drain" doc:"duration: run until duration; drain: end when every message completed (duration caps)"`

	Global   Global   `key:"global"`
	Topology Topology `key:"topology"`
	Workload Workload `key:"workload"`
	Switch   Switch   `key:"switch"`
	NIC      NIC      `key:"nic"`

	// pinnedIntervals marks the report intervals set explicitly (bit i =
	// reportFollowers[i]), which report_interval then leaves alone.
	pinnedIntervals uint8

	// Tiers are per-tier switch settings and uplinks (tiers.go); not in Schema(), which
	// lists each attribute once, but in TierSchema(). Absent from the JSON (so from job
	// ids and seeds) when nothing is set.
	Tiers Tiers `json:"tiers,omitzero"`
}

// Global holds the simulation parameters that belong to no device (nic.md §14 Globals,
// records.md §1).
type Global struct {
	Mtu                                 Bytes    `rs:"Mtu" bare:"B" doc:"largest frame; MSS + 58 must be below it (nic.md §6)"`
	NDStatsReportInterval               sim.Time `rs:"NDStatsReportInterval" bare:"s" doc:"period of nd-stats, ecn-pfc-stats, roce-transport-stats, tier-hop (records.md §1); the sweep spec's report_interval, which also sets BufferStatsReportInterval, LoadBalancingStatsReportInterval (at least 10us) and NetworkBufferStatsReportingInterval unless the spec sets them"`
	StartTime                           sim.Time `rs:"StartTime" doc:"records.md RC-3: first periodic row at StartTime + ClientStartOffset + interval"`
	ClientStartOffset                   sim.Time `rs:"ClientStartOffset" doc:"records.md RC-3"`
	EnableNetDeviceStatLogging          bool     `rs:"EnableNetDeviceStatLogging" doc:"write nd-stats"`
	EnablePFCECNStatsLogging            bool     `rs:"EnablePFCECNStatsLogging" doc:"write ecn-pfc-stats"`
	EnableRoceTransportStats            bool     `rs:"EnableRoceTransportStats" doc:"write roce-transport-stats (nic.md §16.1)"`
	EnableNetworkBufferStatsReporting   bool     `rs:"EnableNetworkBufferStatsReporting" doc:"with nic.EnableBufferStats: every NIC's pools into net-buff-stats (nic.md §16.5, records.md §6.2)"`
	NetworkBufferStatsReportingInterval sim.Time `rs:"NetworkBufferStatsReportingInterval" bare:"s" doc:"period of net-buff-stats"`
}

// Topology selects and sizes the fabric (design.md; records.md §2 topology context).
type Topology struct {
	Kind            string `key:"kind" enum:"star|leaf-spine|fat-tree" doc:"star: one rack switch; leaf-spine: two tiers; fat-tree: three-tier k-ary"`
	Hosts           int    `key:"hosts" doc:"star: servers on the rack switch"`
	Leaves          int    `key:"leaves" doc:"leaf-spine: rack switches"`
	Spines          int    `key:"spines" doc:"leaf-spine: spine switches"`
	HostsPerLeaf    int    `key:"hosts_per_leaf" doc:"leaf-spine: servers per rack switch"`
	UplinksPerSpine int    `key:"uplinks_per_spine" doc:"leaf-spine: parallel links leaf-spine (the switch's NumUpLinksPerSwitch when 0)"`
	K               int    `key:"k" doc:"fat-tree: arity (even)"`
}

// Workload is the traffic of a job (model/workload interprets it).
type Workload struct {
	Kind        string   `key:"kind" enum:"incast|permutation|all-to-all|load|mix|none|allreduce|allgather|reducescatter|alltoall" doc:"traffic generator; allreduce, allgather, reducescatter, alltoall are collectives (message_size = each rank's buffer)"`
	Senders     int      `key:"senders" doc:"incast: number of senders"`
	Receiver    int      `key:"receiver" doc:"incast: receiving host index"`
	MessageSize Bytes    `key:"message_size" doc:"incast, permutation, all-to-all: bytes per message"`
	Messages    int      `key:"messages" doc:"messages per sender (per QP)"`
	Jitter      sim.Time `key:"jitter" doc:"incast: uniform random start offset in [0, jitter)"`
	// A repeating incast. Zero values mean one round and are left out of the JSON, so job
	// ids and seeds of specs without them stay as they were.
	Rounds       int        `key:"rounds" json:",omitzero" doc:"incast: rounds of the incast, round r posting every sender's messages at start + r × period (+ jitter); rounds starting at or after duration post nothing (0 = 1)"`
	Period       sim.Time   `key:"period" json:",omitzero" doc:"incast: time between the starts of two rounds; > 0 when rounds > 1"`
	Load         float64    `key:"load" doc:"load: offered load as a fraction of the host link rate"`
	Distribution string     `key:"distribution" doc:"load: size CDF name (model/workload/sizecdf/NAME.txt) or a file path"`
	DataTC       int        `key:"data_tc" doc:"traffic class of data packets"`
	ControlTC    int        `key:"control_tc" doc:"traffic class of ACK/NAK/CNP"`
	Start        sim.Time   `key:"start" doc:"time the workload posts its first message"`
	QPsPerPair   int        `key:"qps_per_pair" doc:"queue pairs per host pair; messages spread over them"`
	Verb         string     `key:"verb" enum:"write|send" doc:"RDMA verb of the work requests"`
	Mix          []Workload `key:"mix" doc:"mix: workloads running together"`

	// Collectives. Zero values mean the defaults and are left out of the JSON,
	// so job ids and seeds of specs without them stay as they were.
	Groups     int      `key:"groups" json:",omitzero" doc:"collectives: N groups of consecutive hosts, each running the collective (0 or 1: all hosts as one group)"`
	GroupBy    GroupBy  `key:"group_by" json:",omitzero" enum:"block|rail" doc:"collectives: block (default): groups of consecutive hosts; rail: group g = the g-th host of every rack"`
	Iterations int      `key:"iterations" json:",omitzero" doc:"collectives: times the collective runs, each after the previous one ended everywhere plus gap (0 = 1)"`
	Gap        sim.Time `key:"gap" json:",omitzero" doc:"collectives: compute time between the end of an iteration and the next"`
	Phases     int      `key:"phases" json:",omitzero" doc:"alltoall: destinations split into phases with a barrier between them (0 = 1)"`
}

// GroupBy is workload.group_by. Its default, block, counts as zero for JSON (omitzero),
// so specs that never name it keep their job ids.
type GroupBy string

// IsZero reports whether g is the default.
func (g GroupBy) IsZero() bool { return g == "" || g == "block" }

// Switch is every attribute of the switch model (switch.md §3).
type Switch struct {
	NumUpLinks                       uint64   `rs:"NumUpLinks" doc:"advisory uplink port budget (switch.md §3.1)"`
	NumDownLinks                     uint64   `rs:"NumDownLinks" doc:"advisory downlink port budget (switch.md §3.1)"`
	NumUpLinksPerSwitch              uint64   `rs:"NumUpLinksPerSwitch" doc:"parallel links to each uplink peer switch (switch.md §3.1, RC-7)"`
	SwitchingCapacity                Rate     `rs:"SwitchingCapacity" doc:"only compared with the sum of port rates (switch.md §3.1)"`
	EcmpHashMethod                   string   `rs:"EcmpHashMethod" enum:"dpr|hash|hashWithSalt|crc32|crc32WithSalt|dprWithFallback" doc:"flow hash (switch.md §10.1)"`
	LoadBalancingMethod              string   `rs:"LoadBalancingMethod" enum:"none|flowlet" doc:"member selection (switch.md §10.2, §10.3)"`
	EnableLoadBalancingStats         bool     `rs:"EnableLoadBalancingStats" doc:"emit load-balancing-stats (switch.md §3.1)"`
	LoadBalancingStatsReportInterval sim.Time `rs:"LoadBalancingStatsReportInterval" doc:"row spacing of load-balancing-stats, >= 10us (switch.md §3.1)"`

	NetworkInterface     SwitchNetworkInterface `rs:"NetworkInterface"`
	PacketTrimmer        PacketTrimmer          `rs:"PacketTrimmer"`
	LoadBalancingFlowlet LoadBalancingFlowlet   `rs:"LoadBalancingFlowlet"`
	SharedBufferManager  SharedBufferManager    `rs:"SharedBufferManager"`
	EcnHandler           EcnHandler             `rs:"EcnHandler"`
}

// SwitchNetworkInterface is switch.md §3.2.
type SwitchNetworkInterface struct {
	UplinkNetworkInterface   DataRateIf `rs:"UplinkNetworkInterface"`
	DownlinkNetworkInterface DataRateIf `rs:"DownlinkNetworkInterface"`
	TransmissionMedium       Medium     `rs:"TransmissionMedium"`
}

// DataRateIf is a port's configured speed.
type DataRateIf struct {
	DataRate Rate `rs:"DataRate" doc:"port speed; a link runs at min(this end, peer end)"`
}

// Medium is the propagation delay of a device's links.
type Medium struct {
	Delay sim.Time `rs:"Delay" doc:"propagation delay; a link takes the delay of its lower-tier end (records.md §2)"`
}

// PacketTrimmer is switch.md §3.3.
type PacketTrimmer struct {
	TrimmingEnabled      bool `rs:"TrimmingEnabled" doc:"trim eligible over-limit packets (switch.md §6.3); needs UETPolicyEnabled and no PFC class"`
	TrimmingStatsEnabled bool `rs:"TrimmingStatsEnabled" doc:"trimming statistics (ignored without trimming)"`
}

// LoadBalancingFlowlet is switch.md §3.4.
type LoadBalancingFlowlet struct {
	Gap      sim.Time `rs:"Gap" doc:"idle time after which a flow's member is chosen again; 0s = per packet; 0s..2s (switch.md §10.3)"`
	PFCAware bool     `rs:"PFCAware" doc:"prefer members not PFC-paused for the packet's TC (switch.md §10.3)"`
}

// SharedBufferManager is switch.md §3.5.
type SharedBufferManager struct {
	TotalSharedBufferSize     Bytes    `rs:"TotalSharedBufferSize" doc:"whole buffer; headroom comes off first (switch.md §4.1)"`
	UETPolicyEnabled          bool     `rs:"UETPolicyEnabled" doc:"UET partition instead of pools/classes (switch.md §6)"`
	PoolAllocationMap         Vec8     `rs:"PoolAllocationMap" doc:"fraction of the sizing total per pool; 0 = no pool (switch.md §4.2)"`
	TrafficClassPoolMapping   Vec8     `rs:"TrafficClassPoolMapping" whole:"1" doc:"index = TC, value = pool (switch.md §4.3)"`
	EnablePFC                 Vec8     `rs:"EnablePFC" whole:"1" doc:"1 = lossless TC, 0 = lossy (switch.md §4.3)"`
	HeadRoomPerPortLimit      Bytes    `rs:"HeadRoomPerPortLimit" doc:"reserved per connected port; each port's headroom cap per lossless pool (switch.md §4.1)"`
	StaticPoolXoffThreshold   Bytes    `rs:"StaticPoolXoffThreshold" doc:"per-port, per-pool ingress bytes above which a pause is sent (switch.md §4.5)"`
	StaticPoolXonThreshold    Bytes    `rs:"StaticPoolXonThreshold" doc:"per-port, per-pool ingress bytes at/below which a resume is sent (switch.md §4.5)"`
	LossyAlpha                float64  `rs:"LossyAlpha" doc:"> 0: lossy egress limit = alpha x free egress bytes of the pool; 0: fixed limit (switch.md §4.4)"`
	QueueDropThresholdEnable  bool     `rs:"QueueDropThresholdEnable" doc:"LossyAlpha = 0 only: true = QueueDropThreshold x PlaneBDP cap, false = pool / N (switch.md §4.4)"`
	QueueDropThreshold        uint64   `rs:"QueueDropThreshold" doc:"multiplier of PlaneBDP for the fixed cap (switch.md §4.4)"`
	PlaneBDP                  Bytes    `rs:"PlaneBDP" doc:"fabric bandwidth-delay product (switch.md §3.5)"`
	BufferStatsReportInterval sim.Time `rs:"BufferStatsReportInterval" doc:"row spacing of buffer-stats (records.md §6)"`
	ReportPerPortBufferStats  bool     `rs:"ReportPerPortBufferStats" doc:"write port-buffer-stats (records.md RC-4)"`
}

// EcnHandler is switch.md §3.6.
type EcnHandler struct {
	EnableEcn          bool    `rs:"EnableEcn" doc:"false = never mark (switch.md §9)"`
	EwmaWeight         float64 `rs:"EwmaWeight" doc:"w in avg = (1-w) avg + w cur (switch.md §9)"`
	MinThreshold       float64 `rs:"MinThreshold" doc:"fraction of the static egress limit below which nothing is marked (switch.md §4.4)"`
	MaxThreshold       float64 `rs:"MaxThreshold" doc:"fraction of the static egress limit at/above which all ECT packets are marked (switch.md §4.4)"`
	MaxMarkProbability float64 `rs:"MaxMarkProbability" doc:"marking probability at the upper threshold (switch.md §9)"`
}

// NIC is every attribute of the RoCE NIC model (nic.md §14).
type NIC struct {
	NumDownLinks      uint64 `rs:"NumDownLinks" doc:"read-only: one host per NIC"`
	EnableBufferStats bool   `rs:"EnableBufferStats" doc:"with global.EnableNetworkBufferStatsReporting: the NIC's pools into net-buff-stats (nic.md §16.5, records.md §6.2)"`
	// ClockTolerancePpm desynchronises senders as real hardware is (IEEE 802.3 allows
	// ±100 ppm): each NIC's clock runs at 1 + offset, offset drawn per job uniform in
	// ±ClockTolerancePpm from the NIC's clock stream; frames serialise at rate × (1 +
	// offset) and RetransmitTimeout lasts RetransmitTimeout / (1 + offset). 0 = exact.
	ClockTolerancePpm float64 `rs:"ClockTolerancePpm" doc:"NIC clock offset, uniform in ±value ppm per NIC per job: serialisation rate and retransmission timer (nic.md §7, §10); 0 = exact"`
	// TxJitter is transmit-pipeline jitter: each frame leaves the port a random time in
	// [0, TxJitter) after its serialisation ends (keeping order and wire spacing), so
	// simultaneous senders stop arriving in a fixed order; their rates do not change.
	TxJitter sim.Time `rs:"TxJitter" doc:"each frame leaves the port uniform [0, value) after serialisation, in order, from the NIC's jitter stream (nic.md §6); 0 = exact"`

	NetworkInterface          NICNetworkInterface       `rs:"NetworkInterface"`
	HostInterface             HostInterface             `rs:"HostInterface"`
	TransportProcessingLayers TransportProcessingLayers `rs:"TransportProcessingLayers"`
	RoceQpManager             RoceQpManager             `rs:"RoceQpManager"`
	ECNHandler                ECNHandler                `rs:"ECNHandler"`
}

// NICNetworkInterface is the NIC's port, link and buffers (nic.md §14).
type NICNetworkInterface struct {
	UplinkNetworkInterface DataRateIf    `rs:"UplinkNetworkInterface"`
	TransmissionMedium     Medium        `rs:"TransmissionMedium"`
	IngressBufferManager   IngressBuffer `rs:"IngressBufferManager"`
	EgressBufferManager    EgressBuffer  `rs:"EgressBufferManager"`
}

// IngressBuffer is nic.md §11, §12.
type IngressBuffer struct {
	TotalBufferSize        Bytes  `rs:"TotalBufferSize" doc:"receive buffer (nic.md §11)"`
	QueueSchedulingType    string `rs:"QueueSchedulingType" enum:"StrictPriority|RoundRobin|WeightedRoundRobin" doc:"no effect on receive order (nic.md §5)"`
	PoolAllocationVector   Vec8   `rs:"PoolAllocationVector" doc:"fraction of TotalBufferSize per TC, contiguous from TC 0 (nic.md §11)"`
	PFCEnableVector        Vec8   `rs:"PFCEnableVector" doc:"1 = emit PFC for the TC (nic.md §12.1)"`
	WRRQueueWeights        Vec8   `rs:"WRRQueueWeights" whole:"1" doc:"no effect on receive order"`
	PfcStaticXoffThreshold Vec8   `rs:"PfcStaticXoffThreshold" doc:"Xoff as a fraction of the TC's pool, compared with >= (nic.md §12)"`
	PfcXonResumeThreshold  Vec8   `rs:"PfcXonResumeThreshold" doc:"Xon as a fraction of the TC's pool (nic.md §12)"`
	QuantaValue            Vec8   `rs:"QuantaValue" whole:"1" doc:"quanta per emitted pause; 1 quantum = 512 bit times (nic.md §12)"`
}

// EgressBuffer is nic.md §11, §7.
type EgressBuffer struct {
	TotalBufferSize      Bytes  `rs:"TotalBufferSize" doc:"transmit buffer (nic.md §11)"`
	QueueSchedulingType  string `rs:"QueueSchedulingType" enum:"StrictPriority|RoundRobin|WeightedRoundRobin" doc:"port scheduler (nic.md §7)"`
	PoolAllocationVector Vec8   `rs:"PoolAllocationVector" doc:"fraction of TotalBufferSize per TC (nic.md §11)"`
	WRRQueueWeights      Vec8   `rs:"WRRQueueWeights" whole:"1" doc:"frames per WRR turn (nic.md §7)"`
}

// HostInterface is the PCIe link (nic.md §5, §14 notes 1-2).
type HostInterface struct {
	NICSide  NICSide  `rs:"NICSide"`
	HostSide HostSide `rs:"HostSide"`
}

// NICSide is the NIC end of the PCIe link (platform path
// HostInterface/NICSide/PCIeGen3.0/NicDeviceLayer/NicPCIeInterface/...).
type NICSide struct {
	TransactionLayer PCIeBuffers `rs:"TransactionLayer"`
	PhysicalLayer    PCIeLanes   `rs:"PhysicalLayer"`
	NICPCIeHandler   PCIeHandler `rs:"NICPCIeHandler"`
}

// HostSide is the host end of the PCIe link (platform path
// HostInterface/HostSide/PCIeGen3.0/HostPCIeDeviceLayer/HostPCIeInterface/...).
type HostSide struct {
	TransactionLayer PCIeBuffers `rs:"TransactionLayer"`
	PhysicalLayer    PCIeLanes   `rs:"PhysicalLayer"`
}

// PCIeBuffers are one end's transaction-layer buffers.
type PCIeBuffers struct {
	RXHeaderBufferSize Bytes `rs:"RXHeaderBufferSize" type:"queuesize" doc:"headers received from the far end"`
	TXHeaderBufferSize Bytes `rs:"TXHeaderBufferSize" type:"queuesize" doc:"headers to the far end"`
	RXDataBufferSize   Bytes `rs:"RXDataBufferSize" type:"queuesize" doc:"payload received from the far end"`
	TXDataBufferSize   Bytes `rs:"TXDataBufferSize" type:"queuesize" doc:"payload to the far end"`
}

// PCIeLanes is one direction's rate: LaneBps x LaneCount.
type PCIeLanes struct {
	LaneBps   Rate   `rs:"LaneBps" doc:"lane rate of this end's transmit direction"`
	LaneCount uint64 `rs:"LaneCount" doc:"1-16"`
}

// PCIeHandler holds the read request cost (NIC side only).
type PCIeHandler struct {
	ReadRequestSize Bytes `rs:"ReadRequestSize" doc:"link cost of one read request (NIC side; nic.md §5)"`
}

// TransportProcessingLayers holds the RoCE transport (nic.md §9, §10).
type TransportProcessingLayers struct {
	RoceTransportLayer RoceTransportLayer `rs:"RoceTransportLayer"`
}

// RoceTransportLayer is nic.md §9-10.
type RoceTransportLayer struct {
	RetransmitTimeout    sim.Time `rs:"RetransmitTimeout" doc:"transport timer, fixed, no backoff (nic.md §10)"`
	AckCoalescingEnabled bool     `rs:"AckCoalescingEnabled" doc:"false = one ACK per data packet (nic.md §9)"`
	AckDelay             sim.Time `rs:"AckDelay" doc:"ACK coalescing timer (nic.md §9)"`
	AckThreshold         uint64   `rs:"AckThreshold" doc:"every (T+1)-th packet triggers an ACK (nic.md §9)"`
}

// RoceQpManager holds the segment size.
type RoceQpManager struct {
	MSS Bytes `rs:"MSS" bare:"B" doc:"payload per packet; 1-9,216 and MSS + 58 < Mtu (nic.md §6)"`
}

// ECNHandler is the DCQCN rate control (nic.md §13).
type ECNHandler struct {
	EnableECN                    bool    `rs:"EnableECN" doc:"data ECT(0) and CNPs acted on (nic.md §13)"`
	MinimumRatePercentage        float64 `rs:"MinimumRatePercentage" doc:"rate floor as a fraction of L"`
	FastRecoveryAttempt          uint64  `rs:"FastRecoveryAttempt" doc:"fast-recovery increases before additive increase"`
	InitialTargetRatePercentage  float64 `rs:"InitialTargetRatePercentage" doc:"sizes step only"`
	NumberActiveIncreaseSteps    uint64  `rs:"NumberActiveIncreaseSteps" doc:"divisor of step"`
	ControlIntervalDurationNs    uint64  `rs:"ControlIntervalDurationNs" unit:"ns" doc:"control interval in ns; loop every half"`
	CongestionProbabilityWeight  float64 `rs:"CongestionProbabilityWeight" doc:"g of the alpha estimate"`
	NumOfControlLoopsPerIncrease uint64  `rs:"NumOfControlLoopsPerIncrease" doc:"N: increase every N+1 increase halves while CNPs continue"`
}
