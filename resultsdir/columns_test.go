package resultsdir

import (
	"testing"

	"github.com/rocesweep/rocesweep/model/config"
	"github.com/rocesweep/rocesweep/model/stats"
)

// No swept attribute's jobs column is one of the table's own (issue 38: a sweep over
// seed repeated the column seed, and the sink panicked at the first commit): every
// attribute that can be an axis has a column of its own.
func TestAxisColumnsAreTheirOwn(t *testing.T) {
	fixed := map[string]bool{}
	for _, n := range Identity {
		fixed[n] = true
	}
	for _, n := range stats.MetricNames {
		fixed[n] = true
	}
	byColumn := map[string]string{}
	for _, a := range append(config.Schema(), config.TierSchema()...) {
		if a.Type == config.KindList {
			continue // cannot be swept
		}
		col := ColumnOf(a.Path)
		if fixed[col] {
			t.Errorf("%s: column %s is a column of the jobs table itself", a.Path, col)
		}
		if was, dup := byColumn[col]; dup {
			t.Errorf("%s and %s: both column %s", was, a.Path, col)
		}
		byColumn[col] = a.Path
	}
	if ColumnOf("seed") != SeedBaseColumn || PathOf(SeedBaseColumn) != "seed" {
		t.Errorf("seed: column %s, back to %s", ColumnOf("seed"), PathOf(SeedBaseColumn))
	}
}
