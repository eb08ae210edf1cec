//go:build duckdb

package report_test

// Runs every SQL query of notebooks/alpha_xoff.ipynb through real DuckDB (cgo, so only
// with -tags duckdb; the rocesweep binary stays free of cgo):
//
//	go test -tags duckdb -run NotebookDuckDB ./report

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/rocesweep/rocesweep/internal/results/resultstest"
)

func TestNotebookDuckDB(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	if err := resultstest.Write(dir, resultstest.Grid([]float64{0.25, 1, 4}, []float64{200e3, 700e3}, 2, true)); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	queries := notebookQueries(readNotebook(t))
	if len(queries) == 0 {
		t.Fatal("no queries")
	}
	// Rows each query must return on this directory: 12 jobs, the last failed; 6 grid
	// points; worst job = the highest p99 FCT.
	want := []int{11, 1, 6, -1, 6, 1, -1, -1, -1}
	for i, q := range queries {
		q = strings.ReplaceAll(q, "$RESULTS", dir)
		q = strings.ReplaceAll(q, "$WORST", "j0011")
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("query %d: %v\n%s", i, err, q)
		}
		n := 0
		for rows.Next() {
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("query %d: %v", i, err)
		}
		rows.Close()
		if i < len(want) && want[i] >= 0 && n != want[i] {
			t.Errorf("query %d: %d rows, want %d\n%s", i, n, want[i], q)
		}
		if n == 0 {
			t.Errorf("query %d returned no rows\n%s", i, q)
		}
	}
	// The worst-job query picks the job with the highest p99 FCT among ok jobs.
	var id string
	if err := db.QueryRow(strings.ReplaceAll(queries[5], "$RESULTS", dir)).Scan(&id, new(float64), new(float64), new(int64), new(float64)); err != nil {
		t.Fatal(err)
	}
	if id != "j0011" {
		t.Errorf("worst job %s, want j0011 (alpha 4, Xoff 700KB, replicate 0; j0012 failed)", id)
	}
}
