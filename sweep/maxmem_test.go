package sweep

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseMaxMem(t *testing.T) {
	for _, tc := range []struct {
		in      string
		workers int
		want    int64
		err     string
	}{
		{"0", 4, 0, ""},
		{"6GB", 4, 6e9, ""},
		{"512MiB", 1, 512 << 20, ""},
		{"16MiB", 1, 16 << 20, ""},
		{"1MB", 1, 0, "at least 16 MiB"},
		{"lots", 1, 0, `--max-mem-per-job "lots"`},
	} {
		got, err := ParseMaxMem(tc.in, tc.workers)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseMaxMem(%q): error %v, want one containing %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseMaxMem(%q, %d) = %d, %v; want %d", tc.in, tc.workers, got, err, tc.want)
		}
	}
	// The default divides the machine's memory, less a margin, over the workers.
	if total := MachineMemory(); total > 0 {
		one, _ := ParseMaxMem("", 1)
		two, _ := ParseMaxMem("", 2)
		if one <= 0 || one >= total || two > one/2+1 {
			t.Errorf("default: %d for 1 worker, %d for 2, of %d", one, two, total)
		}
	}
}

func TestMemBudget(t *testing.T) {
	if b, what := MemBudget(&Isolation{MaxMem: 1 << 30}); b != 1<<30 || what != "the limit per job (--max-mem-per-job)" {
		t.Errorf("with a limit per job: %d, %q", b, what)
	}
	for _, iso := range []*Isolation{nil, {}} {
		if b, what := MemBudget(iso); b != MachineMemory() || what != "this machine's memory" {
			t.Errorf("%+v: %d, %q; want this machine's %d", iso, b, what, MachineMemory())
		}
	}
}

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
		s, err := ParseSpec("big.yaml", []byte(fmt.Sprintf(big, tc.duration)), nil)
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

// sim refuses a job estimated above this machine's memory, as run does, naming the spec
// and the keys (issue 38: `sim --set report_interval=1ps` ran, its rows filling the disk).
// SimPlan alone: nothing runs even if the refusal regressed.
func TestSimRefusesByEstimate(t *testing.T) {
	if MachineMemory() == 0 {
		t.Skip("the machine's memory is unknown here")
	}
	_, err := SimPlan("one.yaml", []byte("name: one\nduration: 100us\ntopology: {kind: star, hosts: 8}\nworkload: {kind: incast, senders: 7, message_size: 64KB}\n"), []string{"report_interval=1ps"})
	if err == nil || !strings.HasPrefix(err.Error(), "one.yaml: estimated at ") || !strings.Contains(err.Error(), "report_interval") {
		t.Fatalf("err = %v, want a refusal naming one.yaml, the estimate and report_interval", err)
	}
}
