package export_test

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rocesweep/rocesweep/internal/resultstest"
	"github.com/rocesweep/rocesweep/resultsdir"
	"github.com/rocesweep/rocesweep/resultsdir/export"
)

// A text cell a spreadsheet would evaluate (issue 38: cells beginning with =, +, -, @
// were written verbatim, formula injection) gets a leading ', as OWASP recommends, in
// either format; other text cells and numbers, negative ones included, are as they are.
func TestCSVFormulaCellsQuoted(t *testing.T) {
	errs := []string{"=HYPERLINK(\"http://x\",\"y\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A2)", "\tx", "\rx", "plain", "a=b"}
	want := []string{"'=HYPERLINK(\"http://x\",\"y\")", "'+cmd|' /C calc'!A0", "'-2+3", "'@SUM(A1:A2)", "'\tx", "'\rx", "plain", "a=b"}
	for _, format := range []resultsdir.Format{resultsdir.Parquet, resultsdir.Arrow} {
		t.Run(string(format), func(t *testing.T) {
			s := resultstest.Grid([]float64{-0.5, 1}, []float64{200e3, 700e3}, 2, false)
			for i := range s.Jobs {
				s.Jobs[i].Status, s.Jobs[i].Error = "failed", errs[i]
			}
			dir := filepath.Join(t.TempDir(), "res")
			if err := resultstest.WriteFormat(dir, s, format); err != nil {
				t.Fatal(err)
			}
			path, _, err := export.CSV(dir, "jobs")
			if err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			recs, err := csv.NewReader(f).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			ecol, acol := slices.Index(recs[0], "error"), slices.Index(recs[0], "switch_LossyAlpha")
			var got []string
			negative := 0
			for _, r := range recs[1:] {
				got = append(got, r[ecol])
				if r[acol] == "-0.5" {
					negative++
				}
			}
			slices.Sort(got)
			w := slices.Clone(want)
			slices.Sort(w)
			if !slices.Equal(got, w) {
				t.Errorf("error cells %q, want %q", got, w)
			}
			if negative != 4 {
				t.Errorf("%d cells of switch_LossyAlpha read -0.5, want 4: a number was quoted", negative)
			}
		})
	}
}
