package nic

import (
	"strconv"
	"testing"
	"time"

	"github.com/rocesweep/rocesweep/internal/doctest"
	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/pkt"
	"github.com/rocesweep/rocesweep/model/sim"
	"github.com/rocesweep/rocesweep/model/stats"
)

// netBuffPair is a pair whose NICs write net-buff-stats (nic.md §16.5): EnableBufferStats
// on both and the global EnableNetworkBufferStatsReporting.
func netBuffPair(t *testing.T, a, b *config.NIC) *pair {
	t.Helper()
	a.EnableBufferStats, b.EnableBufferStats = true, true
	g := config.DefaultGlobal()
	g.EnableNetworkBufferStatsReporting = true
	return newPairGlobal(t, a, b, g)
}

// TestDocNetBuffStats runs the net-buff-stats example of docs/records.md §6.2 and checks
// every value of its table against the rows the two NICs write at 1 us: A sends one
// 16 KiB WRITE through a 12,462 B transmit pool (three frames), so generation blocks on
// the fourth packet; B receives it through its default receive pool.
func TestDocNetBuffStats(t *testing.T) {
	tb := doctest.Load(t, "records.md", "records-net-buff-stats")
	a, b := defaultCfgs()
	a.NetworkInterface.EgressBufferManager.TotalBufferSize = 24924
	a.NetworkInterface.EgressBufferManager.PoolAllocationVector = config.Vec8{0.5, 0.5}
	pr := netBuffPair(t, &a, &b)
	pr.post(0, 0, 16<<10, 1)
	rec := stats.NewRecorder("job", func() time.Time { return time.Unix(0, 0) })
	pr.at(sim.Microsecond, func() {
		pr.nics[0].ReportNetBuff(pr.eng.Now(), rec)
		pr.nics[1].ReportNetBuff(pr.eng.Now(), rec)
	})
	pr.run(sim.Microsecond)
	if len(pr.done) != 1 {
		t.Fatalf("%d completions by 1 us, want 1", len(pr.done))
	}
	// Two NICs × (2 receive pools + 2 transmit pools) rows, receive pools first.
	if len(rec.NetBuffStats) != 8 {
		t.Fatalf("%d rows, want 8", len(rec.NetBuffStats))
	}
	find := func(name, id string, tc int64) stats.NetBuffStats {
		for _, r := range rec.NetBuffStats {
			if r.ComponentName == name && r.BuffID == id && r.Priority == tc {
				return r
			}
		}
		t.Fatalf("no row %s %s TC %d", name, id, tc)
		return stats.NetBuffStats{}
	}
	for _, col := range []struct {
		header   string
		name, id string
	}{{"A, egressBuffer, TC 0", "Host-A", BuffEgress}, {"B, ingressBuffer, TC 0", "Host-B", BuffIngress}} {
		r := find(col.name, col.id, 0)
		if r.SimTimeSec != 1e-6 || r.ComponentType != "NIC" || r.Tier != 3 || r.Subtier != stats.Subtier {
			t.Errorf("%s: identity %+v", col.header, r)
		}
		for _, c := range []struct {
			key string
			got float64
		}{
			{"buffer_limit", float64(r.BufferLimit)}, {"total_bytes", float64(r.TotalBytes)},
			{"ivl_count", float64(r.IvlCount)}, {"ivl_min_bytes", float64(r.IvlMinBytes)}, {"ivl_max_bytes", float64(r.IvlMaxBytes)},
			{"ivl_mean_bytes", r.IvlMeanBytes}, {"ivl_max_pct_util", r.IvlMaxPctUtil}, {"ivl_mean_pct_util", r.IvlMeanPctUtil},
			{"drops", float64(r.Drops)}, {"gen_blocked_usec", r.GenBlockedUsec},
		} {
			if want := doctest.Float(t, tb, tb.Cell(t, c.key, col.header)); !sig6(c.got, want) {
				t.Errorf("%s: %s %s is %g in the docs, the model writes %g", tb.Where(), col.header, c.key, want, c.got)
			}
		}
		if r.IvlDrops != r.Drops || r.IvlGenBlockedUsec != r.GenBlockedUsec {
			t.Errorf("%s: the first row's interval columns %d, %g differ from the totals %d, %g", col.header, r.IvlDrops, r.IvlGenBlockedUsec, r.Drops, r.GenBlockedUsec)
		}
	}
	// Generation blocked from 80 ns to the end of packet 2 at 317.003 ns.
	if r := find("Host-A", BuffEgress, 0); r.GenBlockedUsec != (317003-80000)/1e6 {
		t.Errorf("gen_blocked_usec %v, want 0.237003", r.GenBlockedUsec)
	}
	// The control pools: A's receive pool takes B's one ACK (108 B) and B's transmit pool
	// holds it (126 B) until it is sent: samples 0, charge, 0.
	for _, c := range []struct {
		name, id string
		b        int64
	}{{"Host-A", BuffIngress, 108}, {"Host-B", BuffEgress, 126}} {
		if r := find(c.name, c.id, 1); r.IvlCount != 3 || r.IvlMaxBytes != c.b || r.TotalBytes != c.b || r.IvlMeanBytes != float64(c.b)/3 {
			t.Errorf("%s %s TC 1: %+v, want 3 samples, max %d", c.name, c.id, r, c.b)
		}
	}
	tb.AllChecked(t)
}

