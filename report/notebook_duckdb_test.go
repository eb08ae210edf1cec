//go:build duckdb

package report_test

// Runs the notebook's DuckDB reader (load() in notebooks/alpha_xoff.ipynb: read_parquet
// over a table folder, optionally one job) through real DuckDB (cgo, so only with -tags
// duckdb; the rocesweep binary stays free of cgo) on every table the notebook reads:
//
//	go test -tags duckdb -run NotebookDuckDB ./report

import (
	"database/sql"
	"fmt"
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
	nb := readNotebook(t)
	var setup string
	for _, c := range nb.Cells {
		if c.ID == "setup" {
			setup = strings.Join(c.Source, "")
		}
	}
	// The query load() builds, as written in the notebook.
	const tmpl = `SELECT * FROM read_parquet('{RESULTS}/{table}/*.parquet'){where}`
	if !strings.Contains(setup, tmpl) {
		t.Fatalf("the setup cell no longer reads with %s; update this test", tmpl)
	}
	seen := map[string]bool{}
	for _, table := range notebookTables(nb) {
		if seen[table] {
			continue
		}
		seen[table] = true
		q := strings.NewReplacer("{RESULTS}", dir, "{table}", table, "{where}", " WHERE job_id = 'j0011'").Replace(tmpl)
		var n int
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM (%s)", q)).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
}
