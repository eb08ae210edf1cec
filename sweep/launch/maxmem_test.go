package launch

import (
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
