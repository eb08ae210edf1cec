package fabric

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/topo"
	"github.com/rocesweep/rocesweep/model/workload"
)

// Estimate is what a job will need, worked out from its config alone before it runs
// (validate and run refuse a job above a memory limit by it): its peak memory and a rough event count. The
// memory model is a sum of the parts a job holds at once, each with a per-item cost
// measured on configs/ and configs/bench/ (reliability.md "Reliability" gives the estimate's error
// there); events are ~4 per data packet per hop plus the periodic reports. Every figure
// is a closed form of the topology's shape (topo.ShapeConfig), so estimating a job costs
// the same at any size: nothing is wired and no route is computed.
type Estimate struct {
	Hosts, Switches, SwitchPorts int
	Messages                     float64 // scheduled messages (expected, for load)
	Bytes                        float64 // payload bytes
	Rows                         float64 // record rows the job writes
	Events                       float64 // events, roughly
	CPUSec                       float64 // seconds of one core, roughly: Events at EventsPerSecond
	MemBytes                     int64   // peak resident memory, estimated
	// DiskBytes is the disk a job's rows take while it runs (the runner's spill file of
	// the rows, before they join the Parquet parts): Rows × diskPerRow.
	DiskBytes int64
}

// diskPerRow is the bytes of a record row in a job's spill file: gob-encoded rows of the
// bench jobs and configs/ci.yaml took 134-139 B each.
const diskPerRow = 150

// Per-item memory costs (bytes) of the estimate, fitted to `rocesweep sim --json`'s peak
// RSS (scripts/mem-estimate.sh).
const (
	memBase       = 29 << 20 // the process: runtime, binary, Parquet writers
	memPerHost    = 20 << 10 // a NIC: QPs, buffers' bookkeeping, its port and cable
	memPerPort    = 4 << 10  // a switch port: queues, counters
	memPerMessage = 200      // schedule entry, completion, messages row
	memPerRow     = 80       // a record row held until the job's rows are written
	// Frames in flight: at most the bytes the job sends and at most what the buffers
	// hold, at ~40 B of pooled packet per 4 KB frame.
	memPerInFlightByte = 0.01
	// The routing tables, per switch and rack switch (topo.Shape.RouteEntries): a set id
	// (4 B) and a hop count (1 B) in the graph, a next-hop entry (4 B) in the switch.
	memPerRouteEntry = 9
)

// EstimateJob returns cfg's estimate. It also checks what the job will need beyond
// config.Validate: the topology's keys and size limits (topo.ShapeConfig: what Build
// refuses) and the workload's sizes, counts and distribution files
// (workload.CountMessages), so that an error here is an error the job would meet.
func EstimateJob(cfg *config.Config) (Estimate, error) {
	var e Estimate
	sh, err := topo.ShapeConfig(cfg)
	if err != nil {
		return e, err
	}
	e.Hosts, e.Switches, e.SwitchPorts = sh.Hosts, sh.Switches, sh.SwitchPorts
	if e.Hosts == 0 {
		return e, nil
	}
	c, err := workload.CountMessages(cfg.Workload, e.Hosts, hostLineRate(cfg), cfg.Duration, workload.SizeCDFs)
	if err != nil {
		return e, err
	}
	e.Messages, e.Bytes = c.Messages, c.Bytes
	// Collectives: their groups are checked here, before anything runs, and
	// every step of every iteration counts as a message.
	if hasCollective(&cfg.Workload) {
		rackOf := make([]int, e.Hosts)
		for h := range rackOf {
			rackOf[h] = sh.RackOf(h)
		}
		colls, err := workload.Collectives(cfg.Workload, rackOf)
		if err != nil {
			return e, err
		}
		for i := range colls {
			n, b := colls[i].Messages()
			e.Messages += n
			e.Bytes += b
		}
	}

	// Periodic rows: per ND interval one row per port of each record (nd, ecn-pfc,
	// roce-transport) and a tier-hop row; per buffer interval a row per switch pool.
	intervals := func(iv sim.Time) float64 {
		if iv <= 0 {
			return 0
		}
		return math.Ceil(float64(cfg.Duration) / float64(iv))
	}
	ports := float64(e.SwitchPorts + e.Hosts)
	e.Rows = intervals(cfg.Global.NDStatsReportInterval)*(3*ports+1) +
		intervals(cfg.Switch.SharedBufferManager.BufferStatsReportInterval)*float64(e.Switches)*8 +
		e.Messages + float64(e.Hosts+e.Switches)
	if cfg.NIC.EnableBufferStats && cfg.Global.EnableNetworkBufferStatsReporting {
		// net-buff-stats: per interval a row per pool of each NIC's two buffers.
		var pools float64
		for c := 0; c < 8; c++ {
			for _, v := range []float64{cfg.NIC.NetworkInterface.IngressBufferManager.PoolAllocationVector[c], cfg.NIC.NetworkInterface.EgressBufferManager.PoolAllocationVector[c]} {
				if v > 0 {
					pools++
				}
			}
		}
		e.Rows += intervals(cfg.Global.NetworkBufferStatsReportingInterval) * float64(e.Hosts) * pools
	}

	buffered := float64(e.Switches)*float64(cfg.Switch.SharedBufferManager.TotalSharedBufferSize) +
		float64(e.Hosts)*float64(cfg.NIC.NetworkInterface.IngressBufferManager.TotalBufferSize+cfg.NIC.NetworkInterface.EgressBufferManager.TotalBufferSize)
	mss := float64(max(cfg.NIC.RoceQpManager.MSS, 1))
	// A message's size costs no memory of its own: the sending NIC keeps a send time per
	// PSN in flight (a ring sized by the window, in memPerHost), not per segment of the
	// message (issue 38: a 1e12-byte incast was estimated at 15.7 GB, 28 MB measured).
	mem := float64(memBase) + float64(e.Hosts)*memPerHost + float64(e.SwitchPorts)*memPerPort +
		float64(sh.RouteEntries())*memPerRouteEntry +
		e.Messages*memPerMessage + e.Rows*memPerRow + math.Min(buffered, e.Bytes)*memPerInFlightByte
	e.MemBytes = int64(math.Min(mem, math.MaxInt64/2))
	e.DiskBytes = int64(math.Min(e.Rows*diskPerRow, math.MaxInt64/2))
	// Cables a data packet crosses: 2 in a star (NIC, switch, NIC), 4 taken for the
	// multi-tier kinds (a fat tree's paths are 2, 4 or 6 cables; its permutation averages
	// ~15.4 events per data packet, performance.md "Performance").
	hops := 2.0
	if e.Switches > 1 {
		hops = 4
	}
	// The bytes that can move before `duration` ends a job (it caps stop: drain too):
	// every host sending at its line rate, at most (issue 38: a 1e12-byte incast capped
	// at 10 ms was estimated at 16,000 M events, half an hour; it ran 0.9 M, 0.1 s).
	moved := math.Min(e.Bytes, float64(e.Hosts)*hostLineRate(cfg)/8*cfg.Duration.Seconds())
	e.Events = 4*hops*moved/mss + intervals(cfg.Global.NDStatsReportInterval)*(ports+1)
	e.CPUSec = e.Events / EventsPerSecond
	return e, nil
}

