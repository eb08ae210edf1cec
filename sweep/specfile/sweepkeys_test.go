package specfile

import "testing"

// Every key of `sweep:` written at the top level is reported as one of sweep's (sweep
// registers them with config.RegisterBlock for ApplyNode's message).
func TestSweepKeysUnindented(t *testing.T) {
	for _, k := range sweepKeys {
		_, err := Parse("spec.yaml", []byte(k+": {}\n"), nil)
		want := "spec.yaml:1:1: " + k + ": not a top-level key: `" + k + "` is a key of `sweep:`; indent it under `sweep:`"
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", k, err, want)
		}
	}
}
