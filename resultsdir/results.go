// Package results owns the results directory (design.md "Results directory"): its
// manifest (the one type writers write and readers read), its layout and file names,
// formats, the schemas of its tables (Schema, RecordTables), shard arithmetic, column
// names, which files are not rocesweep's, the committed parts and their checks
// (ReadCommitted, CheckPart, DamagedPartError), and reading its tables' Parquet and
// Arrow parts as plain columns. The journal's format is its subpackage journal. Package
// sink writes what this package describes; sweep, report, compare, status and ls read
// through it. It knows the layout, not devices.
//
// A table is read whole into memory (one float64 or string per cell): a jobs table of a
// few thousand rows is small, and interval tables are read for a few chosen jobs only
// (ReadTable's keep filter), so memory stays proportional to what a chart draws.
package resultsdir

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/rocesweep/rocesweep/model/stats"
)

// Column is one column of a table. Numbers (ints, floats, bools as 0/1) are kept in Num,
// strings in Str; Null marks missing cells (optional columns). Exactly one of Num and Str
// is non-nil.
type Column struct {
	Name string
	// Type is the Parquet physical type as read: "boolean", "int32", "int64", "float",
	// "double", "string".
	Type string
	Num  []float64
	Str  []string
	Null []bool
}

// IsString reports whether the column holds strings.
func (c *Column) IsString() bool { return c.Str != nil }

// Text returns cell i formatted for a human: the string, or the number with %g
// (integers without exponent up to 2^53).
func (c *Column) Text(i int) string {
	switch {
	case c.Null[i]:
		return "null"
	case c.Str != nil:
		return c.Str[i]
	default:
		return FormatNum(c.Num[i])
	}
}

// FormatNum prints v as an integer when it is one (below 2^53), else with %.6g.
func FormatNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.6g", v)
}

// Table is a table read into columns of equal length Rows.
type Table struct {
	Name    string
	Rows    int
	Columns []*Column
}

