package launch

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// TestClearBatchReuse: batches decoded one after the other into one reused Batch, as
// writeSpilled does, equal the batches encoded, although gob leaves out zero fields and
// empty tables (a row whose counter went back to 0, a batch without messages).
func TestClearBatchReuse(t *testing.T) {
	batches := []stats.Batch{
		{NdStats: []stats.NdStats{{JobID: "j", ComponentName: "h0", Ifid: 3, SimTimeSec: 1e-3}, {JobID: "j", Ifid: 4}},
			Messages: []stats.Message{{JobID: "j", MetricName: "fct", PerfMetricUsec: 12.5}}},
		{NdStats: []stats.NdStats{{JobID: "j"}}},                     // zero fields where the last batch had values
		{Messages: []stats.Message{{JobID: "j", MetricName: "fct"}}}, // no nd_stats at all
		{},
	}
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	for i := range batches {
		if err := enc.Encode(&batches[i]); err != nil {
			t.Fatal(err)
		}
	}
	dec := gob.NewDecoder(&buf)
	var b stats.Batch
	for i, want := range batches {
		clearBatch(&b)
		if err := dec.Decode(&b); err != nil {
			t.Fatal(err)
		}
		if got := b; got.Rows() != want.Rows() || !reflect.DeepEqual(got.NdStats, want.NdStats) && len(want.NdStats) > 0 ||
			!reflect.DeepEqual(got.Messages, want.Messages) && len(want.Messages) > 0 {
			t.Errorf("batch %d decoded as %+v, want %+v", i, got, want)
		}
	}
}
