package sweep

import (
	"fmt"
	"testing"

	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// An absurd job is estimated sanely (issue 38: a 1e12-byte incast with stop: drain passed
// validate estimated at 15.7 GB, 28 MB measured, and ~16,000 M events while its 10 ms cap
// let it run 0.9 M): its memory does not grow with its messages' bytes, its events are
// those of the bytes that can move before duration ends it, and a job estimated above 10
// minutes of a core is warned of, naming the spec and the keys to look at.
func TestAbsurdJobEstimate(t *testing.T) {
	const big = "name: big\nduration: %s\nstop: drain\ntopology: {kind: star, hosts: 8}\nworkload: {kind: incast, senders: 7, message_size: 1000000000000B}\n"
	for _, tc := range []struct {
		duration  string
		maxEvents float64
		warn      bool
	}{
		{"10ms", 50e6, false},
		{"10s", 50e9, true},
	} {
		s, err := specfile.Parse("big.yaml", []byte(fmt.Sprintf(big, tc.duration)), nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Expand(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, largest := Estimates(p)
		if largest == nil || largest.MemBytes > 100e6 || largest.Events > tc.maxEvents {
			t.Fatalf("duration %s: estimate %+v; want under 100 MB and %g events", tc.duration, largest, tc.maxEvents)
		}
	}
}
