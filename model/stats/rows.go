// Package stats holds the record rows of docs/records.md and the per-job summary. Devices
// append rows here at report time; the sink turns them into files. No I/O, no Parquet
// types: the struct tags only name the columns (records.md gives the order, which is the
// field order).
package stats

// Subtier is the value of `subtier` for devices without one (records.md §2).
const Subtier int64 = 4294967295

// NdStats is one nd-stats row: one device port per interval (records.md §3).
type NdStats struct {
	JobID             string  `parquet:"job_id"`
	TimeUTC           string  `parquet:"time_utc"`
	SimTimeSec        float64 `parquet:"sim_time_sec"`
	ComponentName     string  `parquet:"component_name"`
	NdName            string  `parquet:"nd_name"`
	ComponentType     string  `parquet:"component_type"`
	Ifid              int64   `parquet:"ifid"`
	Uldl              string  `parquet:"uldl"`
	NodeID            int64   `parquet:"node_id"`
	Tier              int32   `parquet:"tier"`
	Subtier           int64   `parquet:"subtier"`
	TotalPacketsTx    int64   `parquet:"total_packets_tx"`
	TotalPacketsRx    int64   `parquet:"total_packets_rx"`
	TotalBytesTxGB    float64 `parquet:"total_bytes_tx_GB"`
	TotalBytesRxGB    float64 `parquet:"total_bytes_rx_GB"`
	IntervalBytesTxMB float64 `parquet:"interval_bytes_tx_MB"`
	IntervalBytesRxMB float64 `parquet:"interval_bytes_rx_MB"`
	TxRateGbps        float64 `parquet:"tx_rate_Gbps"`
	RxRateGbps        float64 `parquet:"rx_rate_Gbps"`
	TxLinkPercentUtil float64 `parquet:"tx_link_percent_util"`
	RxLinkPercentUtil float64 `parquet:"rx_link_percent_util"`
	TxDrops           int64   `parquet:"tx_drops"`
	RxDrops           int64   `parquet:"rx_drops"`
}

// EcnPfcStats is one ecn-pfc-stats row: port x TC with a pool, per interval, skipped while
// all counters are zero (records.md §4).
type EcnPfcStats struct {
	JobID                           string  `parquet:"job_id"`
	TimeUTC                         string  `parquet:"time_utc"`
	SimTimeSec                      float64 `parquet:"sim_time_sec"`
	NodeID                          int64   `parquet:"node_id"`
	ComponentName                   string  `parquet:"component_name"`
	ComponentType                   string  `parquet:"component_type"`
	Ifid                            int64   `parquet:"ifid"`
	Uldl                            string  `parquet:"uldl"`
	Tier                            int32   `parquet:"tier"`
	Subtier                         int64   `parquet:"subtier"`
	Priority                        int64   `parquet:"priority"`
	PfcxoffTx                       int64   `parquet:"pfcxoff_tx"`
	PfcxoffRx                       int64   `parquet:"pfcxoff_rx"`
	PfcxonTx                        int64   `parquet:"pfcxon_tx"`
	PfcxonRx                        int64   `parquet:"pfcxon_rx"`
	PfcTimePausedUsec               float64 `parquet:"pfc_time_paused_usec"`
	IntervalTotalTimeXoffUsec       float64 `parquet:"interval_total_time_xoff_usec"`
	IntervalMaxTimeXoffUsec         float64 `parquet:"interval_max_time_xoff_usec"`
	IntervalTotalTimeXoffEgrOccUsec float64 `parquet:"interval_total_time_xoff_egr_occ_usec"`
	IntervalMaxTimeXoffEgrOccUsec   float64 `parquet:"interval_max_time_xoff_egr_occ_usec"`
	TotalXoffTimeEgrOccUsec         float64 `parquet:"total_xoff_time_egr_occ_usec"`
	PercentXon                      float64 `parquet:"percent_xon"`
	XoffEgrOccRatio                 float64 `parquet:"xoff_egr_occ_ratio"`
	PktsEcnMarked                   int64   `parquet:"pkts_ecn_marked"`
}

