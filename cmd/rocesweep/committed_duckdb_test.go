//go:build duckdb

package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/rocesweep/rocesweep/resultsdir"
)

// The README's DuckDB query over the journals ("Reliability", the block after
// <!-- duckdb: committed-files -->) reads exactly the committed files of a table: not a
// copy of a part under a name of no shard or of another shard, not a part of no commit,
// not a file that is no Parquet at all.
func TestDuckDBReadsOnlyCommittedFiles(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- duckdb: committed-files -->\\s*```sql\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no committed-files query")
	}
	spec := writeSpec(t, crashSpec)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "-j", "2", "--shard", "1/2"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if code, _, stderr, _ := runMain(t, "run", spec, "-o", dir, "-j", "2", "--shard", "2/2"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	planned := statusJSON(t, dir).PlanSize
	files, _ := resultsdir.Files(dir, "jobs")
	data, _ := os.ReadFile(files[0])
	for _, name := range []string{"extra.parquet", "part-3of3-000001.parquet", "part-1of2-000099.parquet"} {
		os.WriteFile(filepath.Join(dir, "jobs", name), data, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "jobs", "junk.parquet"), []byte("not parquet"), 0o644)

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stmts := strings.Split(strings.ReplaceAll(string(m[1]), "DIR", dir), ";")
	for _, s := range stmts[:len(stmts)-2] {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	var n int
	if err := db.QueryRow("select count(*) from (" + stmts[len(stmts)-2] + ")").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != planned {
		t.Errorf("the README's query reads %d jobs rows, want the plan's %d", n, planned)
	}
	// A plain glob reads the strays too (the reason for the query).
	if err := db.QueryRow(`select count(*) from read_parquet('` + dir + `/jobs/part-*.parquet')`).Scan(&n); err != nil || n == planned {
		t.Errorf("a glob over part-*.parquet reads %d rows (%v); the test's strays are not strays", n, err)
	}
}
