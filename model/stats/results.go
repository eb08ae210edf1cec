package stats

import (
	"math"
	"time"

	"github.com/rocesweep/rocesweep/model/sim"
)

// Recorder collects the rows of one job. Devices append at report time; nothing here
// does I/O. Clock gives `time_utc` and is injectable so tests can fix it (records.md §1).
//
// Rows leave the job in batches while it runs when Emit is set: Spill hands the rows held
// to Emit once they reach BatchRows and keeps their slices' capacity for the next batch,
// so a job's memory holds one batch of rows, whatever its simulated time. Without Emit
// the recorder keeps every row until the job ends (tests, and the caller writes them).
type Recorder struct {
	JobID string
	Clock func() time.Time

	// Batch holds the rows not yet emitted (all of them without Emit); devices append
	// to its fields (rec.NdStats, ...) directly.
	Batch

	// Emit receives each batch of rows (see Batch); it must not keep the slices, which
	// the recorder reuses. A non-nil error stops further batches and is Err.
	Emit      func(Batch) error
	BatchRows int // rows held before Spill emits; 0 means DefaultBatchRows

	err         error
	lastTierHop float64 // sim_time_sec of the last tier_hop row emitted, -1 if none
	lastBuffer  float64 // the same for buffer_stats
	lastNetBuff float64 // the same for net_buff_stats

	utcAt  sim.Time
	utcStr string
}

// DefaultBatchRows is the rows a recorder holds before it emits them, about 20 KB. A
// batch is held several times over on its way to the part files (the recorder's slices,
// the spill's gob encoder buffer, the gob message read back, the decoded rows), and the
// decoded copies are garbage: small batches keep that garbage from making a long job
// collect during its simulation, and cost no measurable CPU.
const DefaultBatchRows = 64

// Batch is rows of every record table, in the order each device produced them.
type Batch struct {
	NdStats            []NdStats
	EcnPfcStats        []EcnPfcStats
	RoceTransportStats []RoceTransportStats
	BufferStats        []BufferStats
	PortBufferStats    []PortBufferStats
	NetBuffStats       []NetBuffStats
	LbStats            []LbStats
	Messages           []Message
	Classes            []Class
	Topology           []TopologyLink
	TierHop            []TierHop
	Collectives        []Collective
}

// Rows is the number of rows in b.
func (b Batch) Rows() int {
	return len(b.NdStats) + len(b.EcnPfcStats) + len(b.RoceTransportStats) + len(b.BufferStats) +
		len(b.PortBufferStats) + len(b.NetBuffStats) + len(b.LbStats) + len(b.Messages) + len(b.Classes) + len(b.Topology) +
		len(b.TierHop) + len(b.Collectives)
}

// truncate empties every table of b, keeping its slices' memory for the next rows.
func (b *Batch) truncate() {
	b.NdStats, b.EcnPfcStats, b.RoceTransportStats = b.NdStats[:0], b.EcnPfcStats[:0], b.RoceTransportStats[:0]
	b.BufferStats, b.PortBufferStats, b.LbStats = b.BufferStats[:0], b.PortBufferStats[:0], b.LbStats[:0]
	b.NetBuffStats = b.NetBuffStats[:0]
	b.Messages, b.Classes, b.Topology, b.TierHop = b.Messages[:0], b.Classes[:0], b.Topology[:0], b.TierHop[:0]
	b.Collectives = b.Collectives[:0]
}

// NewRecorder returns an empty recorder for job id; a nil clock means time.Now.
func NewRecorder(jobID string, clock func() time.Time) *Recorder {
	if clock == nil {
		clock = time.Now
	}
	return &Recorder{JobID: jobID, Clock: clock, utcAt: -1, lastTierHop: -1, lastBuffer: -1, lastNetBuff: -1}
}

// Spill emits the rows held once they reach BatchRows (nothing without Emit). Devices'
// report points call it after appending.
func (r *Recorder) Spill() {
	limit := r.BatchRows
	if limit <= 0 {
		limit = DefaultBatchRows
	}
	if r.Emit != nil && r.err == nil && r.rows() >= limit {
		r.flush()
	}
}

// Flush emits every row held (nothing without Emit) and returns Err. The job calls it
// at its end, so that all its rows went through Emit.
func (r *Recorder) Flush() error {
	if r.Emit != nil && r.err == nil && r.rows() > 0 {
		r.flush()
	}
	return r.err
}