// RoceTransportStats is one roce-transport-stats row: one NIC per interval (records.md §5,
// nic.md §16.1). Every counter X has a twin IvlX covering the interval.
type RoceTransportStats struct {
	JobID         string  `parquet:"job_id"`
	TimeUTC       string  `parquet:"time_utc"`
	SimTimeSec    float64 `parquet:"sim_time_sec"`
	ComponentName string  `parquet:"component_name"`
	NodeID        int64   `parquet:"node_id"`

	NumPktsSent             int64   `parquet:"num_pkts_sent"`
	IvlNumPktsSent          int64   `parquet:"ivl_num_pkts_sent"`
	NumVerbPktsSent         int64   `parquet:"num_verb_pkts_sent"`
	IvlNumVerbPktsSent      int64   `parquet:"ivl_num_verb_pkts_sent"`
	NumNonVerbPktsSent      int64   `parquet:"num_non_verb_pkts_sent"`
	IvlNumNonVerbPktsSent   int64   `parquet:"ivl_num_non_verb_pkts_sent"`
	NumConnPktsSent         int64   `parquet:"num_conn_pkts_sent"`
	IvlNumConnPktsSent      int64   `parquet:"ivl_num_conn_pkts_sent"`
	NumConnPktsRecvd        int64   `parquet:"num_conn_pkts_recvd"`
	IvlNumConnPktsRecvd     int64   `parquet:"ivl_num_conn_pkts_recvd"`
	RdmaWriteCnt            int64   `parquet:"rdma_write_cnt"`
	IvlRdmaWriteCnt         int64   `parquet:"ivl_rdma_write_cnt"`
	RdmaSendCnt             int64   `parquet:"rdma_send_cnt"`
	IvlRdmaSendCnt          int64   `parquet:"ivl_rdma_send_cnt"`
	RdmaAtomicCnt           int64   `parquet:"rdma_atomic_cnt"`
	IvlRdmaAtomicCnt        int64   `parquet:"ivl_rdma_atomic_cnt"`
	NumAcksSent             int64   `parquet:"num_acks_sent"`
	IvlNumAcksSent          int64   `parquet:"ivl_num_acks_sent"`
	NumAcksRecvd            int64   `parquet:"num_acks_recvd"`
	IvlNumAcksRecvd         int64   `parquet:"ivl_num_acks_recvd"`
	NumSacksSent            int64   `parquet:"num_sacks_sent"`
	IvlNumSacksSent         int64   `parquet:"ivl_num_sacks_sent"`
	NumSacksRecvd           int64   `parquet:"num_sacks_recvd"`
	IvlNumSacksRecvd        int64   `parquet:"ivl_num_sacks_recvd"`
	NumNacksSent            int64   `parquet:"num_nacks_sent"`
	IvlNumNacksSent         int64   `parquet:"ivl_num_nacks_sent"`
	NumNacksRecvd           int64   `parquet:"num_nacks_recvd"`
	IvlNumNacksRecvd        int64   `parquet:"ivl_num_nacks_recvd"`
	NumWritesRecvd          int64   `parquet:"num_writes_recvd"`
	IvlNumWritesRecvd       int64   `parquet:"ivl_num_writes_recvd"`
	NumSendsRecvd           int64   `parquet:"num_sends_recvd"`
	IvlNumSendsRecvd        int64   `parquet:"ivl_num_sends_recvd"`
	NumCnpSent              int64   `parquet:"num_cnp_sent"`
	IvlNumCnpSent           int64   `parquet:"ivl_num_cnp_sent"`
	NumCnpRecvd             int64   `parquet:"num_cnp_recvd"`
	IvlNumCnpRecvd          int64   `parquet:"ivl_num_cnp_recvd"`
	NumSeqOutOfOrder        int64   `parquet:"num_seq_out_of_order"`
	IvlNumSeqOutOfOrder     int64   `parquet:"ivl_num_seq_out_of_order"`
	NumDuplicate            int64   `parquet:"num_duplicate"`
	IvlNumDuplicate         int64   `parquet:"ivl_num_duplicate"`
	IvlMinSizeReorderBufPsn int64   `parquet:"ivl_min_size_reorder_buf_psn"`
	MaxSizeReorderBufPsn    int64   `parquet:"max_size_reorder_buf_psn"`
	IvlMaxSizeReorderBufPsn int64   `parquet:"ivl_max_size_reorder_buf_psn"`
	AvgSizeReorderBufPsn    int64   `parquet:"avg_size_reorder_buf_psn"`
	IvlAvgSizeReorderBufPsn int64   `parquet:"ivl_avg_size_reorder_buf_psn"`
	NumWqeCreated           int64   `parquet:"num_wqe_created"`
	IvlNumWqeCreated        int64   `parquet:"ivl_num_wqe_created"`
	NumWqeCompleted         int64   `parquet:"num_wqe_completed"`
	IvlNumWqeCompleted      int64   `parquet:"ivl_num_wqe_completed"`
	NumRtx                  int64   `parquet:"num_rtx"`
	IvlNumRtx               int64   `parquet:"ivl_num_rtx"`
	NumRto                  int64   `parquet:"num_rto"`
	IvlNumRto               int64   `parquet:"ivl_num_rto"`
	IvlMinCalcRttUsec       float64 `parquet:"ivl_min_calc_rtt_usec"`
	MaxCalcRttUsec          float64 `parquet:"max_calc_rtt_usec"`
	IvlMaxCalcRttUsec       float64 `parquet:"ivl_max_calc_rtt_usec"`
	AvgCalcRttUsec          float64 `parquet:"avg_calc_rtt_usec"`
	IvlAvgCalcRttUsec       float64 `parquet:"ivl_avg_calc_rtt_usec"`
	NumRxDrops              int64   `parquet:"num_rx_drops"`
	IvlNumRxDrops           int64   `parquet:"ivl_num_rx_drops"`
	NumRxDropsNoQpData      int64   `parquet:"num_rx_drops_no_qp_data"`
	IvlNumRxDropsNoQpData   int64   `parquet:"ivl_num_rx_drops_no_qp_data"`
	NumRxDropsNoQpCtrl      int64   `parquet:"num_rx_drops_no_qp_ctrl"`
	IvlNumRxDropsNoQpCtrl   int64   `parquet:"ivl_num_rx_drops_no_qp_ctrl"`
	NumRxDropsAfterNak      int64   `parquet:"num_rx_drops_after_nak"`
	IvlNumRxDropsAfterNak   int64   `parquet:"ivl_num_rx_drops_after_nak"`
	NumRxDropsGhostAck      int64   `parquet:"num_rx_drops_ghost_ack"`
	IvlNumRxDropsGhostAck   int64   `parquet:"ivl_num_rx_drops_ghost_ack"`
	NumTxPayloadDiscards    int64   `parquet:"num_tx_payload_discards"`
	IvlNumTxPayloadDiscards int64   `parquet:"ivl_num_tx_payload_discards"`
}