// EventsPerSecond is the rate CPUSec assumes: the bench jobs ran 3.4 to 14.2 M events/s
// on one core (performance.md "Performance"), so a job may take up to three times longer.
const EventsPerSecond = 10e6

// hostLineRate is the rate of a host's cable, which Build gives every host alike: the
// smaller of the NIC's DataRate and the rack tier's downlink DataRate (records.md §2 link
// rule; a tier's uplink setting never applies to a NIC's cable).
func hostLineRate(cfg *config.Config) float64 {
	rack := cfg.TierSwitch(config.TierRack)
	return min(float64(rack.NetworkInterface.DownlinkNetworkInterface.DataRate), float64(cfg.NIC.NetworkInterface.UplinkNetworkInterface.DataRate))
}

// hasCollective reports whether w or an element of its mix is a collective.
func hasCollective(w *config.Workload) bool {
	if workload.IsCollective(w.Kind) {
		return true
	}
	for i := range w.Mix {
		if workload.IsCollective(w.Mix[i].Kind) {
			return true
		}
	}
	return false
}

// String is the estimate for people: "~96 MB, ~3.1 M events (1,024 hosts, 2,048 switch
// ports, 96,200 messages, 100,000 rows)": events to 2 significant digits, rows (and an
// expected message count) to 3, never with an exponent.
func (e Estimate) String() string {
	return fmt.Sprintf("~%s, ~%s M events (%s hosts, %s switch ports, %s messages, %s rows)",
		HumanBytes(e.MemBytes), sigFigs(e.Events/1e6, 2), config.Commas(int64(e.Hosts)), config.Commas(int64(e.SwitchPorts)),
		messages(e.Messages), sigFigs(e.Rows, 3))
}

// messages prints a message count: exact when whole (a fixed schedule), else (the
// expectation of a load) to 3 significant digits.
func messages(m float64) string {
	if m == math.Trunc(m) && m < 9e18 {
		return config.Commas(int64(m))
	}
	return sigFigs(m, 3)
}

// sigFigs prints x rounded to n significant digits, a whole number with thousands
// separators: sigFigs(96_213, 3) = "96,200", sigFigs(1.63, 2) = "1.6", sigFigs(104, 2) = "100".
func sigFigs(x float64, n int) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	scale := math.Pow(10, float64(n-1)-math.Floor(math.Log10(math.Abs(x))))
	r := math.Round(x*scale) / scale
	if math.Abs(r) >= 9e18 {
		return strconv.FormatFloat(r, 'g', n, 64) // beyond an int64's commas
	}
	if r == math.Trunc(r) {
		return config.Commas(int64(r))
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// HumanBytes formats a memory size for people: "97.1 MB", "2.4 GB" (decimal units).
func HumanBytes(b int64) string {
	x := float64(b)
	for _, u := range []string{"B", "KB", "MB", "GB", "TB", "PB"} {
		if x < 1000 || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%.0f B", x)
			}
			return fmt.Sprintf("%.3g %s", x, u)
		}
		x /= 1000
	}
	return ""
}
