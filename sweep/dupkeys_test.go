package sweep

import (
	"strings"
	"testing"

	"github.com/rocesweep/rocesweep/sweep/specfile"
)

// A key given twice in any mapping of a spec is refused with both places (issue 38: YAML
// kept the last of `replicates`, `sweep`, `select`, `objective`, `grid` and keys inside
// blocks without a word, so the run was not the spec the reader saw).
func TestDuplicateKeysRefused(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"replicates: 2\nreplicates: 3\n", "spec.yaml:2:1: replicates: set twice (first at line 1:1)"},
		{"sweep:\n  grid: {switch.LossyAlpha: [1]}\nsweep:\n  grid: {switch.StaticPoolXoffThreshold: [100KB]}\n", "spec.yaml:3:1: sweep: set twice (first at line 1:1)"},
		{"select: {confidence: 0.9}\nselect: {confidence: 0.95}\n", "spec.yaml:2:1: select: set twice (first at line 1:1)"},
		{"objective: {metric: drops_total}\nobjective: {goal: max}\n", "spec.yaml:2:1: objective: set twice (first at line 1:1)"},
		{"sweep:\n  grid: {switch.LossyAlpha: [1]}\n  grid: {switch.LossyAlpha: [2]}\n", "spec.yaml:3:3: sweep.grid: set twice (first at line 2:3)"},
		{"objective: {metric: drops_total, metric: fct_p99_usec}\n", "spec.yaml:1:34: objective.metric: set twice (first at line 1:13)"},
		{"select: {initial: 3, initial: 4}\n", "spec.yaml:1:22: select.initial: set twice (first at line 1:10)"},
		{"switch:\n  LossyAlpha: 1\n  LossyAlpha: 2\n", "spec.yaml:3:3: switch.LossyAlpha: set twice (first at line 2:3)"},
		{"topology: {kind: star, hosts: 8, hosts: 16}\n", "spec.yaml:1:34: topology.hosts: set twice (first at line 1:24)"},
		{"workload:\n  kind: mix\n  mix:\n    - {kind: incast, senders: 2, senders: 3}\n", "spec.yaml:4:34: workload.mix.0.senders: set twice (first at line 4:22)"},
		{"sweep: {grid: {switch.LossyAlpha: {from: 1, to: 2, to: 3, steps: 2}}}\n", "spec.yaml:1:52: sweep.grid.switch.LossyAlpha.to: set twice (first at line 1:45)"},
	} {
		_, err := specfile.Parse("spec.yaml", []byte(tc.text), nil)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// Every spec error names its place (issue 38: YAML errors without a line number): an
// alias of no anchor, a control character, a bad name, a constraint no point passes.
func TestSpecErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"name: a\nseed: *x\n", "spec.yaml:2:7: YAML syntax: unknown anchor 'x' referenced"},
		{"name: a\nseed: 1\x00\n", "spec.yaml:2:8: YAML syntax: control characters are not allowed (byte 0x00)"},
		{"seed: 1\nname: a b\n", `spec.yaml:2:7: name "a b": want letters`},
		{"sweep:\n  grid: {switch.LossyAlpha: [1, 2]}\n  constraint: switch.LossyAlpha > 5\n", "spec.yaml:3:15: sweep.constraint: the sweep has no jobs"},
	} {
		s, err := specfile.Parse("spec.yaml", []byte(tc.text), nil)
		if err == nil {
			_, err = Expand(s, nil)
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}
