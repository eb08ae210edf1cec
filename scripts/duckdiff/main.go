//go:build duckdb

// Command duckdiff is the judge of scripts/chaos.sh: DuckDB, not rocesweep's own reader,
// decides whether a results directory holds the same rows as a reference.
//
//	go build -tags duckdb -o duckdiff ./scripts/duckdiff   # cgo
//	duckdiff REF DIR          # every table: the same multiset of rows? exit 1 if not
//	duckdiff files DIR        # the committed files of DIR, one per line (TABLE/part-...)
//
// Only committed files are read: the files that the closing lines of DIR's journals
// name, less withdrawn commits, found with the documented query (docs/reliability.md
// "Reliability", the block after <!-- duckdb: committed-files -->; TestDuckDBDiffQueryIsTheDocs keeps the two
// equal), so strays in a table folder are never counted. For every table (jobs and each
// record table) both ways of
//
//	SELECT * EXCLUDE (machine columns) FROM read_parquet(<DIR's committed files>)
//	EXCEPT ALL
//	SELECT * EXCLUDE (machine columns) FROM read_parquet(<REF's committed files>)
//
// must be empty; the machine columns are those whose values measure the host, not the
// model: wall_sec, events_per_sec (jobs) and time_utc (record tables, records.md §1).
// It also checks that every job id appears exactly once in DIR's jobs and that jobs
// holds as many rows as manifest.json's plan_size.
//
// The last line of a comparison is for scripts:
//
//	duckdiff: tables=10 rows=123456 lost=0 extra=0 jobs=96 dup_job_ids=0 plan=96 ok
package main

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/rocesweep/rocesweep/resultsdir"
)

// machine lists the columns whose values depend on the host, not the model (the same
// set as scripts/rowsdiff).
var machine = []string{"wall_sec", "events_per_sec", "time_utc"}

// committedQuery is docs/reliability.md's committed-files query with DIR and the table left as
// placeholders: the files that the commits of every shard's journal name, less
// withdrawn commits, of one table.
const committedQuery = `SET VARIABLE committed = (
    WITH lines AS (
      SELECT * FROM read_json('DIR/journal*.jsonl', format = 'newline_delimited', filename = true,
        ignore_errors = true, columns = {'commit': 'BIGINT', 'jobs': 'BIGINT', 'files': 'VARCHAR[]', 'void': 'BIGINT'}))
    SELECT list('DIR/' || f) FROM (
      SELECT unnest(files) AS f FROM lines c
      WHERE c.jobs IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM lines v WHERE v.filename = c.filename AND v.void = c."commit"))
    WHERE f LIKE 'jobs/%');`

