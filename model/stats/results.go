package stats

import (
	"math"
	"time"

	"github.com/rocesweep/rocesweep/model/sim"
)

// Recorder collects the rows of one job. Devices append at report time; nothing here
// does I/O. Clock gives `time_utc` and is injectable so tests can fix it (records.md §1).
type Recorder struct {
	JobID string
	Clock func() time.Time

	NdStats            []NdStats
	EcnPfcStats        []EcnPfcStats
	RoceTransportStats []RoceTransportStats
	BufferStats        []BufferStats
	PortBufferStats    []PortBufferStats
	LbStats            []LbStats
	Messages           []Message
	Classes            []Class
	Topology           []TopologyLink
	TierHop            []TierHop

	utcAt  sim.Time
	utcStr string
}

// NewRecorder returns an empty recorder for job id; a nil clock means time.Now.
func NewRecorder(jobID string, clock func() time.Time) *Recorder {
	if clock == nil {
		clock = time.Now
	}
	return &Recorder{JobID: jobID, Clock: clock, utcAt: -1}
}

// UTC returns the wall-clock stamp for rows produced at simulated time now, ISO 8601 to
// the second with Z (records.md §1). It is computed once per report instant.
func (r *Recorder) UTC(now sim.Time) string {
	if now != r.utcAt || r.utcStr == "" {
		r.utcAt = now
		r.utcStr = r.Clock().UTC().Format("2006-01-02T15:04:05Z")
	}
	return r.utcStr
}

// Summary is the per-job metrics row of the `jobs` table (design.md "Summary metrics").
type Summary struct {
	SimTimeSec     float64 `parquet:"sim_time_sec"`
	WallSec        float64 `parquet:"wall_sec"`
	Events         int64   `parquet:"events"`
	EventsPerSec   float64 `parquet:"events_per_sec"`
	DataPackets    int64   `parquet:"data_packets"` // data frames the NICs serialized, retransmissions included
	BytesDelivered int64   `parquet:"bytes_delivered"`
	GoodputGbps    float64 `parquet:"goodput_gbps"`
	MsgsCompleted  int64   `parquet:"msgs_completed"`
	FctP50Usec     float64 `parquet:"fct_p50_usec"`
	FctP99Usec     float64 `parquet:"fct_p99_usec"`
	FctMaxUsec     float64 `parquet:"fct_max_usec"`
	// The answers per kind of traffic (lossless = a PFC-enabled data class, switch
	// EnablePFC): nearest-rank p99 over the completed messages of lossless / lossy data
	// classes. NaN when the job completed no message of that kind; the jobs table writes
	// NaN as null.
	FctP99UsecLossless  float64 `parquet:"fct_p99_usec_lossless"`
	FctP99UsecLossy     float64 `parquet:"fct_p99_usec_lossy"`
	SlowdownP99Lossless float64 `parquet:"slowdown_p99_lossless"`
	SlowdownP99Lossy    float64 `parquet:"slowdown_p99_lossy"`
	DropsTotal          int64   `parquet:"drops_total"`
	DropsLossless       int64   `parquet:"drops_lossless"`
	DropsLossy          int64   `parquet:"drops_lossy"`
	NicRxDrops          int64   `parquet:"nic_rx_drops"`
	PfcPauseTx          int64   `parquet:"pfc_pause_tx"`
	PfcPausedUsec       float64 `parquet:"pfc_paused_usec"`
	EcnMarked           int64   `parquet:"ecn_marked"`
	CnpSent             int64   `parquet:"cnp_sent"`
	Retransmits         int64   `parquet:"retransmits"`
	MaxEgressQueueBytes int64   `parquet:"max_egress_queue_bytes"`
	MaxIngressPortBytes int64   `parquet:"max_ingress_port_bytes"`
	MaxPoolBytes        int64   `parquet:"max_pool_bytes"`
}

// MetricNames lists the summary metrics in column order (design.md fixed names).
var MetricNames = []string{
	"sim_time_sec", "wall_sec", "events", "events_per_sec", "data_packets", "bytes_delivered", "goodput_gbps",
	"msgs_completed", "fct_p50_usec", "fct_p99_usec", "fct_max_usec",
	"fct_p99_usec_lossless", "fct_p99_usec_lossy", "slowdown_p99_lossless", "slowdown_p99_lossy", "drops_total",
	"drops_lossless", "drops_lossy", "nic_rx_drops", "pfc_pause_tx", "pfc_paused_usec",
	"ecn_marked", "cnp_sent", "retransmits", "max_egress_queue_bytes",
	"max_ingress_port_bytes", "max_pool_bytes",
}

// Values returns the summary metrics in MetricNames order, as float64.
func (s *Summary) Values() []float64 {
	return []float64{
		s.SimTimeSec, s.WallSec, float64(s.Events), s.EventsPerSec, float64(s.DataPackets), float64(s.BytesDelivered),
		s.GoodputGbps, float64(s.MsgsCompleted), s.FctP50Usec, s.FctP99Usec, s.FctMaxUsec,
		s.FctP99UsecLossless, s.FctP99UsecLossy, s.SlowdownP99Lossless, s.SlowdownP99Lossy,
		float64(s.DropsTotal), float64(s.DropsLossless), float64(s.DropsLossy),
		float64(s.NicRxDrops), float64(s.PfcPauseTx), s.PfcPausedUsec, float64(s.EcnMarked),
		float64(s.CnpSent), float64(s.Retransmits), float64(s.MaxEgressQueueBytes),
		float64(s.MaxIngressPortBytes), float64(s.MaxPoolBytes),
	}
}

// Same reports whether s and o hold the same metrics, a NaN (no traffic of that kind)
// matching a NaN: the equality determinism tests need, which == cannot give with NaN.
func (s Summary) Same(o Summary) bool {
	a, b := s.Values(), o.Values()
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// Result is everything one job produced: its rows and its summary.
type Result struct {
	Rec     *Recorder
	Summary Summary
}