// BufferStats is one buffer-stats row: switch x non-zero pool x view per interval
// (records.md §6).
type BufferStats struct {
	JobID          string  `parquet:"job_id"`
	TimeUTC        string  `parquet:"time_utc"`
	SimTimeSec     float64 `parquet:"sim_time_sec"`
	ComponentName  string  `parquet:"component_name"`
	Tier           int32   `parquet:"tier"`
	NodeID         int64   `parquet:"node_id"`
	BuffID         string  `parquet:"buff_id"`
	Uldl           string  `parquet:"uldl"`
	PoolNum        int32   `parquet:"pool_num"`
	TotalBytes     int64   `parquet:"total_bytes"`
	BufferLimit    int64   `parquet:"buffer_limit"`
	IvlCount       int64   `parquet:"ivl_count"`
	IvlMinBytes    int64   `parquet:"ivl_min_bytes"`
	IvlMaxBytes    int64   `parquet:"ivl_max_bytes"`
	IvlMeanBytes   float64 `parquet:"ivl_mean_bytes"`
	IvlMaxPctUtil  float64 `parquet:"ivl_max_pct_util"`
	IvlMeanPctUtil float64 `parquet:"ivl_mean_pct_util"`
}

// PortBufferStats is one port-buffer-stats row (records.md §6.1), written only with
// ReportPerPortBufferStats.
type PortBufferStats struct {
	JobID          string  `parquet:"job_id"`
	TimeUTC        string  `parquet:"time_utc"`
	SimTimeSec     float64 `parquet:"sim_time_sec"`
	ComponentName  string  `parquet:"component_name"`
	Tier           int32   `parquet:"tier"`
	NodeID         int64   `parquet:"node_id"`
	BuffID         string  `parquet:"buff_id"`
	Ifid           int64   `parquet:"ifid"`
	Uldl           string  `parquet:"uldl"`
	PoolNum        int32   `parquet:"pool_num"`
	BuffLimit      int64   `parquet:"buff_limit"`
	IvlCount       int64   `parquet:"ivl_count"`
	IvlMinBytes    int64   `parquet:"ivl_min_bytes"`
	IvlMaxBytes    int64   `parquet:"ivl_max_bytes"`
	IvlMeanBytes   float64 `parquet:"ivl_mean_bytes"`
	IvlMaxPctUtil  float64 `parquet:"ivl_max_pct_util"`
	IvlMeanPctUtil float64 `parquet:"ivl_mean_pct_util"`
}

