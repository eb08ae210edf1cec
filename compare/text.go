package compare

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// The text of a comparison, whichever the pairing: the header lines, a table of one row
// per metric, the changed values (jobs or points), then status changes and what is on
// one side only. What differs between the pairings is the columns and these words.

// writeTable prints one aligned table: head and each row are cells, each row ends with
// an empty cell (so the last column is padded too).
func writeTable(w io.Writer, head []string, rows [][]string) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	for _, r := range append([][]string{head}, rows...) {
		fmt.Fprint(tw, strings.Join(r, "\t")+"\t\n")
	}
	tw.Flush()
}

// missingRow is the row of a metric one side lacks: a dash under each of n count
// columns, then where it is missing.
func missingRow(metric string, n int, where string) []string {
	r := []string{metric}
	for range n {
		r = append(r, "-")
	}
	return append(r, "missing in "+where, "")
}

// writeTail prints the status changes and the jobs (points' replicates) on one side
// only, and the closing empty line.
func writeTail(w io.Writer, p Pairing, status []StatusChange, onlyBase, onlyNew []string) error {
	prefix, only, sep := "job ", "jobs only in", " "
	if p == PairByParams {
		prefix, only, sep = "", "only in", "; "
	}
	for _, s := range status {
		fmt.Fprintf(w, "%s%s: status %s -> %s %s\n", prefix, s.JobID, s.Base, s.New, s.Error)
	}
	if len(onlyBase) > 0 {
		fmt.Fprintf(w, "\n%s base (%d): %s\n", only, len(onlyBase), strings.Join(onlyBase, sep))
	}
	if len(onlyNew) > 0 {
		fmt.Fprintf(w, "\n%s new (%d): %s\n", only, len(onlyNew), strings.Join(onlyNew, sep))
	}
	_, err := fmt.Fprintln(w)
	return err
}

// rel formats a relative change.
func rel(v float64) string { return fmt.Sprintf("%.3g", v) }
