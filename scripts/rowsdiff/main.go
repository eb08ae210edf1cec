// Command rowsdiff checks that two results directories hold the same rows in every table:
// the check behind "the model must not change" of a performance change. It
// ignores the columns that measure the machine or the simulator, not the model
// (time_utc, wall_sec, events, events_per_sec), compares every other cell exactly, and
// treats a table as a multiset of rows so that the order in which jobs finished does not
// matter.
//
//	go run ./scripts/rowsdiff BEFORE_DIR AFTER_DIR   # exit 1 on any difference
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// machine lists the columns whose values depend on the host or on how the simulator
// computes the model, not on the model: events counts the engine's work, which a
// performance change may lower (the report's perfMetrics).
var machine = map[string]bool{"time_utc": true, "wall_sec": true, "events": true, "events_per_sec": true}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: rowsdiff BEFORE_DIR AFTER_DIR")
		os.Exit(2)
	}
	bad := false
	for _, name := range append([]string{"jobs"}, resultsdir.Tables...) {
		msg, err := diff(os.Args[1], os.Args[2], name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "rowsdiff: %v\n", err)
			os.Exit(2)
		}
		if msg != "" {
			fmt.Printf("%s: %s\n", name, msg)
			bad = true
		}
	}
	if bad {
		os.Exit(1)
	}
	fmt.Println("rowsdiff: every table identical")
}

func diff(a, b, name string) (string, error) {
	ta, ea := resultsdir.ReadTable(a, name, nil)
	tb, eb := resultsdir.ReadTable(b, name, nil)
	switch {
	case errors.Is(ea, fs.ErrNotExist) && errors.Is(eb, fs.ErrNotExist):
		return "", nil
	case errors.Is(ea, fs.ErrNotExist) || errors.Is(eb, fs.ErrNotExist):
		return fmt.Sprintf("present in one directory only (%v / %v)", ea, eb), nil
	case ea != nil:
		return "", ea
	case eb != nil:
		return "", eb
	}
	ra, ca := rows(ta)
	rb, cb := rows(tb)
	if !slices.Equal(ca, cb) {
		return fmt.Sprintf("columns differ:\n  %v\n  %v", ca, cb), nil
	}
	if len(ra) != len(rb) {
		return fmt.Sprintf("%d rows before, %d after", len(ra), len(rb)), nil
	}
	for i := range ra {
		if ra[i] != rb[i] {
			return fmt.Sprintf("%d rows differ; first (sorted) difference:\n  before %s\n  after  %s", count(ra, rb), ra[i], rb[i]), nil
		}
	}
	return "", nil
}

// rows returns the table's rows as sorted strings of exact cell values, and the columns kept.
func rows(t *resultsdir.Table) ([]string, []string) {
	var cols []*resultsdir.Column
	var names []string
	for _, c := range t.Columns {
		if !machine[c.Name] {
			cols = append(cols, c)
			names = append(names, c.Name)
		}
	}
	out := make([]string, t.Rows)
	var sb strings.Builder
	for i := range out {
		sb.Reset()
		for _, c := range cols {
			switch {
			case c.Null[i]:
				sb.WriteString("null")
			case c.Str != nil:
				fmt.Fprintf(&sb, "%q", c.Str[i])
			default:
				fmt.Fprintf(&sb, "%v", c.Num[i]) // shortest exact representation
			}
			sb.WriteByte('|')
		}
		out[i] = sb.String()
	}
	slices.Sort(out)
	return out, names
}

func count(a, b []string) int {
	n := 0
	for i := range a {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}
