package explain

import (
	"errors"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

// TestClassPools: nic.md §15 rule 8 refuses a data class of any workload element without
// a NIC egress pool, naming the element, the vector and the classes that have one; a
// control class without one (or too small for an ACK) is a warning naming the element,
// as the rule's warn-only list has it.
func TestClassPools(t *testing.T) {
	const base = "name: t\ntopology: {kind: star, hosts: 4}\n"
	for _, tc := range []struct {
		name, spec string
		err        string // "" = valid
		warn       string // a warning that must be given ("" = none about pools)
	}{
		{"data_tc 2, default vectors", "workload: {kind: permutation, data_tc: 2}\n",
			"workload.data_tc: data TC 2 has no NIC egress pool (nic.NetworkInterface.EgressBufferManager.PoolAllocationVector [0.9, 0.1, 0, 0, 0, 0, 0, 0] × TotalBufferSize 256,000 B gives it 0 B), " +
				"so no packet of it can be generated; give TC 2 a share of that vector (non-zero entries contiguous from TC 0, nic.md §15 rule 1) or send on a class with a pool (those with one: 0, 1) (value 2) (nic.md §15 rule 8)", ""},
		{"mix element", "workload: {kind: mix, mix: [{kind: incast, senders: 3}, {kind: permutation, data_tc: 3}]}\n",
			"workload.mix.1.data_tc: data TC 3 has no NIC egress pool", ""},
		{"mix element of kind none", "workload: {kind: mix, mix: [{kind: incast, senders: 3}, {kind: none, data_tc: 5}]}\n", "", ""},
		{"data_tc 1", "workload: {kind: permutation, data_tc: 1}\n", "", ""},
		{"data_tc 2 with a pool", "workload: {kind: permutation, data_tc: 2}\nnic: {EgressBufferManager.PoolAllocationVector: [0.8, 0.1, 0.1, 0, 0, 0, 0, 0]}\n", "", ""},
		{"pool rounds to 0 B", "workload: {kind: permutation, data_tc: 1, control_tc: 0}\nnic: {EgressBufferManager.PoolAllocationVector: [0.999999, 0.000001, 0, 0, 0, 0, 0, 0]}\n",
			"workload.data_tc: data TC 1 has no NIC egress pool", ""},
		{"control_tc 3", "workload: {kind: permutation, control_tc: 3}\n", "",
			"workload.control_tc: nic has no egress pool for control TC 3 (nic.NetworkInterface.EgressBufferManager.PoolAllocationVector [0.9, 0.1, 0, 0, 0, 0, 0, 0]): its receivers send no ACK or NAK, so its messages never complete: the senders resend every RetransmitTimeout until the job ends at its duration, with its records (nic.md §6, §15)"},
		{"mix control_tc", "workload: {kind: mix, mix: [{kind: permutation, control_tc: 4}]}\n", "", "workload.mix.0.control_tc: nic has no egress pool for control TC 4"},
		{"control pool below an ACK", "workload: {kind: permutation}\nnic: {EgressBufferManager.PoolAllocationVector: [0.9999, 0.0001, 0, 0, 0, 0, 0, 0]}\n", "",
			"workload.control_tc: nic egress pool of control TC 1 is 26 B, below one 126 B ACK"},
		{"small data pool", "workload: {kind: permutation}\nnic: {EgressBufferManager.TotalBufferSize: 4KB}\n", "", "workload.data_tc: nic egress pool of data TC 0 is 3,600 B, below MSS + 58 = 4,154 B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := config.Load("t.yaml", []byte(base+tc.spec))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Validate()
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error\n  %v\nwant\n  %s", err, tc.err)
			case tc.err != "":
				var r *config.Rule
				if !errors.As(err, &r) || r.Ref != "nic.md §15 rule 8" {
					t.Errorf("not a rule 8 Rule: %#v", err)
				}
			}
			w := strings.Join(Messages(Warnings(&c)), "\n")
			if tc.warn != "" && !strings.Contains(w, tc.warn) {
				t.Errorf("warnings\n  %s\nwant\n  %s", w, tc.warn)
			}
			if tc.warn == "" && strings.Contains(w, "egress pool") {
				t.Errorf("unexpected pool warning: %s", w)
			}
		})
	}
}
