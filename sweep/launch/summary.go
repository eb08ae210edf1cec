package launch

import (
	"os"
	"path/filepath"

	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/sweep"
)

// HoldsPlan reports whether dir has results of plan p (its manifest's plan, model
// version and format).
func HoldsPlan(p *sweep.Plan, dir string, f resultsdir.Format) bool {
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err != nil {
		return false
	}
	return CheckDir(p, dir, f) == nil
}
