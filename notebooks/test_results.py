"""Results read as users read them: pandas (pyarrow), polars and DuckDB's Python client
over fresh results directories, the docs' Python and SQL as written (README.md,
docs/reading-results.md, docs/tutorial.md), and the notebook.

    pip install -r notebooks/requirements.txt
    ROCESWEEP=/path/to/rocesweep pytest notebooks/test_results.py

Without ROCESWEEP the binary is built from this clone (go build). .ci/run runs this file.

Column types are checked against docs/schema.md's generated "Results schema" section (a Go
test keeps it equal to the code): a column added there is checked here with no change,
and TYPES below is the one place that says what each documented type reads as.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import nbformat
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.ipc
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()
SCHEMA = (REPO / "docs" / "schema.md").read_text()
READING = (REPO / "docs" / "reading-results.md").read_text()
TUTORIAL = (REPO / "docs" / "tutorial.md").read_text()
NOTEBOOK = REPO / "notebooks" / "alpha_xoff.ipynb"

# What each type of docs/schema.md reads as: Arrow (pyarrow, for Parquet and Arrow
# IPC files alike), pandas through pyarrow (a nullable column, in brackets, when that
# differs), polars and DuckDB.
TYPES = {
    #          arrow        pandas     [pandas nullable] polars      DuckDB
    "string": (pa.string(), "str", "str", pl.String, "VARCHAR"),
    "int64": (pa.int64(), "int64", "Int64", pl.Int64, "BIGINT"),
    "int32": (pa.int32(), "int32", "Int32", pl.Int32, "INTEGER"),
    "double": (pa.float64(), "float64", "float64", pl.Float64, "DOUBLE"),
    "boolean": (pa.bool_(), "bool", "boolean", pl.Boolean, "BOOLEAN"),
}
# The types a swept parameter's column may have (docs/schema.md: bytes int64, rates and times
# double, vectors string); it is never null.
SWEPT_TYPES = {"int64", "double", "string"}


# ---- the documented schema -------------------------------------------------------------

def documented_schema():
    """table -> {column: (type, nullable)} from docs/schema.md's generated section; the jobs
    table's swept columns are not named there (they depend on the plan)."""
    m = re.search(r"<!-- BEGIN schema -->\n(.*?)<!-- END schema -->", SCHEMA, re.S)
    assert m, "docs/schema.md has no generated schema section"
    text = m.group(1)
    tables = {"jobs": {}}
    jobs, _, records = text.partition("\n\n**")
    for name, typ in re.findall(r"^\| `(\w+)` \| (.+?) \|$", jobs, re.M):
        base = re.match(r"(\w+)", typ).group(1)
        tables["jobs"][name] = (base, "null unless" in typ)
    for name, cols in re.findall(r"^\*?\*?(\w+)\*\*: (.+)$", "**" + records, re.M):
        tables[name] = {c: (base, bool(null)) for c, null, base in re.findall(r"`(\w+)` (nullable )?(\w+)", cols)}
    for table, cols in tables.items():
        for c, (base, _) in cols.items():
            assert base in TYPES, f"docs/schema.md: {table}.{c} has type {base!r}, not one of {sorted(TYPES)}"
    return tables


SCHEMA = documented_schema()


def test_schema_section_parsed():
    assert {"job_id", "status", "replicate", "seed", "fct_p99_usec_lossless", "drops_lossless"} <= set(SCHEMA["jobs"])
    assert SCHEMA["jobs"]["drops_lossless"] == ("int64", True)
    assert SCHEMA["jobs"]["status"] == ("string", False)
    assert {"nd_stats", "messages", "classes", "topology", "buffer_stats"} <= set(SCHEMA)
    assert SCHEMA["classes"]["fct_p99_usec"] == ("double", True)
    assert SCHEMA["messages"]["post_ns"] == ("int64", False)


# ---- runs ------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def exe(tmp_path_factory):
    path = os.environ.get("ROCESWEEP")
    if path:
        return str(Path(path).resolve())
    out = tmp_path_factory.mktemp("bin") / "rocesweep"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/rocesweep"], cwd=REPO, check=True,
                   env={**os.environ, "CGO_ENABLED": "0"})
    return str(out)


def rocesweep(exe, *args, cwd=None):
    done = subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"rocesweep {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def status(exe, d, *flags):
    return json.loads(rocesweep(exe, "status", str(d), "--json", *flags))