// Err is the first error Emit returned.
func (r *Recorder) Err() error { return r.err }

func (r *Recorder) rows() int { return r.Batch.Rows() }

func (r *Recorder) flush() {
	if n := len(r.TierHop); n > 0 {
		r.lastTierHop = r.TierHop[n-1].SimTimeSec
	}
	if n := len(r.BufferStats); n > 0 {
		r.lastBuffer = r.BufferStats[n-1].SimTimeSec
	}
	if n := len(r.NetBuffStats); n > 0 {
		r.lastNetBuff = r.NetBuffStats[n-1].SimTimeSec
	}
	r.err = r.Emit(r.Batch)
	r.Batch.truncate()
}

// LastTierHopSec is the sim_time_sec of the latest tier_hop row recorded (held or
// already emitted); ok is false before the first.
func (r *Recorder) LastTierHopSec() (sec float64, ok bool) {
	if n := len(r.TierHop); n > 0 {
		return r.TierHop[n-1].SimTimeSec, true
	}
	return r.lastTierHop, r.lastTierHop >= 0
}

// LastBufferStatsSec is LastTierHopSec for buffer_stats.
func (r *Recorder) LastBufferStatsSec() (sec float64, ok bool) {
	if n := len(r.BufferStats); n > 0 {
		return r.BufferStats[n-1].SimTimeSec, true
	}
	return r.lastBuffer, r.lastBuffer >= 0
}

// LastNetBuffStatsSec is LastTierHopSec for net_buff_stats.
func (r *Recorder) LastNetBuffStatsSec() (sec float64, ok bool) {
	if n := len(r.NetBuffStats); n > 0 {
		return r.NetBuffStats[n-1].SimTimeSec, true
	}
	return r.lastNetBuff, r.lastNetBuff >= 0
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
	// Messages started (posted to a NIC by the job's end), completed at the sender (last
	// PSN acknowledged: rows of messages) and completed at host memory (last byte accepted
	// by the receiver's PCIe transmit buffer, nic.md §5).
	MsgsStarted       int64 `parquet:"msgs_started"`
	MsgsCompleted     int64 `parquet:"msgs_completed"`
	MsgsHostCompleted int64 `parquet:"msgs_host_completed"`
	// Nearest-rank percentiles over every started message, one not completed counting as
	// slower than every completed one; NaN (null in jobs) where the rank falls among the
	// unfinished ("not reached", records.md §8.1) or nothing started. fct_*: completion at
	// the sender's last ACK; host_fct_*: at host memory.
	FctP50Usec     float64 `parquet:"fct_p50_usec"`
	FctP99Usec     float64 `parquet:"fct_p99_usec"`
	FctMaxUsec     float64 `parquet:"fct_max_usec"`
	HostFctP50Usec float64 `parquet:"host_fct_p50_usec"`
	HostFctP99Usec float64 `parquet:"host_fct_p99_usec"`
	HostFctMaxUsec float64 `parquet:"host_fct_max_usec"`
	// Per kind of traffic (lossless = a PFC-enabled data class, switch EnablePFC): the
	// messages started, completed at the sender, and their ratio (NaN when none started):
	// the samples of the per-kind p99s below.
	MsgsStartedLossless   int64   `parquet:"msgs_started_lossless"`
	MsgsStartedLossy      int64   `parquet:"msgs_started_lossy"`
	MsgsCompletedLossless int64   `parquet:"msgs_completed_lossless"`
	MsgsCompletedLossy    int64   `parquet:"msgs_completed_lossy"`
	CompletedFracLossless float64 `parquet:"completed_frac_lossless"`
	CompletedFracLossy    float64 `parquet:"completed_frac_lossy"`
	// The answers per kind: nearest-rank p99 over the started messages of lossless / lossy
	// data classes, as above (NaN: none started, or "not reached").
	FctP99UsecLossless     float64 `parquet:"fct_p99_usec_lossless"`
	FctP99UsecLossy        float64 `parquet:"fct_p99_usec_lossy"`
	HostFctP99UsecLossless float64 `parquet:"host_fct_p99_usec_lossless"`
	HostFctP99UsecLossy    float64 `parquet:"host_fct_p99_usec_lossy"`
	SlowdownP99Lossless    float64 `parquet:"slowdown_p99_lossless"`
	SlowdownP99Lossy       float64 `parquet:"slowdown_p99_lossy"`
	DropsTotal             int64   `parquet:"drops_total"`
	DropsLossless          int64   `parquet:"drops_lossless"`
	DropsLossy             int64   `parquet:"drops_lossy"`
	NicRxDrops             int64   `parquet:"nic_rx_drops"`
	PfcPauseTx             int64   `parquet:"pfc_pause_tx"`
	PfcPausedUsec          float64 `parquet:"pfc_paused_usec"`
	EcnMarked              int64   `parquet:"ecn_marked"`
	CnpSent                int64   `parquet:"cnp_sent"`
	Retransmits            int64   `parquet:"retransmits"`
	MaxEgressQueueBytes    int64   `parquet:"max_egress_queue_bytes"`
	MaxIngressPortBytes    int64   `parquet:"max_ingress_port_bytes"`
	MaxPoolBytes           int64   `parquet:"max_pool_bytes"`
	// StuckPausePorts counts switch ports whose pause has held for more than half the run
	// with their pool's occupancy at or below Xon at the end: a sticky pause of switch.md
	// §4.6 condition 3, not congestion.
	StuckPausePorts int64 `parquet:"stuck_pause_ports"`
	// Collectives: the iterations finished, over every collective and group (0 when none),
	// their completion time, and the mean bus bandwidth; NaN (null) when no collective
	// iteration finished.
	CctIterations int64   `parquet:"cct_iterations"`
	CctP50Usec    float64 `parquet:"cct_p50_usec"`
	CctMaxUsec    float64 `parquet:"cct_max_usec"`
	BusbwGbps     float64 `parquet:"busbw_gbps"`
}

