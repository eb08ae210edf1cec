package fabric

import (
	"fmt"
	"reflect"
	"testing"
)

// TestNetBuffStatsRows: with the NICs' EnableBufferStats and the global
// EnableNetworkBufferStatsReporting on, every NIC writes its four pools (receive TC 0 and
// 1, transmit TC 0 and 1) every NetworkBufferStatsReportingInterval and once more at the
// job's end (records.md §6.2); every other row and the summary are those of the same job
// with the record off. The default incast (15 senders × 1 MiB into host 15, 16 NICs) for
// 100 us with a 40 us interval: rows at 40, 80 and 100 us, 3 × 16 × 4 = 192.
func TestNetBuffStatsRows(t *testing.T) {
	off := job(t, "duration", "100us", "report_interval", "40us")
	on := job(t, "duration", "100us", "report_interval", "40us",
		"nic.EnableBufferStats", "true", "global.EnableNetworkBufferStatsReporting", "true")
	_, a := run(t, off)
	_, b := run(t, on)
	if len(a.Rec.NetBuffStats) != 0 {
		t.Fatalf("%d net-buff-stats rows with the record off", len(a.Rec.NetBuffStats))
	}
	if got := len(b.Rec.NetBuffStats); got != 192 {
		t.Fatalf("%d net-buff-stats rows, want 192", got)
	}
	times := map[float64]int{}
	var blocked float64
	for _, r := range b.Rec.NetBuffStats {
		times[r.SimTimeSec]++
		if r.BuffID == "egressBuffer" && r.Priority == 0 {
			blocked = max(blocked, r.GenBlockedUsec)
		}
	}
	if len(times) != 3 || times[40e-6] != 64 || times[80e-6] != 64 || times[100e-6] != 64 {
		t.Errorf("rows per time %v, want 64 at each of 40, 80, 100 us", times)
	}
	t.Logf("longest generation stop on a sender's TC0 pool: %.3f us", blocked)
	// Every other table, and the summary but for its wall-clock columns, is unchanged.
	av, bv := reflect.ValueOf(a.Rec.Batch), reflect.ValueOf(b.Rec.Batch)
	for i := 0; i < av.NumField(); i++ {
		name := av.Type().Field(i).Name
		if name == "NetBuffStats" {
			continue
		}
		// Printed, so that a NaN (a class without completions) matches a NaN.
		if fmt.Sprintf("%+v", av.Field(i).Interface()) != fmt.Sprintf("%+v", bv.Field(i).Interface()) {
			t.Errorf("%s rows differ with net-buff-stats on", name)
		}
	}
	sa, sb := a.Summary, b.Summary
	sa.WallSec, sb.WallSec, sa.EventsPerSec, sb.EventsPerSec = 0, 0, 0, 0
	if !sa.Same(sb) {
		t.Errorf("summary with net-buff-stats on %+v, off %+v", sb, sa)
	}
}
