package fabric

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
)

// Validate finds what used to fail only in the job: distribution files, sizes and counts
// the model cannot hold, a data class without a NIC egress pool, a topology too large.
func TestValidateChecksWhatJobsNeed(t *testing.T) {
	d := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(d, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	nonMonotone := write("down.txt", "1000 10\n500 50\n2000 100\n")
	junk := write("junk.txt", "this is not a CDF\n")
	good := write("good.txt", "1000 50\n4000 100\n")
	load := []string{"workload.kind=load", "workload.load=0.5"}
	for _, tc := range []struct {
		name string
		sets []string
		want string // "" = valid
	}{
		{"message_size 1e18B", []string{"workload.message_size=1e18B"}, "workload.message_size: 1,000,000,000,000,000,000 B; at most 1,099,511,627,776 B"},
		{"message_size 0B", []string{"workload.message_size=0B"}, "workload.message_size: 0 B, want >= 1"},
		{"messages 1e9", []string{"workload.messages=1000000000"}, "7000000000 messages exceed the limit of 20000000"},
		{"missing distribution file", append(load, "workload.distribution="+filepath.Join(d, "nope.txt")), "nope.txt: no such file"},
		{"unknown distribution", append(load, "workload.distribution=nope"), `unknown distribution "nope" (known: alistorage2019, fb-hadoop, websearch)`},
		{"shipped distribution", append(load, "workload.distribution=fb-hadoop"), ""},
		{"non-monotone distribution", append(load, "workload.distribution="+nonMonotone), "down.txt:2: size 500 after 1000: sizes must not decrease"},
		{"junk distribution", append(load, "workload.distribution="+junk), "junk.txt:1: want"},
		{"good distribution", append(load, "workload.distribution="+good), ""},
		// nic.md §15 rule 8: a data class without a NIC egress pool used to pass, and every
		// job then failed "packet generation blocked for good".
		{"data_tc without an egress pool", []string{"workload.data_tc=2"},
			"workload.data_tc: data TC 2 has no NIC egress pool (nic.NetworkInterface.EgressBufferManager.PoolAllocationVector [0.9, 0.1, 0, 0, 0, 0, 0, 0]"},
		// reliability.md "Limits": estimated in closed form; the largest fat tree passes, a larger
		// one is refused by its size.
		{"fat tree k = 64", []string{"topology.kind=fat-tree", "topology.k=64", "workload.kind=permutation"}, ""},
		{"fat tree k = 100", []string{"topology.kind=fat-tree", "topology.k=100", "workload.kind=permutation"},
			`topology.k: a fat tree of k = 100 has 250,000 hosts; at most 65,536 (docs/reliability.md "Limits")`},
	} {
		c := config.Default()
		c.Duration = 100_000_000 // 100 us
		for _, s := range append([]string{"topology.hosts=8", "workload.senders=7", "workload.message_size=64KB"}, tc.sets...) {
			path, value, _ := strings.Cut(s, "=")
			if err := c.Set(path, value); err != nil {
				t.Fatalf("%s: %s: %v", tc.name, s, err)
			}
		}
		err := Validate(&c)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}