@pytest.fixture(scope="session")
def root(exe, tmp_path_factory):
    """A folder with results/ as a user has it: the docs' snippets run in it."""
    top = tmp_path_factory.mktemp("user")
    ci = str(REPO / "configs" / "ci.yaml")
    rocesweep(exe, "run", "-j", "2", cwd=top)  # the quickstart, a selection: results/quickstart
    rocesweep(exe, "run", ci, "-o", "results/ci", "-j", "2", cwd=top)
    rocesweep(exe, "run", ci, "--format", "arrow", "-o", "results/ci-arrow", "-j", "2", cwd=top)
    # A selection whose replicate counts differ per point (5 and 21).
    rocesweep(exe, "run", ci, "--select", "--set", "objective.indifference=0.1us", "-o", "results/select", "-j", "2", cwd=top)
    # Jobs that are not ok: their summary metrics are null.
    rocesweep(exe, "run", ci, "--grid", "switch.HeadRoomPerPortLimit=256KB,40MB", "--skip-invalid",
              "-o", "results/invalid", "-j", "2", cwd=top)
    # One commit per job, so that an interruption can be made between two commits.
    rocesweep(exe, "run", ci, "--set", "replicates=2", "--commit-interval", "1ns", "-o", "results/commits", "-j", "2", cwd=top)
    return top


def rows_of(exe, d):
    return {t["table"]: t["rows"] for t in status(exe, d)["tables"]}


# ---- every table, every reader ---------------------------------------------------------

def check_columns(table, got, reader, swept):
    """got: {column: (type as the reader names it, nullable or None when the reader does not say)}."""
    want = SCHEMA[table]
    extra = [c for c in got if c not in want]
    if table == "jobs":
        assert len(extra) == swept, f"{reader} {table}: columns {extra} are not documented (swept: {swept})"
    else:
        assert not extra, f"{reader} {table}: columns {extra} are not in docs/schema.md"
    missing = [c for c in want if c not in got]
    assert not missing, f"{reader} {table}: documented columns {missing} are missing"
    col = {"arrow": 0, "pandas": 1, "polars": 3, "duckdb": 4}[reader]
    for c, (typ, nullable) in got.items():
        if c in want:
            base, doc_null = want[c]
            expect = TYPES[base][2] if reader == "pandas" and doc_null else TYPES[base][col]
            assert typ == expect, f"{reader} {table}.{c}: {typ}, documented {base}{' nullable' if doc_null else ''} reads as {expect}"
            assert nullable is None or nullable == doc_null, f"{reader} {table}.{c}: nullable {nullable}, documented {doc_null}"
        else:
            assert typ in {TYPES[t][col] for t in SWEPT_TYPES}, f"{reader} {table}.{c} (swept): {typ}"
            assert nullable in (None, False), f"{reader} {table}.{c} (swept) is nullable"


@pytest.mark.parametrize("name", ["ci", "quickstart", "select", "invalid"])
def test_every_table_reads_as_committed(exe, root, name):
    d = root / "results" / name
    st = status(exe, d)
    assert st["complete"], st
    rows = {t["table"]: t["rows"] for t in st["tables"]}
    folders = {p.name for p in d.iterdir() if p.is_dir()}
    assert set(rows) == folders, f"status lists {sorted(rows)}, the directory has {sorted(folders)}"
    total = st["total"]
    assert rows["jobs"] == total["ok"] + total["failed"] + total["timeout"] + total["invalid"]
    swept = len(json.loads((d / "manifest.json").read_text())["axes"])
    for table, n in rows.items():
        df = pd.read_parquet(d / table)
        assert len(df) == n, f"pandas {table}: {len(df)} rows, status {n}"
        check_columns(table, {c: (str(t), None) for c, t in df.dtypes.items()}, "pandas", swept)

        schema = ds.dataset(d / table, format="parquet").schema
        check_columns(table, {f.name: (f.type, f.nullable) for f in schema}, "arrow", swept)

        lf = pl.scan_parquet(f"{d}/{table}/*.parquet")
        assert lf.select(pl.len()).collect().item() == n, f"polars {table}"
        check_columns(table, {c: (t, None) for c, t in lf.collect_schema().items()}, "polars", swept)

        rel = duckdb.sql(f"from '{d}/{table}/*.parquet'")
        assert duckdb.sql(f"select count(*) from '{d}/{table}/*.parquet'").fetchall() == [(n,)], f"duckdb {table}"
        check_columns(table, {c: (str(t), None) for c, t in zip(rel.columns, rel.types)}, "duckdb", swept)
    jobs = pd.read_parquet(d / "jobs", columns=["job_id"])
    assert jobs.job_id.is_unique


