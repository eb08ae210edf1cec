package fabric

import (
	"reflect"
	"testing"

	"github.com/rocesweep/rocesweep/model/stats"
)

// TestPCIeClosedFormMatchesStepwise runs jobs twice, once with the NICs' PCIe transfers
// computed in closed form (the default) and once transfer by transfer (one event per
// 512 B transfer), and requires identical results: every summary metric but the event
// count and wall time, and every row of every record table. The jobs cover the paths
// where the closed form and the stepwise path could part: a PCIe link slower than the
// port (transfers wait for credit), TX buffers of a few transfers, drops and go-back-N
// (stale epochs on PCIe), message sizes that are no multiple of 512 B, DCQCN, three tiers.
// 0-byte messages (empty write entries) are covered by the NIC's own tests.
func TestPCIeClosedFormMatchesStepwise(t *testing.T) {
	cases := []struct {
		name string
		sets []string
	}{
		{"default incast", nil},
		{"slow PCIe lanes", []string{"workload.message_size", "64KiB", "nic.HostInterface.NICSide.PhysicalLayer.LaneBps", "7.88Gbps",
			"nic.HostInterface.HostSide.PhysicalLayer.LaneBps", "7.88Gbps", "duration", "200us"}},
		{"tiny TX buffers", []string{"nic.HostInterface.HostSide.TransactionLayer.TXDataBufferSize", "1KB",
			"nic.HostInterface.NICSide.TransactionLayer.TXDataBufferSize", "1KB",
			"nic.HostInterface.HostSide.TransactionLayer.TXHeaderBufferSize", "100B",
			"nic.HostInterface.NICSide.TransactionLayer.TXHeaderBufferSize", "100B", "duration", "200us"}},
		{"lossy drops and go-back-N", []string{"switch.TotalSharedBufferSize", "8MB", "switch.EnablePFC", "[0, 1, 0, 0, 0, 0, 0, 0]", "duration", "1ms"}},
		{"odd sizes all-to-all", []string{"topology.kind", "star", "topology.hosts", "6", "workload.kind", "all-to-all",
			"workload.message_size", "5000B", "stop", "drain", "duration", "1ms"}},
		{"leaf-spine load with DCQCN", []string{"topology.kind", "leaf-spine", "topology.leaves", "2", "topology.spines", "2",
			"topology.hosts_per_leaf", "4", "workload.kind", "load", "workload.load", "0.7", "duration", "300us"}},
		{"fat-tree permutation", []string{"topology.kind", "fat-tree", "topology.k", "4", "workload.kind", "permutation",
			"workload.message_size", "300KiB", "stop", "drain", "duration", "2ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := job(t, c.sets...)
			_, closed := runWith(t, cfg, Options{JobID: "test", Clock: fixedClock})
			_, step := runWith(t, cfg, Options{JobID: "test", Clock: fixedClock, PCIeStepwise: true})
			if step.Summary.Events < closed.Summary.Events {
				t.Errorf("stepwise path took %d events, closed form %d: want at least as many stepwise", step.Summary.Events, closed.Summary.Events)
			}
			t.Logf("events: %d closed form, %d stepwise; %d messages, %d B delivered, %d drops",
				closed.Summary.Events, step.Summary.Events, closed.Summary.MsgsCompleted, closed.Summary.BytesDelivered, closed.Summary.DropsTotal)
			for _, r := range []*stats.Result{closed, step} {
				r.Summary.WallSec, r.Summary.EventsPerSec, r.Summary.Events = 0, 0, 0
			}
			if !closed.Summary.Same(step.Summary) {
				t.Fatalf("summaries differ:\nclosed   %+v\nstepwise %+v", closed.Summary, step.Summary)
			}
			ra, rb := reflect.ValueOf(*closed.Rec), reflect.ValueOf(*step.Rec)
			for i := 0; i < ra.NumField(); i++ {
				if ra.Type().Field(i).Type.Kind() == reflect.Slice && !reflect.DeepEqual(ra.Field(i).Interface(), rb.Field(i).Interface()) {
					t.Errorf("table %s differs between the closed form and the stepwise path", ra.Type().Field(i).Name)
				}
			}
		})
	}
}