// MetricNames lists the summary metrics in column order (design.md fixed names).
var MetricNames = []string{
	"sim_time_sec", "wall_sec", "events", "events_per_sec", "data_packets", "bytes_delivered", "goodput_gbps",
	"msgs_started", "msgs_completed", "msgs_host_completed",
	"fct_p50_usec", "fct_p99_usec", "fct_max_usec", "host_fct_p50_usec", "host_fct_p99_usec", "host_fct_max_usec",
	"msgs_started_lossless", "msgs_started_lossy", "msgs_completed_lossless", "msgs_completed_lossy",
	"completed_frac_lossless", "completed_frac_lossy",
	"fct_p99_usec_lossless", "fct_p99_usec_lossy", "host_fct_p99_usec_lossless", "host_fct_p99_usec_lossy", "slowdown_p99_lossless", "slowdown_p99_lossy", "drops_total",
	"drops_lossless", "drops_lossy", "nic_rx_drops", "pfc_pause_tx", "pfc_paused_usec",
	"ecn_marked", "cnp_sent", "retransmits", "max_egress_queue_bytes",
	"max_ingress_port_bytes", "max_pool_bytes", "stuck_pause_ports",
	"cct_iterations", "cct_p50_usec", "cct_max_usec", "busbw_gbps",
}

// Values returns the summary metrics in MetricNames order, as float64.
func (s *Summary) Values() []float64 {
	return []float64{
		s.SimTimeSec, s.WallSec, float64(s.Events), s.EventsPerSec, float64(s.DataPackets), float64(s.BytesDelivered),
		s.GoodputGbps, float64(s.MsgsStarted), float64(s.MsgsCompleted), float64(s.MsgsHostCompleted),
		s.FctP50Usec, s.FctP99Usec, s.FctMaxUsec, s.HostFctP50Usec, s.HostFctP99Usec, s.HostFctMaxUsec,
		float64(s.MsgsStartedLossless), float64(s.MsgsStartedLossy), float64(s.MsgsCompletedLossless), float64(s.MsgsCompletedLossy),
		s.CompletedFracLossless, s.CompletedFracLossy,
		s.FctP99UsecLossless, s.FctP99UsecLossy, s.HostFctP99UsecLossless, s.HostFctP99UsecLossy, s.SlowdownP99Lossless, s.SlowdownP99Lossy,
		float64(s.DropsTotal), float64(s.DropsLossless), float64(s.DropsLossy),
		float64(s.NicRxDrops), float64(s.PfcPauseTx), s.PfcPausedUsec, float64(s.EcnMarked),
		float64(s.CnpSent), float64(s.Retransmits), float64(s.MaxEgressQueueBytes),
		float64(s.MaxIngressPortBytes), float64(s.MaxPoolBytes), float64(s.StuckPausePorts),
		float64(s.CctIterations), s.CctP50Usec, s.CctMaxUsec, s.BusbwGbps,
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
