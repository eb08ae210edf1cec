package fabric

import (
	"testing"
)

// stuckRepro reproduces a pause that never ends: host 0 sends lossless
// traffic (TC 0) to an idle receiver and lossy traffic (TC 2) into a congested port, both
// through the default shared pool 0 (TC 2 maps to pool 0, switch.md §4.3). Its lossy
// bytes push its ingress occupancy past Xoff, its lossless packets all leave while the
// occupancy is still above Xon, and nothing re-checks (switch.md §5.5, DC-9).
func stuckRepro(t *testing.T) []string {
	return []string{"duration", "3ms", "topology.hosts", "4",
		"workload.kind", "mix",
		"workload.mix.0.kind", "incast", "workload.mix.0.senders", "1", "workload.mix.0.receiver", "1",
		"workload.mix.0.message_size", "1MiB", "workload.mix.0.data_tc", "0",
		"workload.mix.1.kind", "incast", "workload.mix.1.senders", "3", "workload.mix.1.receiver", "3",
		"workload.mix.1.message_size", "2MiB", "workload.mix.1.data_tc", "2",
		"nic.IngressBufferManager.PoolAllocationVector", "[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
		"nic.EgressBufferManager.PoolAllocationVector", "[0.8, 0.1, 0.1, 0, 0, 0, 0, 0]",
	}
}

// The reproduction ends with the switch buffer empty, 70 pause frames from the switch
// port facing host 0 (a refresh every 41.99 us, switch.md §7.2) and no resume, host 0
// paused for nearly all of the 3 ms: stuck_pause_ports counts that port, once.
func TestStuckPauseRepro(t *testing.T) {
	f, res := run(t, job(t, stuckRepro(t)...))
	s, c := res.Summary, f.switches[0].Counters()
	if s.StuckPausePorts != 1 || c.PfcPauseTx != 70 || c.PfcResumeTx != 0 || c.BufferedBytes != 0 {
		t.Errorf("stuck_pause_ports %d, switch pauses %d, resumes %d, buffered %d B; want 1, 70, 0, 0",
			s.StuckPausePorts, c.PfcPauseTx, c.PfcResumeTx, c.BufferedBytes)
	}
	if st := f.switches[0].Port(0, 0); !st.Xoff || st.IngOcc != 0 {
		t.Errorf("port 0 pool 0 at the end: %+v, want xoff with nothing held", st)
	}
	if s.PfcPausedUsec < 2900 || s.PfcPausedUsec > 3000 {
		t.Errorf("host 0 paused %.1f us of 3,000", s.PfcPausedUsec)
	}
	// Half the run is the bar: the same pause checked at 4 ms (held 3.94 ms of 4) still
	// counts, and with both elements lossless the pauses lift.
	_, res = run(t, job(t, append(stuckRepro(t), "duration", "4ms")...))
	if res.Summary.StuckPausePorts != 1 {
		t.Errorf("at 4 ms: stuck_pause_ports %d, want 1", res.Summary.StuckPausePorts)
	}
	_, res = run(t, job(t, append(stuckRepro(t), "workload.mix.1.data_tc", "0")...)) // later sets win
	if res.Summary.StuckPausePorts != 0 {
		t.Errorf("all lossless: stuck_pause_ports %d, want 0", res.Summary.StuckPausePorts)
	}
}
