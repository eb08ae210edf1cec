package config

import "github.com/rocesweep/rocesweep/model/sim"

// Default returns a configuration with every attribute at its spec default (switch.md §3,
// nic.md §14; one default set only, switch.md DC-2) and the job defaults of `rocesweep
// sim`: a star of 16 hosts, an incast of 15 senders x 1 MiB, 1 ms, stop at
// duration.
func Default() Config {
	return Config{
		Name:     "sim",
		Seed:     1,
		Duration: sim.Millisecond,
		Stop:     "duration",
		Global:   DefaultGlobal(),
		Topology: Topology{Kind: "star", Hosts: 16},
		Workload: DefaultWorkload(),
		Switch:   DefaultSwitch(),
		NIC:      DefaultNIC(),
	}
}

// DefaultGlobal returns the global parameters' defaults (nic.md §14, records.md §1).
// StartTime and ClientStartOffset default to 0 here (records.md RC-3 gives 1 ms each on
// the platform), so a 1 ms job still gets rows.
func DefaultGlobal() Global {
	return Global{
		Mtu:                                 4184,
		NDStatsReportInterval:               sim.Millisecond,
		EnableNetDeviceStatLogging:          true,
		EnablePFCECNStatsLogging:            true,
		EnableRoceTransportStats:            true,
		NetworkBufferStatsReportingInterval: sim.Millisecond,
	}
}

// DefaultWorkload is an incast of 15 senders x 1 MiB into host 15, data TC 0, control TC 1.
func DefaultWorkload() Workload {
	return Workload{
		Kind: "incast", Senders: 15, Receiver: -1, MessageSize: 1 << 20, Messages: 1,
		DataTC: 0, ControlTC: 1, QPsPerPair: 1, Verb: "write", Load: 0.3, Distribution: "websearch",
		GroupBy: "block",
	}
}

// DefaultSwitch returns switch.md §3 defaults.
func DefaultSwitch() Switch {
	return Switch{
		NumUpLinks:                       64,
		NumDownLinks:                     64,
		NumUpLinksPerSwitch:              8,
		SwitchingCapacity:                51200e9,
		EcmpHashMethod:                   "crc32WithSalt",
		LoadBalancingMethod:              "none",
		EnableLoadBalancingStats:         true,
		LoadBalancingStatsReportInterval: sim.Millisecond,
		NetworkInterface: SwitchNetworkInterface{
			UplinkNetworkInterface:   DataRateIf{DataRate: 400e9},
			DownlinkNetworkInterface: DataRateIf{DataRate: 400e9},
			TransmissionMedium:       Medium{Delay: 500 * sim.Nanosecond},
		},
		LoadBalancingFlowlet: LoadBalancingFlowlet{Gap: 100 * sim.Microsecond, PFCAware: true},
		SharedBufferManager: SharedBufferManager{
			TotalSharedBufferSize:     256_000_000,
			PoolAllocationMap:         Vec8{0.9, 0.1},
			TrafficClassPoolMapping:   Vec8{0, 1},
			EnablePFC:                 Vec8{1, 1},
			HeadRoomPerPortLimit:      256_000,
			StaticPoolXoffThreshold:   700_000,
			StaticPoolXonThreshold:    300_000,
			LossyAlpha:                1.0,
			QueueDropThreshold:        5,
			PlaneBDP:                  300_000,
			BufferStatsReportInterval: sim.Millisecond,
		},
		EcnHandler: EcnHandler{EnableEcn: true, EwmaWeight: 0.10, MinThreshold: 0.2, MaxThreshold: 0.8, MaxMarkProbability: 1.0},
	}
}

// DefaultNIC returns nic.md §14 defaults.
func DefaultNIC() NIC {
	buf := PCIeBuffers{RXHeaderBufferSize: 16_000, TXHeaderBufferSize: 16_000, RXDataBufferSize: 256_000, TXDataBufferSize: 256_000}
	lanes := PCIeLanes{LaneBps: 31.52e9, LaneCount: 16}
	return NIC{
		NumDownLinks: 1,
		NetworkInterface: NICNetworkInterface{
			UplinkNetworkInterface: DataRateIf{DataRate: 400e9},
			TransmissionMedium:     Medium{Delay: 100 * sim.Nanosecond},
			IngressBufferManager: IngressBuffer{
				TotalBufferSize:        4_000_000,
				QueueSchedulingType:    "StrictPriority",
				PoolAllocationVector:   Vec8{0.9, 0.1},
				PFCEnableVector:        Vec8{1, 1},
				WRRQueueWeights:        Vec8{1, 3},
				PfcStaticXoffThreshold: Vec8{0.8, 0.8},
				PfcXonResumeThreshold:  Vec8{0.4, 0.4},
				QuantaValue:            Vec8{65535, 65535},
			},
			EgressBufferManager: EgressBuffer{
				TotalBufferSize:      256_000,
				QueueSchedulingType:  "StrictPriority",
				PoolAllocationVector: Vec8{0.9, 0.1},
				WRRQueueWeights:      Vec8{1, 3},
			},
		},
		HostInterface: HostInterface{
			NICSide:  NICSide{TransactionLayer: buf, PhysicalLayer: lanes, NICPCIeHandler: PCIeHandler{ReadRequestSize: 64}},
			HostSide: HostSide{TransactionLayer: buf, PhysicalLayer: lanes},
		},
		TransportProcessingLayers: TransportProcessingLayers{RoceTransportLayer: RoceTransportLayer{
			RetransmitTimeout: 64 * sim.Millisecond, AckCoalescingEnabled: true, AckDelay: sim.Millisecond, AckThreshold: 16,
		}},
		RoceQpManager: RoceQpManager{MSS: 4096},
		ECNHandler: ECNHandler{
			EnableECN: true, MinimumRatePercentage: 0.10, FastRecoveryAttempt: 3, InitialTargetRatePercentage: 0.90,
			NumberActiveIncreaseSteps: 10, ControlIntervalDurationNs: 45000, CongestionProbabilityWeight: 0.5,
			NumOfControlLoopsPerIncrease: 5,
		},
	}
}