// NetBuffStats is one net-buff-stats row: one pool of a NIC's receive or transmit buffer
// per interval (records.md §6.2, nic.md §16.5), written only with the NIC's
// EnableBufferStats and the global EnableNetworkBufferStatsReporting both on.
type NetBuffStats struct {
	JobID             string  `parquet:"job_id"`
	TimeUTC           string  `parquet:"time_utc"`
	SimTimeSec        float64 `parquet:"sim_time_sec"`
	ComponentName     string  `parquet:"component_name"`
	ComponentType     string  `parquet:"component_type"`
	NodeID            int64   `parquet:"node_id"`
	Tier              int32   `parquet:"tier"`
	Subtier           int64   `parquet:"subtier"`
	BuffID            string  `parquet:"buff_id"`  // ingressBuffer (receive) or egressBuffer (transmit)
	Priority          int64   `parquet:"priority"` // the traffic class, whose pool this is
	TotalBytes        int64   `parquet:"total_bytes"`
	BufferLimit       int64   `parquet:"buffer_limit"`
	IvlCount          int64   `parquet:"ivl_count"`
	IvlMinBytes       int64   `parquet:"ivl_min_bytes"`
	IvlMaxBytes       int64   `parquet:"ivl_max_bytes"`
	IvlMeanBytes      float64 `parquet:"ivl_mean_bytes"`
	IvlMaxPctUtil     float64 `parquet:"ivl_max_pct_util"`
	IvlMeanPctUtil    float64 `parquet:"ivl_mean_pct_util"`
	Drops             int64   `parquet:"drops"`                // receive: admission drops of the class; transmit: 0
	IvlDrops          int64   `parquet:"ivl_drops"`            // the same within the interval
	GenBlockedUsec    float64 `parquet:"gen_blocked_usec"`     // transmit: time packet generation was blocked on the pool; receive: 0
	IvlGenBlockedUsec float64 `parquet:"ivl_gen_blocked_usec"` // the same within the interval
}

