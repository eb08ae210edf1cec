package fabric

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// Rows that leave a job in batches (Options.Emit) are the rows a job that keeps them all
// returns, in the same order, whatever the batch size: streaming changes where rows go,
// never which rows there are.
func TestEmittedBatchesEqualKeptRows(t *testing.T) {
	cfg := job(t, "topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2",
		"topology.hosts_per_leaf", "4", "workload.kind", "load", "workload.load", "0.5", "duration", "300us",
		"report_interval", "10us", "switch.EnableLoadBalancingStats", "true")
	_, kept := run(t, cfg)
	if kept.Rec.Batch.Rows() < 1000 {
		t.Fatalf("only %d rows: the test wants many batches", kept.Rec.Batch.Rows())
	}
	for _, batch := range []int{1, 7, 500, 1 << 20} {
		var all stats.Batch
		batches := 0
		emit := func(b stats.Batch) error {
			batches++
			if b.Rows() > batch+200 { // a report adds at most one interval's rows past the bound
				t.Errorf("batch of %d rows, bound %d", b.Rows(), batch)
			}
			appendBatch(&all, b)
			return nil
		}
		res, err := Run(context.Background(), cfg, Options{JobID: "test", Clock: fixedClock, Emit: emit, BatchRows: batch})
		if err != nil {
			t.Fatal(err)
		}
		appendBatch(&all, res.Rec.Batch)
		// As text: a message whose last byte had not reached host memory by the end has
		// NaN host columns, and NaN != NaN for reflect.DeepEqual.
		if want := kept.Rec.Batch; fmt.Sprint(all) != fmt.Sprint(want) {
			t.Errorf("batches of %d: the %d rows emitted in %d batches differ from the %d rows kept", batch, all.Rows(), batches, want.Rows())
		}
		res.Summary.WallSec, res.Summary.EventsPerSec = kept.Summary.WallSec, kept.Summary.EventsPerSec
		if fmt.Sprint(res.Summary) != fmt.Sprint(kept.Summary) { // NaN metrics: compare the text

			t.Errorf("batches of %d: summary differs", batch)
		}
	}
}

// appendBatch copies b's rows (the recorder reuses its slices) onto all.
func appendBatch(all *stats.Batch, b stats.Batch) {
	av, bv := reflect.ValueOf(all).Elem(), reflect.ValueOf(b)
	for i := 0; i < av.NumField(); i++ {
		if bv.Field(i).Len() > 0 {
			av.Field(i).Set(reflect.AppendSlice(av.Field(i), bv.Field(i)))
		}
	}
}

// A batch that cannot leave the job (Emit fails) fails the job, even a job too short
// for its event loop to look at the recorder's error: it has not produced all its rows.
func TestEmitFailureFailsTheJob(t *testing.T) {
	cfg := job(t, "duration", "50us", "report_interval", "10us")
	boom := fmt.Errorf("no space left on device")
	n := 0
	emit := func(b stats.Batch) error {
		if n++; n == 2 {
			return boom
		}
		return nil
	}
	res, err := Run(context.Background(), cfg, Options{JobID: "test", Clock: fixedClock, Emit: emit, BatchRows: 1})
	if err == nil || !errors.Is(err, boom) {
		t.Fatalf("Run = %v, %v; want the emit error", res != nil, err)
	}
}