// sig6 reports whether got rounds to want at 6 significant digits (records.md RC-2).
func sig6(got, want float64) bool {
	return strconv.FormatFloat(got, 'g', 6, 64) == strconv.FormatFloat(want, 'g', 6, 64)
}

// TestNetBuffDrops: a receive row's drops are the class's receive-pool admission drops
// (nd-stats rx_drops summed over the classes), cumulative, with ivl_drops per interval.
// B's TC0 pool (3,600,000 B) is filled to 3,596,000 B by hand, 4,000 B short of one
// 4,136 B data packet: three arrivals before the row at 10 us are dropped, one more
// before the row at 20 us. Each row also carries the occupancy over: the first interval's
// one sample (0) is taken before the hand fill, the second's is the full 3,596,000 B.
func TestNetBuffDrops(t *testing.T) {
	a, b := defaultCfgs()
	pr := netBuffPair(t, &a, &b)
	B := pr.nics[1]
	data := func() {
		h, p := pr.pool.New()
		p.Type, p.Size, p.Payload, p.PSN, p.SrcHost, p.SrcQP, p.DataTC, p.CtrlTC = pkt.Data, 4136, 4096, 0, 0, 1, 0, 1
		B.Receive(h)
	}
	pr.at(1*sim.Microsecond, func() { B.inOcc[0] = 3596000; data(); data(); data() })
	pr.at(15*sim.Microsecond, data)
	rec := stats.NewRecorder("job", func() time.Time { return time.Unix(0, 0) })
	pr.every(10*sim.Microsecond, 20*sim.Microsecond, func() { B.ReportNetBuff(pr.eng.Now(), rec) })
	pr.run(20 * sim.Microsecond)
	var got [][3]int64
	for _, r := range rec.NetBuffStats {
		if r.BuffID == BuffIngress && r.Priority == 0 {
			got = append(got, [3]int64{r.Drops, r.IvlDrops, r.IvlMaxBytes})
		}
	}
	want := [][3]int64{{3, 3, 0}, {4, 1, 3596000}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("TC0 receive rows (drops, ivl_drops, ivl_max_bytes) %v, want %v", got, want)
	}
	if c := B.Counters(); c.RxDrops != 4 {
		t.Errorf("nd-stats rx_drops %d, want 4", c.RxDrops)
	}
}

// Without both settings on, a NIC samples nothing and writes no net-buff-stats row.
func TestNetBuffOff(t *testing.T) {
	for _, c := range []struct{ nic, global bool }{{false, false}, {true, false}, {false, true}} {
		a, b := defaultCfgs()
		a.EnableBufferStats, b.EnableBufferStats = c.nic, c.nic
		g := config.DefaultGlobal()
		g.EnableNetworkBufferStatsReporting = c.global
		pr := newPairGlobal(t, &a, &b, g)
		pr.post(0, 0, 64<<10, 1)
		rec := stats.NewRecorder("job", nil)
		pr.at(10*sim.Microsecond, func() { pr.nics[0].ReportNetBuff(pr.eng.Now(), rec) })
		pr.run(10 * sim.Microsecond)
		if pr.nics[0].bs != nil || len(rec.NetBuffStats) != 0 {
			t.Errorf("EnableBufferStats %v, EnableNetworkBufferStatsReporting %v: %d rows", c.nic, c.global, len(rec.NetBuffStats))
		}
	}
}
