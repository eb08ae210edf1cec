package sink

import (
	"testing"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// TestPageBufferOf: a table's columns share tablePageBuffers once pageBufferSize each
// would pass it, in whole KiB; narrower tables keep pageBufferSize.
func TestPageBufferOf(t *testing.T) {
	for _, c := range []struct{ cols, want int }{
		{0, 32 << 10},
		{1, 32 << 10},
		{23, 32 << 10}, // nd_stats
		{32, 32 << 10}, // exactly 1 MiB
		{33, 31 << 10}, // 31,775 B, rounded down to 31 KiB
		{75, 13 << 10}, // roce_transport_stats: 13,981 B, 13 KiB
	} {
		if got := pageBufferOf(c.cols); got != c.want {
			t.Errorf("pageBufferOf(%d) = %d, want %d", c.cols, got, c.want)
		}
	}
}

// TestRecordTablesPageBuffers: no record table's page buffers together pass
// tablePageBuffers, the bound that keeps a long job's peak memory (docs/performance.md).
func TestRecordTablesPageBuffers(t *testing.T) {
	for _, rt := range resultsdir.RecordTables {
		n := rt.Type.NumField()
		if total := n * pageBufferOf(n); total > tablePageBuffers {
			t.Errorf("%s: %d columns × %d B = %d B of page buffers, over %d", rt.Name, n, pageBufferOf(n), total, tablePageBuffers)
		}
	}
}