def test_dtypes_do_not_depend_on_failed_jobs(root):
    """A summary count is Int64 whether or not a job failed: <NA> where the job is not ok."""
    ok = pd.read_parquet(root / "results" / "ci" / "jobs")
    mixed = pd.read_parquet(root / "results" / "invalid" / "jobs")
    assert set(mixed.status) == {"ok", "invalid"}
    shared = [c for c in ok.columns if c in mixed.columns]
    assert ok[shared].dtypes.equals(mixed[shared].dtypes)
    bad = mixed[mixed.status != "ok"]
    assert bad.drops_lossless.isna().all() and str(bad.drops_lossless.dtype) == "Int64"
    assert bad.fct_p99_usec.isna().all() and str(bad.fct_p99_usec.dtype) == "float64"
    assert mixed[mixed.status == "ok"].drops_lossless.notna().all()


def test_arrow_ipc(exe, root):
    d = root / "results" / "ci-arrow"
    rows = rows_of(exe, d)
    assert rows == rows_of(exe, root / "results" / "ci"), "the same sweep in Parquet and Arrow holds the same rows"
    for table, n in rows.items():
        files = sorted(glob.glob(f"{d}/{table}/*.arrow"))
        assert files, table
        tables = [pyarrow.ipc.open_file(f).read_all() for f in files]
        assert sum(t.num_rows for t in tables) == n, f"pyarrow.ipc {table}"
        check_columns(table, {f.name: (f.type, f.nullable) for f in tables[0].schema}, "arrow", 2)
        frames = [pl.read_ipc(f) for f in files]
        assert sum(f.height for f in frames) == n, f"polars {table}"
        check_columns(table, {c: (t, None) for c, t in frames[0].schema.items()}, "polars", 2)
        assert ds.dataset(d / table, format="arrow").count_rows() == n, f"pyarrow.dataset {table}"
        df = pd.concat([t.to_pandas() for t in tables])
        check_columns(table, {c: (str(t), None) for c, t in df.dtypes.items()}, "pandas", 2)


def test_files_in_flight_are_skipped(exe, root, tmp_path):
    """A sink temp file (.part-...parquet.tmp) is hidden from pyarrow, polars' glob and DuckDB's."""
    d = tmp_path / "ci"
    shutil.copytree(root / "results" / "ci", d)
    n = rows_of(exe, d)["jobs"]
    part = sorted((d / "jobs").glob("part-*.parquet"))[0]
    shutil.copy(part, d / "jobs" / ".part-1of1-000099.parquet.tmp")
    assert len(pd.read_parquet(d / "jobs")) == n
    assert ds.dataset(d / "jobs", format="parquet").count_rows() == n
    assert pl.scan_parquet(f"{d}/jobs/*.parquet").select(pl.len()).collect().item() == n
    assert duckdb.sql(f"select count(*) from '{d}/jobs/*.parquet'").fetchall() == [(n,)]


# ---- an interrupted run ----------------------------------------------------------------

def committed_files_query():
    """reliability.md "Reliability": the DuckDB query that reads only the committed files."""
    m = re.search(r"<!-- duckdb: committed-files -->\s*```sql\n(.*?)```", README, re.S)
    assert m, "README.md lost its committed-files query"
    return m.group(1)


def cut_last_commit(d):
    """Remove the last commit's lines from the journal, leaving its parts in the table
    folders: what a SIGKILL between the parts' rename and the journal append leaves."""
    journal = d / "journal.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    closing = [i for i, line in enumerate(lines) if '"files"' in line]
    assert len(closing) >= 2, "the run made fewer than two commits"
    last = json.loads(lines[closing[-1]])
    journal.write_text("".join(lines[: closing[-2] + 1]))
    return last


def test_interrupted_run(exe, root, tmp_path):
    d = tmp_path / "interrupted"
    shutil.copytree(root / "results" / "commits", d)
    whole = rows_of(exe, d)
    cut = cut_last_commit(d)
    st = status(exe, d)
    assert not st["complete"]
    rows = {t["table"]: t["rows"] for t in st["tables"]}
    assert rows["jobs"] == whole["jobs"] - cut["jobs"]
    strays = status(exe, d, "--verify")["verify"]["strays"]
    assert sorted(strays) == sorted(cut["files"])

    # The plain read is not safe on a partial run: it also reads the parts of the commit
    # that never reached the journal (documented in docs/reliability.md).
    assert len(pd.read_parquet(d / "jobs")) == whole["jobs"]

    # The README's query (a copy of docs/reliability.md's), as written (DIR replaced), reads exactly the committed jobs ...
    query = committed_files_query().replace("DIR", str(d))
    got = duckdb.sql(query).df()  # the last statement's result
    assert len(got) == rows["jobs"]
    journal_ids = {json.loads(line)["job_id"] for line in (d / "journal.jsonl").read_text().splitlines() if '"job_id"' in line}
    assert set(got.job_id) == journal_ids
    # ... and, with another table's name, that table's committed rows.
    for table, n in rows.items():
        q = query.replace("'jobs/%'", f"'{table}/%'").replace("SELECT job_id, status FROM", "SELECT count(*) FROM")
        assert duckdb.sql(q).fetchall() == [(n,)], table

    # The notebook stops rather than average rows no commit holds.
    with pytest.raises(CellExecutionError, match="the journal commits"):
        run_notebook(exe, d)

    # --resume removes the leftovers and runs the jobs again: the plain read is exact again.
    rocesweep(exe, "run", str(REPO / "configs" / "ci.yaml"), "--set", "replicates=2", "-o", str(d), "--resume", "-j", "2")
    after = status(exe, d)
    assert after["complete"]
    assert {t["table"]: t["rows"] for t in after["tables"]} == whole
    assert len(pd.read_parquet(d / "jobs")) == whole["jobs"]


