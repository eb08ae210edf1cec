//go:build duckdb

package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// TestDuckDBReadmeQueries runs the SQL of README.md's "Reading results" section as written
// on a fresh quickstart run: every query returns rows, and its ORDER BY columns (all of
// them for ORDER BY ALL) identify a row: a query that returns two rows per switch per
// instant lacks the column that tells them apart.
func TestDuckDBReadmeQueries(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllSubmatch(readme, -1)
	var queries []string
	for _, b := range blocks {
		for _, q := range strings.Split(string(b[1]), ";") {
			if strings.Contains(q, "results/quickstart/") {
				queries = append(queries, q)
			}
		}
	}
	if len(queries) < 3 {
		t.Fatalf("README.md: %d SQL queries of results/quickstart, want at least 3", len(queries))
	}
	root := t.TempDir()
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"run", "-o", filepath.Join(root, "results", "quickstart"), "-j", "2"}, &out, &errb); code != 0 {
		t.Fatalf("run exited %d\n%s\n%s", code, out.String(), errb.String())
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, q := range queries {
		q = strings.ReplaceAll(q, "'results/", "'"+root+"/results/")
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("README query %d: %v\n%s", i, err, q)
		}
		cols, _ := rows.Columns()
		key := orderKey(t, q, cols)
		seen := map[string]bool{}
		n := 0
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for j := range vals {
				ptrs[j] = &vals[j]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var k []any
			for _, j := range key {
				k = append(k, vals[j])
			}
			if id := fmt.Sprint(k...); seen[id] {
				t.Errorf("README query %d returns two rows of %v = %s: a column that tells them apart is missing\n%s", i, cols, id, q)
				break
			} else {
				seen[id] = true
			}
			n++
		}
		rows.Close()
		if n == 0 {
			t.Errorf("README query %d returned no rows on the quickstart's results\n%s", i, q)
		}
	}
}

// orderKey is the indexes in cols of q's last ORDER BY columns (every column for ALL).
func orderKey(t *testing.T, q string, cols []string) []int {
	i := strings.LastIndex(q, "ORDER BY")
	if i < 0 {
		t.Fatalf("README query without ORDER BY: its rows have no stated order\n%s", q)
	}
	var key []int
	for _, name := range strings.Split(q[i+len("ORDER BY"):], ",") {
		name = strings.Fields(name)[0]
		if name == "ALL" {
			key = key[:0]
			for j := range cols {
				key = append(key, j)
			}
			return key
		}
		j := slices.Index(cols, name)
		if j < 0 {
			t.Fatalf("README query orders by %s, not one of its columns %v\n%s", name, cols, q)
		}
		key = append(key, j)
	}
	return key
}