// Col returns the column called name, or nil.
func (t *Table) Col(name string) *Column {
	for _, c := range t.Columns {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Identity columns of `jobs`: neither swept parameters nor metrics.
var Identity = []string{"job_id", "status", "error", "replicate", "seed"}

// ErrNoParts is wrapped (beside fs.ErrNotExist) by Parts's error for a table with no
// committed part files (Parquet or Arrow IPC): no rows, and no schema to read.
var ErrNoParts = errors.New("no committed part files")

// ReadTable reads every committed DIR/<name>/part-* file (Parts: the
// files DIR's journals' commits name, all shards, in name order; temp files and parts
// of a running sweep not yet committed are skipped) into one table.
// keep, if not nil, selects rows by their job_id (tables without job_id are kept whole).
// A missing table folder is an error wrapping fs.ErrNotExist; files whose schemas differ
// are refused, naming both files.
func ReadTable(dir, name string, keep func(jobID string) bool) (*Table, error) {
	parts, err := CommittedParts(dir, name)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name}
	first := ""
	for _, p := range parts {
		if err := readPart(t, p, keep, &first); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// ReadJobs reads a results directory's manifest and its jobs table, what every reader of
// a whole study starts with. A directory without a readable manifest "is not a results
// directory"; a jobs table that does not read is an error naming dir.
func ReadJobs(dir string) (*Manifest, *Table, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a results directory: %w", dir, err)
	}
	jobs, err := ReadTable(dir, JobsTable, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return m, jobs, nil
}

// ReadPart reads one part file (Parquet or Arrow IPC, by its extension) into a table
// named after nothing: what ReadTable reads of each committed part. keep is as
// ReadTable's. A file whose bytes do not decode is a *DamagedPartError naming it.
func ReadPart(path string, keep func(jobID string) bool) (*Table, error) {
	t := &Table{}
	first := ""
	if err := readPart(t, Part{Path: path}, keep, &first); err != nil {
		return nil, err
	}
	return t, nil
}

// readPart appends the rows of one Parquet file to t (an Arrow IPC file: readArrowPart),
// after checking its size and checksum against its journal (CheckPart). A file
// whose bytes do not match or do not decode is a *DamagedPartError naming it, never
// a panic; t is then left with part of its rows, and the caller drops it.
func readPart(t *Table, part Part, keep func(string) bool, first *string) error {
	if err := CheckPart(part); err != nil {
		return err
	}
	path := part.Path
	if IsArrow(path) {
		return GuardPart(path, func() error { return readArrowPart(t, path, keep, first) })
	}
	return GuardPart(path, func() error { return readParquetPart(t, path, keep, first) })
}

func readParquetPart(t *Table, path string, keep func(string) bool, first *string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return Damaged(path, err)
	}
	schema := pf.Schema()
	leaves := schema.Columns()
	names := make([]string, len(leaves))
	types := make([]string, len(leaves))
	for i, l := range leaves {
		names[i] = strings.Join(l, ".")
		leaf, _ := schema.Lookup(l...)
		types[i] = typeName(leaf.Node)
	}
	if *first == "" {
		*first = path
		for i := range names {
			c := &Column{Name: names[i], Type: types[i]}
			if types[i] == "string" {
				c.Str = []string{}
			} else {
				c.Num = []float64{}
			}
			t.Columns = append(t.Columns, c)
		}
	} else if err := sameColumns(t, names, types); err != nil {
		return fmt.Errorf("%s and %s: %w", *first, path, err)
	}
	idCol := -1
	for i, n := range names {
		if n == "job_id" && types[i] == "string" {
			idCol = i
		}
	}
	// Column by column (ReadColumn says why).
	for _, rg := range pf.RowGroups() {
		chunks := rg.ColumnChunks()
		var kept []bool // by row of the row group; nil: every row
		if keep != nil && idCol >= 0 {
			kept = make([]bool, 0, rg.NumRows())
			err := ReadColumn(chunks[idCol], func(v parquet.Value) {
				kept = append(kept, keep(string(v.ByteArray())))
			})
			if err != nil {
				return Damaged(path, err)
			}
		}
		rows := int(rg.NumRows())
		want := rows // the rows this row group adds
		if kept != nil {
			want = 0
			for _, k := range kept {
				if k {
					want++
				}
			}
		}
		if want == 0 {
			continue // no row of this row group is kept: its other columns go unread
		}
		for i, c := range t.Columns {
			c.Null = slices.Grow(c.Null, want)
			var in interner
			if c.Str != nil {
				c.Str = slices.Grow(c.Str, want)
			} else {
				c.Num = slices.Grow(c.Num, want)
			}
			r := 0
			err := ReadColumn(chunks[i], func(v parquet.Value) {
				if kept == nil || (r < len(kept) && kept[r]) {
					c.Null = append(c.Null, v.IsNull())
					if c.Str != nil {
						c.Str = append(c.Str, in.get(v.ByteArray()))
					} else {
						c.Num = append(c.Num, number(v))
					}
				}
				r++
			})
			if err == nil && r != rows {
				err = fmt.Errorf("column %s has %d values in a row group of %d rows", c.Name, r, rows)
			}
			if err != nil {
				return Damaged(path, err)
			}
		}
		t.Rows += want
	}
	return nil
}

// interner returns one string for equal byte strings: a table's string columns repeat a
// few values (job ids, component names) over many rows, so a cell costs no allocation
// of its own. It stops adding at internCap distinct values (a column of unique texts).
type interner map[string]string

const internCap = 4096

func (in *interner) get(b []byte) string {
	if s, ok := (*in)[string(b)]; ok {
		return s
	}
	s := string(b)
	if *in == nil {
		*in = make(interner)
	}
	if len(*in) < internCap {
		(*in)[s] = s
	}
	return s
}

func number(v parquet.Value) float64 {
	if v.IsNull() {
		return math.NaN()
	}
	switch v.Kind() {
	case parquet.Boolean:
		if v.Boolean() {
			return 1
		}
		return 0
	case parquet.Int32:
		return float64(v.Int32())
	case parquet.Int64:
		return float64(v.Int64())
	case parquet.Float:
		return float64(v.Float())
	case parquet.Double:
		return v.Double()
	}
	return math.NaN()
}

func typeName(n parquet.Node) string {
	switch n.Type().Kind() {
	case parquet.Boolean:
		return "boolean"
	case parquet.Int32:
		return "int32"
	case parquet.Int64:
		return "int64"
	case parquet.Float:
		return "float"
	case parquet.Double:
		return "double"
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return "string"
	}
	return n.Type().String()
}

func sameColumns(t *Table, names, types []string) error {
	if len(names) != len(t.Columns) {
		return fmt.Errorf("%d columns, then %d", len(t.Columns), len(names))
	}
	for i, c := range t.Columns {
		if c.Name != names[i] || c.Type != types[i] {
			return fmt.Errorf("column %d is %s %s, then %s %s", i, c.Name, c.Type, names[i], types[i])
		}
	}
	return nil
}

// IsMetric reports whether name is a summary metric of the jobs table.
func IsMetric(name string) bool {
	for _, m := range stats.MetricNames {
		if m == name {
			return true
		}
	}
	return false
}

// Axes returns the swept-parameter columns of a jobs table, in order: the manifest's
// axes when it lists them (as paths or column names), else every column that is neither
// identity nor metric and takes more than one value.
func Axes(m *Manifest, jobs *Table) []string {
	var out []string
	if m != nil && len(m.Axes) > 0 {
		for _, a := range m.Axes {
			if c := jobs.Col(ColumnOf(a)); c != nil {
				out = append(out, c.Name)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, c := range jobs.Columns {
		if IsMetric(c.Name) || isIdentity(c.Name) {
			continue
		}
		if distinct(c) > 1 {
			out = append(out, c.Name)
		}
	}
	return out
}

func isIdentity(name string) bool {
	for _, n := range Identity {
		if n == name {
			return true
		}
	}
	return false
}

func distinct(c *Column) int {
	seen := map[string]bool{}
	for i := range c.Null {
		seen[c.Text(i)] = true
	}
	return len(seen)
}

// PartCache keeps the rows of committed part files already read, so that a reader that
// reads one table again and again (a selection deciding before every round) reads each
// file once: a committed part never changes, and a file whose size changed is read
// again. The zero value is empty; a PartCache is not safe for concurrent use.
type PartCache struct {
	parts map[string]cachedPart
}

type cachedPart struct {
	size int64
	t    *Table
}

// ReadTable is ReadTable(dir, name, nil) through the cache.
func (c *PartCache) ReadTable(dir, name string) (*Table, error) {
	parts, err := CommittedParts(dir, name)
	if err != nil {
		return nil, err
	}
	if c.parts == nil {
		c.parts = map[string]cachedPart{}
	}
	out := &Table{Name: name}
	first := ""
	for _, part := range parts {
		p := part.Path
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		cp, ok := c.parts[p]
		if !ok || cp.size != st.Size() {
			t := &Table{Name: name}
			f := ""
			if err := readPart(t, part, nil, &f); err != nil {
				return nil, err
			}
			cp = cachedPart{st.Size(), t}
			c.parts[p] = cp
		}
		if first == "" {
			first = p
			for _, col := range cp.t.Columns {
				nc := &Column{Name: col.Name, Type: col.Type}
				if col.Str != nil {
					nc.Str = []string{}
				} else {
					nc.Num = []float64{}
				}
				out.Columns = append(out.Columns, nc)
			}
		} else {
			names, types := make([]string, len(cp.t.Columns)), make([]string, len(cp.t.Columns))
			for i, col := range cp.t.Columns {
				names[i], types[i] = col.Name, col.Type
			}
			if err := sameColumns(out, names, types); err != nil {
				return nil, fmt.Errorf("%s and %s: %w", first, p, err)
			}
		}
		for i, col := range cp.t.Columns {
			o := out.Columns[i]
			o.Null = append(o.Null, col.Null...)
			if o.Str != nil {
				o.Str = append(o.Str, col.Str...)
			} else {
				o.Num = append(o.Num, col.Num...)
			}
		}
		out.Rows += cp.t.Rows
	}
	return out, nil
}
