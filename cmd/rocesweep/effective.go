package main

import (
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/sweep/launch"
)

// effectiveConfig is launch.EffectiveConfig as the report shows it.
func effectiveConfig(dir string) ([]report.Setting, error) {
	eff, err := launch.EffectiveConfig(dir)
	out := make([]report.Setting, len(eff))
	for i, s := range eff {
		out[i] = report.Setting(s)
	}
	return out, err
}