func main() {
	args := os.Args[1:]
	db, err := sql.Open("duckdb", "")
	if err != nil {
		fail(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // SET VARIABLE is per connection
	switch {
	case len(args) == 2 && args[0] == "files":
		for _, t := range tables() {
			files, err := committed(db, args[1], t)
			if err != nil {
				fail(err)
			}
			for _, f := range files {
				rel, _ := filepath.Rel(args[1], f)
				fmt.Println(rel)
			}
		}
	case len(args) == 2:
		if !compare(db, args[0], args[1]) {
			os.Exit(1)
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: duckdiff REF DIR | duckdiff files DIR")
		os.Exit(2)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "duckdiff: %v\n", err)
	os.Exit(2)
}

func tables() []string { return append([]string{"jobs"}, resultsdir.Tables...) }

// committed returns DIR's committed files of table, by docs/reliability.md's query.
func committed(db *sql.DB, dir, table string) ([]string, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "journal*.jsonl")); len(m) == 0 {
		return nil, nil // read_json of no file is an error, not an empty list
	}
	q := strings.ReplaceAll(committedQuery, "DIR", strings.ReplaceAll(dir, "'", "''"))
	q = strings.Replace(q, "'jobs/%'", "'"+table+"/%'", 1)
	if _, err := db.Exec(q); err != nil {
		return nil, fmt.Errorf("%s: the committed-files query: %w", dir, err)
	}
	rows, err := db.Query(`SELECT unnest(getvariable('committed'))`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var f string
		if err := rows.Scan(&f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// source is a FROM clause reading files, or an empty relation of no columns when none.
func source(files []string) string {
	q := make([]string, len(files))
	for i, f := range files {
		q[i] = quote(f)
	}
	return "read_parquet([" + strings.Join(q, ", ") + "], union_by_name = true)"
}

func columns(db *sql.DB, files []string) ([]string, error) {
	rows, err := db.Query("DESCRIBE SELECT * FROM " + source(files))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		name := fmt.Sprint(vals[0])
		if !slices.Contains(machine, name) {
			out = append(out, name)
		}
	}
	return out, rows.Err()
}

func count(db *sql.DB, q string) (int64, error) {
	var n int64
	err := db.QueryRow("SELECT count(*) FROM (" + q + ")").Scan(&n)
	return n, err
}

// samples prints up to three rows of q, for the report of a difference.
func samples(db *sql.DB, q, what string) {
	rows, err := db.Query(q + " LIMIT 3")
	if err != nil {
		fmt.Printf("  (%s: %v)\n", what, err)
		return
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if rows.Scan(ptrs...) != nil {
			return
		}
		var sb strings.Builder
		for i, c := range cols {
			if i > 0 {
				sb.WriteString(" ")
			}
			if i == 12 {
				sb.WriteString("...")
				break
			}
			fmt.Fprintf(&sb, "%s=%v", c, vals[i])
		}
		fmt.Printf("  %s: %s\n", what, sb.String())
	}
}

func compare(db *sql.DB, ref, dir string) bool {
	ok := true
	var ntables int
	var nrows, lost, extra, njobs, dups int64
	for _, t := range tables() {
		rf, err := committed(db, ref, t)
		if err != nil {
			fail(err)
		}
		df, err := committed(db, dir, t)
		if err != nil {
			fail(err)
		}
		if len(rf) == 0 && len(df) == 0 {
			continue
		}
		ntables++
		if len(rf) == 0 || len(df) == 0 {
			n, err := count(db, "SELECT * FROM "+source(append(rf, df...)))
			if err != nil {
				fail(err)
			}
			if len(df) == 0 {
				lost += n
				fmt.Printf("duckdiff: %s: %d rows in %s, no committed file in %s\n", t, n, ref, dir)
			} else {
				extra += n
				fmt.Printf("duckdiff: %s: %d rows in %s, no committed file in %s\n", t, n, dir, ref)
			}
			ok = false
			continue
		}
		rc, err := columns(db, rf)
		if err != nil {
			fail(fmt.Errorf("%s %s: %w", ref, t, err))
		}
		dc, err := columns(db, df)
		if err != nil {
			fail(fmt.Errorf("%s %s: %w", dir, t, err))
		}
		if !slices.Equal(slices.Sorted(slices.Values(rc)), slices.Sorted(slices.Values(dc))) {
			fmt.Printf("duckdiff: %s: columns differ:\n  ref %v\n  dir %v\n", t, rc, dc)
			ok = false
			continue
		}
		sel := make([]string, len(rc))
		for i, c := range rc {
			sel[i] = `"` + strings.ReplaceAll(c, `"`, `""`) + `"`
		}
		a := "SELECT " + strings.Join(sel, ", ") + " FROM " + source(rf)
		b := "SELECT " + strings.Join(sel, ", ") + " FROM " + source(df)
		n, err := count(db, a)
		if err != nil {
			fail(err)
		}
		nrows += n
		l, err := count(db, a+" EXCEPT ALL "+b)
		if err != nil {
			fail(err)
		}
		e, err := count(db, b+" EXCEPT ALL "+a)
		if err != nil {
			fail(err)
		}
		lost += l
		extra += e
		if l != 0 || e != 0 {
			ok = false
			fmt.Printf("duckdiff: %s: %d rows in %s, %d of them not in %s (lost); %d rows of %s not in %s (extra)\n",
				t, n, ref, l, dir, e, dir, ref)
			samples(db, a+" EXCEPT ALL "+b, "lost")
			samples(db, b+" EXCEPT ALL "+a, "extra")
		}
		if t == "jobs" {
			if err := db.QueryRow("SELECT count(*) FROM (" + b + ")").Scan(&njobs); err != nil {
				fail(err)
			}
			if err := db.QueryRow("SELECT count(*) FROM (SELECT job_id FROM (" + b + ") GROUP BY job_id HAVING count(*) <> 1)").Scan(&dups); err != nil {
				fail(err)
			}
			if dups != 0 {
				ok = false
				fmt.Printf("duckdiff: jobs: %d job ids of %s appear more than once\n", dups, dir)
				samples(db, "SELECT job_id, count(*) AS n FROM ("+b+") GROUP BY job_id HAVING count(*) <> 1", "duplicate")
			}
		}
	}
	plan := planSize(dir)
	if plan != njobs {
		ok = false
		fmt.Printf("duckdiff: jobs: %d rows in %s, its manifest plans %d jobs\n", njobs, dir, plan)
	}
	verdict := "ok"
	if !ok {
		verdict = "DIFFERENT"
	}
	fmt.Printf("duckdiff: tables=%d rows=%d lost=%d extra=%d jobs=%d dup_job_ids=%d plan=%d %s\n",
		ntables, nrows, lost, extra, njobs, dups, plan, verdict)
	return ok
}

func planSize(dir string) int64 {
	m, err := resultsdir.ReadManifest(dir)
	if err != nil {
		return -1
	}
	return int64(m.PlanSize)
}
