// Package doctest lets tests read the worked examples of the model reference in docs/:
// a table marked `<!-- doctest: NAME -->` in a docs page is parsed, and the test computes
// each value with the model's own code, so a wrong number in the docs fails a test.
//
// A marked table has a header row; its first column names the row (the key). Cells are
// read as numbers by Int and Float, which skip thousands separators and a trailing unit.
package doctest

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Root returns the repository root: the nearest directory above the working directory
// that holds go.mod.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("doctest: no go.mod above the working directory")
		}
		dir = up
	}
}

// Table is one marked table of a docs page.
type Table struct {
	Page, Name string
	Line       int // line of the marker
	Header     []string
	Rows       [][]string
	used       map[int]bool
}

// Load returns the one table marked `<!-- doctest: name -->` in docs/page.
func Load(t testing.TB, page, name string) *Table {
	t.Helper()
	all := LoadAll(t, page, name)
	if len(all) != 1 {
		t.Fatalf("doctest: docs/%s has %d tables marked %q, want 1", page, len(all), name)
	}
	return all[0]
}

// LoadAll returns every table marked `<!-- doctest: name -->` in docs/page, in order
// (e.g. the attribute tables of several sections).
func LoadAll(t testing.TB, page, name string) []*Table {
	t.Helper()
	path := filepath.Join(Root(t), "docs", page)
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("doctest: %v", err)
	}
	defer f.Close()
	marker := "<!-- doctest: " + name + " -->"
	var all []*Table
	var tb *Table // the table being read
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == marker {
			tb = &Table{Page: page, Name: name, Line: n, used: map[int]bool{}}
			all = append(all, tb)
			continue
		}
		if tb == nil || (line == "" && tb.Header == nil) {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			tb = nil
			continue
		}
		cells := splitRow(line)
		switch {
		case tb.Header == nil:
			tb.Header = cells
		case isRule(cells):
		default:
			tb.Rows = append(tb.Rows, cells)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(all) == 0 {
		t.Fatalf("doctest: docs/%s has no marker %q", page, marker)
	}
	for _, tb := range all {
		if len(tb.Rows) == 0 {
			t.Fatalf("%s: the table has no rows", tb.Where())
		}
	}
	return all
}

func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

// Where names the table for failure messages.
func (tb *Table) Where() string {
	return fmt.Sprintf("docs/%s:%d (table %q)", tb.Page, tb.Line, tb.Name)
}

// Cell returns the cell of column col in the row whose first cell is key.
func (tb *Table) Cell(t testing.TB, key, col string) string {
	t.Helper()
	c := -1
	for i, h := range tb.Header {
		if h == col {
			c = i
		}
	}
	if c < 0 {
		t.Fatalf("%s: no column %q (columns %q)", tb.Where(), col, tb.Header)
	}
	found := -1
	for i, r := range tb.Rows {
		if len(r) > 0 && r[0] == key {
			if found >= 0 {
				t.Fatalf("%s: two rows %q", tb.Where(), key)
			}
			found = i
		}
	}
	if found < 0 {
		t.Fatalf("%s: no row %q", tb.Where(), key)
	}
	if c >= len(tb.Rows[found]) {
		t.Fatalf("%s: row %q has no column %q", tb.Where(), key, col)
	}
	tb.used[found] = true
	return tb.Rows[found][c]
}

// Col returns the cells of column col, in row order, and marks every row used.
func (tb *Table) Col(t testing.TB, col string) []string {
	t.Helper()
	var out []string
	for i := range tb.Rows {
		out = append(out, tb.Cell(t, tb.Rows[i][0], col))
	}
	return out
}

// MarkRead marks row i as read, for tests that read rows by position (when two rows
// share a first cell, e.g. the same quantity under two settings).
func (tb *Table) MarkRead(i int) { tb.used[i] = true }

// AllChecked fails the test when a row of the table was never read: a row added to the
// docs without a check would otherwise pass unnoticed.
func (tb *Table) AllChecked(t testing.TB) {
	t.Helper()
	for i, r := range tb.Rows {
		if !tb.used[i] {
			t.Errorf("%s: row %q is not checked by any test", tb.Where(), r[0])
		}
	}
}

var numRE = regexp.MustCompile(`[-+]?[0-9][0-9,]*(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// Numbers returns every number written in s, in order ("up to 256,000" → [256000];
// "1–174" → [1, 174]).
func Numbers(s string) []float64 {
	var out []float64
	for _, ix := range numRE.FindAllStringIndex(s, -1) {
		m := s[ix[0]:ix[1]]
		if ix[0] > 0 && (m[0] == '-' || m[0] == '+') && s[ix[0]-1] >= '0' && s[ix[0]-1] <= '9' {
			m = m[1:] // "1-174" is a range, not 1 and -174
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
		if err == nil {
			out = append(out, v)
		}
	}
	return out
}

// Float reads the single number of a cell such as "83.08 ns" or "0.584496".
func Float(t testing.TB, tb *Table, cell string) float64 {
	t.Helper()
	ns := Numbers(cell)
	if len(ns) != 1 {
		t.Fatalf("%s: cell %q holds %d numbers, want 1", tb.Where(), cell, len(ns))
	}
	return ns[0]
}

// Int reads the single whole number of a cell such as "256,000,000 B".
func Int(t testing.TB, tb *Table, cell string) int64 {
	t.Helper()
	v := Float(t, tb, cell)
	if v != math.Trunc(v) {
		t.Fatalf("%s: cell %q is not a whole number", tb.Where(), cell)
	}
	return int64(v)
}

// Last reads the last number of a cell ("up to 696,000" → 696000; "256,000 → 0" → 0).
func Last(t testing.TB, tb *Table, cell string) float64 {
	t.Helper()
	ns := Numbers(cell)
	if len(ns) == 0 {
		t.Fatalf("%s: cell %q holds no number", tb.Where(), cell)
	}
	return ns[len(ns)-1]
}