// LbStats is one load-balancing-stats row: equal-cost-set member per interval, plus a
// final row (records.md §7).
type LbStats struct {
	JobID               string  `parquet:"job_id"`
	TimeUTC             string  `parquet:"time_utc"`
	SimTimeSec          float64 `parquet:"sim_time_sec"`
	ComponentName       string  `parquet:"component_name"`
	ComponentType       string  `parquet:"component_type"`
	NodeID              int64   `parquet:"node_id"`
	Tier                int32   `parquet:"tier"`
	Subtier             int64   `parquet:"subtier"`
	Ifid                int64   `parquet:"ifid"`
	EcmpGroupID         int64   `parquet:"ecmp_group_id"`
	EcmpGroupIfids      string  `parquet:"ecmp_group_ifids"`
	GroupSize           int64   `parquet:"group_size"`
	GroupFormedNs       int64   `parquet:"group_formed_ns"`
	FlowTableSlots      int64   `parquet:"flow_table_slots"`
	Bytes               int64   `parquet:"bytes"`
	IvlBytes            int64   `parquet:"ivl_bytes"`
	Packets             int64   `parquet:"packets"`
	IvlPackets          int64   `parquet:"ivl_packets"`
	Assignments         int64   `parquet:"assignments"`
	IvlAssignments      int64   `parquet:"ivl_assignments"`
	MovementsIn         int64   `parquet:"movements_in"`
	IvlMovementsIn      int64   `parquet:"ivl_movements_in"`
	MovementsOut        int64   `parquet:"movements_out"`
	IvlMovementsOut     int64   `parquet:"ivl_movements_out"`
	IvlShare            float64 `parquet:"ivl_share"`
	PausedSkips         int64   `parquet:"paused_skips"`
	IvlPausedSkips      int64   `parquet:"ivl_paused_skips"`
	PausedSelections    int64   `parquet:"paused_selections"`
	IvlPausedSelections int64   `parquet:"ivl_paused_selections"`
}

// Message is one messages row: the perf record (records.md §8) plus the columns a user
// needs for FCT analysis. One row per completed work request.
type Message struct {
	JobID               string  `parquet:"job_id"`
	TimeUTC             string  `parquet:"time_utc"`
	SimTimeSec          float64 `parquet:"sim_time_sec"`
	MetricName          string  `parquet:"metric_name"`
	PerfMetricUsec      float64 `parquet:"perf_metric_usec"`
	MetricPath          string  `parquet:"metric_path"`
	MetricAggregationID string  `parquet:"metric_aggregation_id"`
	NodeID              int64   `parquet:"node_id"`
	TransactionNumber   int64   `parquet:"transaction_number"`
	StartTimeSec        float64 `parquet:"start_time_sec"`
	TransferSizeB       float64 `parquet:"transfer_size_b"`
	ApplicationName     string  `parquet:"application_name"`
	// Additions beyond perf.
	SrcNode    int64   `parquet:"src_node"`
	DstNode    int64   `parquet:"dst_node"`
	QP         int64   `parquet:"qp"`
	DataTC     int32   `parquet:"data_tc"`
	SizeBytes  int64   `parquet:"size_bytes"`
	PostNs     int64   `parquet:"post_ns"`
	CompleteNs int64   `parquet:"complete_ns"`
	FctUsec    float64 `parquet:"fct_usec"`
	IdealUsec  float64 `parquet:"ideal_usec"`
	Slowdown   float64 `parquet:"slowdown"`
	// Completion at host memory: when the receiver's PCIe transmit buffer accepted the
	// message's last byte (nic.md §5), s, and that minus the post time, us; NaN (null)
	// when it had not by the job's end (records.md §8).
	HostCompleteSec float64 `parquet:"host_complete_sec,optional"`
	HostFctUsec     float64 `parquet:"host_fct_usec,optional"`
}

