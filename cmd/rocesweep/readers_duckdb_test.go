//go:build duckdb

package main

// Real readers over a fresh results directory: a real sweep
// of configs/ci.yaml is read by DuckDB (cgo, so only with -tags duckdb; the rocesweep
// binary itself stays free of cgo), and every SQL query of notebooks/alpha_xoff.ipynb
// runs against it:
//
//	go test -tags duckdb -run DuckDB ./cmd/rocesweep

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
)

func TestDuckDBReadsFreshResults(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ci")
	var out, errb bytes.Buffer
	if code := mainWithArgs(context.Background(), []string{"run", "../../configs/ci.yaml", "-o", dir, "-j", "2"}, &out, &errb); code != 0 {
		t.Fatalf("run exited %d\n%s\n%s", code, out.String(), errb.String())
	}
	var man struct {
		PlanSize int `json:"plan_size"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &man); err != nil || man.PlanSize == 0 {
		t.Fatalf("manifest: %v (plan_size %d)", err, man.PlanSize)
	}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	// jobs: one row per planned job, every one ok.
	rows, err := db.Query(`select job_id, count(*) as n, min(status) from '` + dir + `/jobs/*.parquet' group by job_id`)
	if err != nil {
		t.Fatal(err)
	}
	jobs := 0
	for rows.Next() {
		var id, status string
		var n int
		if err := rows.Scan(&id, &n, &status); err != nil {
			t.Fatal(err)
		}
		if n != 1 || status != "ok" {
			t.Errorf("job %s: %d rows, status %s", id, n, status)
		}
		jobs++
	}
	rows.Close()
	if jobs != man.PlanSize {
		t.Fatalf("DuckDB sees %d jobs, the plan has %d", jobs, man.PlanSize)
	}
	// Every record table that every job writes holds rows of every job (ecn_pfc_stats skips
	// all-zero rows, so a job without PFC or ECN activity has none: records.md §4).
	for _, table := range []string{"nd_stats", "roce_transport_stats", "buffer_stats", "tier_hop", "messages", "topology"} {
		var n int
		if err := db.QueryRow(`select count(distinct job_id) from '` + dir + `/` + table + `/*.parquet'`).Scan(&n); err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		if n != man.PlanSize {
			t.Errorf("%s: rows of %d jobs, want %d", table, n, man.PlanSize)
		}
	}

	// classes agrees with messages for every job: one row per (job, data TC) that
	// completed messages, the same counts, and nearest-rank percentiles over the started
	// messages (msgs_posted), the unfinished ranked last: the rank-th completed value, null
	// past the last (records.md RC-24; DuckDB's list index past the end is null too); and
	// the jobs table's per-kind p99 agrees with both (the lossless incast of ci.yaml
	// completes in every job; its lossy p99 is not reached).
	var mismatches, classRows int
	if err := db.QueryRow(`
with m as (
  select job_id, data_tc, count(*) as n, max(fct_usec) as fct_max,
         list_sort(list(fct_usec)) as f, list_sort(list(slowdown)) as s
  from '`+dir+`/messages/*.parquet' group by job_id, data_tc),
c as (select * from '`+dir+`/classes/*.parquet')
select count(*) filter (where m.job_id is null or c.job_id is null
         or c.msgs_completed <> m.n
         or c.fct_max_usec is distinct from (case when c.msgs_posted = m.n then m.fct_max end)
         or c.fct_p50_usec is distinct from m.f[greatest(1, cast(ceil(0.5 * c.msgs_posted) as bigint))]
         or c.fct_p99_usec is distinct from m.f[greatest(1, cast(ceil(0.99 * c.msgs_posted) as bigint))]
         or c.slowdown_p99 is distinct from m.s[greatest(1, cast(ceil(0.99 * c.msgs_posted) as bigint))]),
       count(c.job_id)
from c full join m on c.job_id = m.job_id and c.data_tc = m.data_tc`).Scan(&mismatches, &classRows); err != nil {
		t.Fatal(err)
	}
	if mismatches != 0 || classRows != 2*man.PlanSize {
		t.Errorf("classes vs messages: %d mismatching (job, data_tc) rows of %d classes rows (want 0 of %d)", mismatches, classRows, 2*man.PlanSize)
	}
	var badJobs int
	if err := db.QueryRow(`
with m as (
  select job_id, c.lossless, list_sort(list(fct_usec)) as f, count(*) as n
  from '` + dir + `/messages/*.parquet' join '` + dir + `/classes/*.parquet' c using (job_id, data_tc)
  group by job_id, c.lossless)
select count(*) from '` + dir + `/jobs/*.parquet' j
  left join m ll on ll.job_id = j.job_id and ll.lossless
  left join m ly on ly.job_id = j.job_id and not ly.lossless
where j.fct_p99_usec_lossless is distinct from ll.f[greatest(1, cast(ceil(0.99 * j.msgs_started_lossless) as bigint))]
   or j.fct_p99_usec_lossy is distinct from ly.f[greatest(1, cast(ceil(0.99 * j.msgs_started_lossy) as bigint))]
   or j.fct_p99_usec_lossless is null`).Scan(&badJobs); err != nil {
		t.Fatal(err)
	}
	if badJobs != 0 {
		t.Errorf("%d jobs whose fct_p99_usec_lossless/_lossy disagree with messages", badJobs)
	}

	// The notebook's queries, on this directory; $WORST is the job with the highest p99 FCT.
	var worst string
	if err := db.QueryRow(`select job_id from '` + dir + `/jobs/*.parquet' where status = 'ok' order by fct_p99_usec desc, job_id limit 1`).Scan(&worst); err != nil {
		t.Fatal(err)
	}
	nbData, err := os.ReadFile("../../notebooks/alpha_xoff.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	var nb struct {
		Cells []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(nbData, &nb); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)duckdb\.sql\(q\("""(.*?)"""`)
	var queries []string
	for _, c := range nb.Cells {
		if c.CellType == "code" {
			for _, m := range re.FindAllStringSubmatch(strings.Join(c.Source, ""), -1) {
				queries = append(queries, m[1])
			}
		}
	}
	if len(queries) == 0 {
		// Since d5eaae5 the notebook reads tables through its load() helper (DuckDB,
		// pyarrow or the CSV export), not SQL; .ci/run executes it with nbconvert.
		t.Logf("%d jobs read through DuckDB; the notebook holds no DuckDB SQL to run", jobs)
		return
	}
	for i, q := range queries {
		q = strings.ReplaceAll(strings.ReplaceAll(q, "$RESULTS", dir), "$WORST", worst)
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("notebook query %d: %v\n%s", i, err, q)
		}
		n := 0
		for rows.Next() {
			n++
		}
		rows.Close()
		if n == 0 && !strings.Contains(q, "status <> 'ok'") { // the failures list is empty here
			t.Errorf("notebook query %d returned no rows on a fresh results directory\n%s", i, q)
		}
	}
	t.Logf("%d jobs, %d notebook queries ran through DuckDB", jobs, len(queries))
}