# ---- the docs' snippets ---------------------------------------------------------------

def test_readme_python_snippets(root, monkeypatch):
    """Every Python block of docs/reading-results.md and docs/tutorial.md, as written."""
    monkeypatch.chdir(root)
    n = 0
    for name, text in (("docs/reading-results.md", READING), ("docs/tutorial.md", TUTORIAL)):
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
        assert blocks, f"{name}: no Python snippet"
        for code in blocks:
            exec(compile(code, name, "exec"), {})
            n += 1
    assert n >= 3, "want the pandas/polars/DuckDB and Arrow snippets of reading-results.md and the tutorial's"


def test_readme_sql_snippets(root, monkeypatch):
    """Every query of results/ in the SQL blocks of the README, docs/reading-results.md and
    docs/tutorial.md, as written."""
    blocks = [b for text in (README, READING, TUTORIAL) for b in re.findall(r"```sql\n(.*?)```", text, re.S)]
    queries = [q for b in blocks for q in b.split(";") if "results/" in q]
    assert len(queries) >= 7
    monkeypatch.chdir(root)
    for q in queries:
        assert duckdb.sql(q).fetchall(), f"no rows:\n{q}"


# ---- the notebook ----------------------------------------------------------------------

def run_notebook(exe, results, extra_cell=None):
    """Executes the notebook on results, with exe as the rocesweep on the PATH."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    if extra_cell:
        nb.cells.append(nbformat.v4.new_code_cell(extra_cell))
    bindir = Path(results).parent / ".bin"
    bindir.mkdir(exist_ok=True)
    if not (bindir / "rocesweep").exists():
        (bindir / "rocesweep").symlink_to(exe)
    env_before = dict(os.environ)
    os.environ.update(ROCESWEEP_RESULTS=str(results), PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
                      PYDEVD_DISABLE_FILE_VALIDATION="1")
    os.environ.pop("ROCESWEEP_READER", None)
    try:
        NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    finally:
        os.environ.clear()
        os.environ.update(env_before)
    return nb


def test_notebook_averages_each_point_over_its_own_replicates(exe, root):
    d = root / "results" / "select"
    nb = run_notebook(exe, d, 'print("GRID", grid[["alpha", "xoff", "n", "fct", "fct_shared"]].to_json(orient="records"))')
    outs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    figures = sum("image/png" in o.get("data", {}) for o in outs)
    assert figures >= 4, f"{figures} figures"
    text = "".join(o.get("text", "") for o in outs if o.output_type == "stream")
    assert "through pandas + pyarrow (Parquet); row counts checked" in text
    grid = pd.DataFrame(json.loads(text.split("GRID ", 1)[1]))
    want = duckdb.sql(f"""
        SELECT switch_LossyAlpha AS alpha, switch_StaticPoolXoffThreshold AS xoff, count(*) AS n,
               avg(fct_p99_usec_lossless) AS fct
        FROM '{d}/jobs/*.parquet' WHERE status = 'ok' GROUP BY ALL ORDER BY ALL""").df()
    assert want.n.nunique() > 1, "the selection should give points different replicate counts"
    got = grid.sort_values(["alpha", "xoff"]).reset_index(drop=True)
    assert got.n.tolist() == want.n.tolist()
    assert got.fct.tolist() == pytest.approx(want.fct.tolist(), rel=1e-12)
    shared = duckdb.sql(f"""
        SELECT avg(fct_p99_usec_lossless) AS fct FROM '{d}/jobs/*.parquet'
        WHERE status = 'ok' AND replicate < {want.n.min()} GROUP BY switch_LossyAlpha, switch_StaticPoolXoffThreshold
        ORDER BY ALL""").df()
    assert sorted(got.fct_shared) == pytest.approx(sorted(shared.fct), rel=1e-12)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, *sys.argv[1:]]))