// Class is one row of the classes table: one per job per data traffic class that carried
// messages (some message of the workload had this data_tc, a collective's steps
// included). Percentiles are nearest-rank over the class's started messages (posted by
// the end), one not completed counting as slower than every completed one: NaN where the
// rank falls among the unfinished ("not reached") or none started, written as null (the
// `optional` tag option of resultsdir.Schema): 0 would read as the best answer, a percentile of
// the completed alone flatters a class that loses messages (records.md §8.1).
type Class struct {
	JobID         string `parquet:"job_id"`
	DataTC        int32  `parquet:"data_tc"`
	Lossless      bool   `parquet:"lossless"`       // PFC-enabled at the switch (EnablePFC[data_tc] = 1)
	MsgsPosted    int64  `parquet:"msgs_posted"`    // messages posted to the NICs by the end
	MsgsCompleted int64  `parquet:"msgs_completed"` // rows of messages with this data_tc
	// completed at host memory (last byte accepted by the receiver's PCIe transmit buffer)
	MsgsHostCompleted int64   `parquet:"msgs_host_completed"`
	CompletedFrac     float64 `parquet:"completed_frac"`  // msgs_completed / msgs_posted
	BytesDelivered    int64   `parquet:"bytes_delivered"` // in-order payload written to receiving hosts
	GoodputGbps       float64 `parquet:"goodput_gbps"`    // bytes_delivered × 8 / sim_time_sec
	FctP50Usec        float64 `parquet:"fct_p50_usec,optional"`
	FctP99Usec        float64 `parquet:"fct_p99_usec,optional"`
	FctMaxUsec        float64 `parquet:"fct_max_usec,optional"`
	HostFctP50Usec    float64 `parquet:"host_fct_p50_usec,optional"`
	HostFctP99Usec    float64 `parquet:"host_fct_p99_usec,optional"`
	HostFctMaxUsec    float64 `parquet:"host_fct_max_usec,optional"`
	SlowdownP50       float64 `parquet:"slowdown_p50,optional"`
	SlowdownP99       float64 `parquet:"slowdown_p99,optional"`
	Drops             int64   `parquet:"drops"`       // switch drops of packets in this TC (any kind)
	Retransmits       int64   `parquet:"retransmits"` // NAK and timeout rewinds of QPs of this data TC
}

// TopologyLink is one topology-report row: one per link, upper end first (records.md §9).
type TopologyLink struct {
	JobID             string  `parquet:"job_id"`
	ComponentName     string  `parquet:"component_name"`
	ComponentType     string  `parquet:"component_type"`
	Tier              int32   `parquet:"tier"`
	Subtier           int64   `parquet:"subtier"`
	NodeID            int64   `parquet:"node_id"`
	NetDevice         string  `parquet:"net_device"`
	DevID             int64   `parquet:"dev_id"`
	PeerComponentName string  `parquet:"peer_component_name"`
	PeerComponentType string  `parquet:"peer_component_type"`
	PeerTier          int32   `parquet:"peer_tier"`
	PeerSubtier       int64   `parquet:"peer_subtier"`
	PeerNodeID        int64   `parquet:"peer_node_id"`
	PeerNetDevice     string  `parquet:"peer_net_device"`
	PeerDevID         int64   `parquet:"peer_dev_id"`
	LinkspeedGbps     float64 `parquet:"linkspeed_Gbps"`
	PropDelayNs       float64 `parquet:"prop_delay_ns"`
}

// TierHop is one tier-hop row per interval (records.md §10).
type TierHop struct {
	JobID      string  `parquet:"job_id"`
	TimeUTC    string  `parquet:"time_utc"`
	SimTimeSec float64 `parquet:"sim_time_sec"`
	Spine      int64   `parquet:"spine"`
	Fabric     int64   `parquet:"fabric"`
	Rack       int64   `parquet:"rack"`
	SpineInt   int64   `parquet:"spineInt"`
	FabricInt  int64   `parquet:"fabricInt"`
	RackInt    int64   `parquet:"rackInt"`
}

// Collective is one collectives row: one iteration of a collective in one
// group. cct_usec runs from the iteration's first post to its last completion; algbw is
// size / cct, busbw = algbw × NCCL's factor (2 (N − 1) / N for allreduce, (N − 1) / N for
// allgather, reducescatter, alltoall).
type Collective struct {
	JobID           string  `parquet:"job_id"`
	ApplicationName string  `parquet:"application_name"` // "<kind>-<element>", as in messages
	Kind            string  `parquet:"kind"`
	Group           int32   `parquet:"group"`
	Iteration       int32   `parquet:"iteration"`
	Ranks           int32   `parquet:"ranks"`
	SizeBytes       int64   `parquet:"size_bytes"` // each rank's buffer (message_size)
	StartSec        float64 `parquet:"start_sec"`
	EndSec          float64 `parquet:"end_sec"`
	CctUsec         float64 `parquet:"cct_usec"`
	AlgbwGbps       float64 `parquet:"algbw_gbps"`
	BusbwGbps       float64 `parquet:"busbw_gbps"`
}
