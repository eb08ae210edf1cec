package main

import (
	"github.com/rocesweep/rocesweep/report"
	"github.com/rocesweep/rocesweep/sweep"
)

// effectiveConfig is sweep.EffectiveConfig as the report shows it.
func effectiveConfig(dir string) ([]report.Setting, error) {
	eff, err := sweep.EffectiveConfig(dir)
	out := make([]report.Setting, len(eff))
	for i, s := range eff {
		out[i] = report.Setting(s)
	}
	return out, err
}
