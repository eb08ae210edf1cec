//go:build duckdb

package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

// DuckDB reads a sweep run as 3 shards into one directory with the same one-glob
// queries as a run of the whole plan: every job once in jobs, and the same
// rows in every record table (configs/ci.yaml, the real simulation).
func TestDuckDBReadsShardsAsOneDataset(t *testing.T) {
	t.Parallel()
	whole := filepath.Join(t.TempDir(), "whole")
	sharded := filepath.Join(t.TempDir(), "sharded")
	runs := [][]string{{"run", ciSpec, "-o", whole, "-j", "2"}}
	for _, k := range []string{"1/3", "2/3", "3/3"} {
		runs = append(runs, []string{"run", ciSpec, "-o", sharded, "--shard", k, "-j", "2"})
	}
	for _, args := range runs {
		var out, errb bytes.Buffer
		if code := mainWithArgs(context.Background(), args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
		}
	}
	p := expand(t, ciSpec)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var rows, jobs int
	if err := db.QueryRow(`select count(*), count(distinct job_id) from '`+sharded+`/jobs/*.parquet'`).Scan(&rows, &jobs); err != nil {
		t.Fatal(err)
	}
	if rows != len(p.Jobs) || jobs != len(p.Jobs) {
		t.Errorf("jobs over the shards: %d rows of %d jobs, want %d once each", rows, jobs, len(p.Jobs))
	}
	for _, table := range append([]string{"jobs"}, everyJobTables...) {
		var a, b int
		if err := db.QueryRow(`select count(*) from '` + whole + `/` + table + `/*.parquet'`).Scan(&a); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if err := db.QueryRow(`select count(*) from '` + sharded + `/` + table + `/*.parquet'`).Scan(&b); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if a != b || a == 0 {
			t.Errorf("%s: %d rows over 3 shards, %d in the whole run", table, b, a)
		}
	}
	// The same answers: the whole and the sharded jobs tables agree on every metric.
	var differ int
	q := `select count(*) from '` + whole + `/jobs/*.parquet' w join '` + sharded + `/jobs/*.parquet' s using (job_id)
	      where w.drops_total <> s.drops_total or w.fct_p99_usec is distinct from s.fct_p99_usec or w.events <> s.events`
	if err := db.QueryRow(q).Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if differ != 0 {
		t.Errorf("%d jobs have other metrics in the sharded run", differ)
	}
}

// everyJobTables are the record tables in which every ci.yaml job has rows
// (ecn_pfc_stats skips all-zero rows; lb_stats and port_buffer_stats are off there).
var everyJobTables = []string{"nd_stats", "roce_transport_stats", "buffer_stats", "tier_hop", "messages", "topology"}
