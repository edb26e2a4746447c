"""Run history: every eval appended to a local DuckDB database, queryable with SQL.

The report of one run answers "how good is it now"; the history answers "since when is it
worse". It lives at ``[eval] history`` (default ``.labeller/runs.duckdb``, git-ignored):
it holds timestamps and is per machine, unlike the deterministic report.

Tables (``SELECT * FROM runs`` in ``duckdb .labeller/runs.duckdb`` to explore):

- ``runs``: one row per run: when, how long, fingerprint fields, counts, findings.
- ``run_metrics``: one row per run, level (chunk/doc), metric and k: value, ci_low, ci_high, n.
- ``query_metrics``: one row per run, query, level and k: recall, success, all_hit, mrr,
  ndcg, and the query's first hit rank.
- ``findings``: one row per run, leak finding and quoted query.
- ``char_metrics``: one row per run and character metric (SPEC §8.1): metric (recall,
  precision, iou), k or budget, value, ci_low, ci_high, n. ``runs.chunking_name`` and
  ``runs.chunking_digest`` say which chunking a run scored: character metrics compare
  across chunkings, chunk-level ones only within one.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import re
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, overload

import duckdb

from labeller.errors import InvalidInput
from labeller.eval.metrics import LEVELS
from labeller.eval.report_model import EvalReport
from labeller.io import check_output_path

HISTORY_SCHEMA = "labeller.runs.v1"

DDL = (
    "CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)",
    """CREATE TABLE IF NOT EXISTS runs (
        run_id VARCHAR PRIMARY KEY, started_at TIMESTAMP, seconds DOUBLE, tool_version VARCHAR,
        fingerprint_digest VARCHAR, chunker VARCHAR, max_chars INTEGER, hit_rule VARCHAR, retriever VARCHAR,
        analyzer VARCHAR, corpus_digest VARCHAR, golden_set_digest VARCHAR, k VARCHAR, shipped_k INTEGER,
        split VARCHAR, include_holdout BOOLEAN, n_scored INTEGER, n_negatives INTEGER, n_findings INTEGER,
        regression BOOLEAN, fingerprint JSON, config JSON, findings JSON)""",
    """CREATE TABLE IF NOT EXISTS run_metrics (
        run_id VARCHAR, level VARCHAR, metric VARCHAR, k INTEGER, value DOUBLE, ci_low DOUBLE, ci_high DOUBLE,
        n INTEGER)""",
    """CREATE TABLE IF NOT EXISTS query_metrics (
        run_id VARCHAR, query_id VARCHAR, level VARCHAR, k INTEGER, recall DOUBLE, success DOUBLE,
        all_hit DOUBLE, mrr DOUBLE, ndcg DOUBLE, first_rank INTEGER)""",
    """CREATE TABLE IF NOT EXISTS findings (
        run_id VARCHAR, check_name VARCHAR, path VARCHAR, query_id VARCHAR, rank_in_top_k INTEGER)""",
    # Added with chunkings; ADD COLUMN keeps a history written before them readable.
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS chunking_name VARCHAR",
    "ALTER TABLE runs ADD COLUMN IF NOT EXISTS chunking_digest VARCHAR",
    """CREATE TABLE IF NOT EXISTS char_metrics (
        run_id VARCHAR, metric VARCHAR, k INTEGER, budget INTEGER, value DOUBLE, ci_low DOUBLE, ci_high DOUBLE,
        n INTEGER)""",
)
RUN_COLUMNS = ("run_id", "started_at", "seconds", "tool_version", "fingerprint_digest", "chunker", "max_chars",
               "hit_rule", "retriever", "analyzer", "corpus_digest", "golden_set_digest", "k", "shipped_k", "split",
               "include_holdout", "n_scored", "n_negatives", "n_findings", "regression", "fingerprint", "config",
               "findings", "chunking_name", "chunking_digest")


# The history file sits in the project folder, so whoever can write the project can plant
# one, and any table labeller reads may be a VIEW that calls table functions
# (``read_text('/any/file')``, or an URL through an auto-loaded httpfs). With these settings
# DuckDB touches no file but the database itself, loads and installs no extension, and no
# statement can switch that back on (issue 18, the same class as the planted cache).
# Pure computation needs no file: a view over ``range(10^12)`` or an endless recursive CTE
# would hang ``labeller runs`` (issue 23). No object but the tables below is accepted
# (``check_schema``), and as a second bound every statement is interrupted after
# ``STATEMENT_MS`` (labeller's own statements take milliseconds on years of runs) and may
# hold at most ``memory_limit``.
# The per-query table's metric columns: a stored schema (labeller.runs.v1), so it names the
# five rank metrics of SPEC §8 itself; a metric registered later is kept in the long
# ``metrics`` table of aggregates, which takes any name.
QUERY_COLUMNS = ("recall", "success", "all", "mrr", "ndcg")
QUERY_STORED = ("recall", "success", "all_hit", "mrr", "ndcg")  # their columns in query_metrics
STATEMENT_MS = 10_000
SAFE_CONFIG: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False, "autoload_known_extensions": False, "autoinstall_known_extensions": False,
    "max_execution_time": STATEMENT_MS, "memory_limit": "1GB", "lock_configuration": True}


@overload
def connect(path: Path, *, create: Literal[True]) -> duckdb.DuckDBPyConnection: ...


@overload
def connect(path: Path, *, create: bool) -> duckdb.DuckDBPyConnection | None: ...


def connect(path: Path, *, create: bool) -> duckdb.DuckDBPyConnection | None:
    """Open (and with ``create`` initialise) the database; None if it does not exist yet."""
    path = Path(path)
    for file in (path, path.with_name(path.name + ".wal")):  # DuckDB writes its log beside the database
        check_output_path(file)  # planted: no symlink (file or folder) written through, no FIFO that blocks
    if not create and not path.exists():
        return None
    try:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        con = duckdb.connect(str(path), read_only=not create, config=SAFE_CONFIG)
    except (duckdb.Error, OSError) as exc:
        raise InvalidInput(f"cannot open the run history: {exc}", path=str(path)) from None
    try:
        check_schema(con, path)
        if create:
            for stmt in DDL:
                con.execute(stmt)
            con.execute("INSERT INTO meta VALUES ('schema', ?) ON CONFLICT DO NOTHING", [HISTORY_SCHEMA])
        schema = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    except duckdb.PermissionException as exc:
        con.close()
        raise refused_access(path, exc) from None
    except InvalidInput:
        con.close()
        raise
    except duckdb.InterruptException as exc:
        con.close()
        raise too_slow(path, exc) from None
    except duckdb.Error:
        schema = None
    if schema is None or schema[0] != HISTORY_SCHEMA:
        con.close()
        raise InvalidInput(f"not a {HISTORY_SCHEMA} run history (move it away to start a new one)", path=str(path))
    return con


@functools.cache
def _labeller_schema() -> tuple[frozenset[tuple], frozenset[tuple]]:
    """The columns (table, column, type, default, generated) and constraints (table, type,
    expression) labeller's ``DDL`` makes, read from an in-memory database it is run on, so
    the check below cannot drift from what ``connect`` creates."""
    con = duckdb.connect(":memory:", config=SAFE_CONFIG)
    try:
        for stmt in DDL:
            con.execute(stmt)
        return _catalog(con)
    finally:
        con.close()


def _catalog(con: duckdb.DuckDBPyConnection) -> tuple[frozenset[tuple], frozenset[tuple]]:
    here = "database_name = current_database() AND NOT internal"
    columns = con.execute(
        "SELECT table_name, column_name, data_type, column_default, is_generated FROM duckdb_columns() "
        f"WHERE {here} AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE {here})").fetchall()
    constraints = con.execute("SELECT table_name, constraint_type, expression FROM duckdb_constraints() "
                              "WHERE database_name = current_database()").fetchall()
    return frozenset(columns), frozenset(constraints)


def check_schema(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Refuse a history holding anything labeller never creates, before any table is read.

    A view, a macro, a generated or defaulted column, a CHECK constraint or a table outside
    the schema can each compute without bound when ``runs`` or ``meta`` is read (or a row
    inserted); labeller writes plain tables only. Missing tables and columns are fine: an
    older history lacks the later ones and ``connect`` adds them. Reads only the catalog.
    """
    here = "database_name = current_database() AND NOT internal"
    found = []
    views = con.execute(f"SELECT schema_name || '.' || view_name FROM duckdb_views() WHERE {here} "
                        "ORDER BY 1 LIMIT 3").fetchall()
    if views:
        found.append(f"view(s) {', '.join(v for (v,) in views)}")
    macros = con.execute(f"SELECT DISTINCT schema_name || '.' || function_name FROM duckdb_functions() "
                         f"WHERE {here} ORDER BY 1 LIMIT 3").fetchall()
    if macros:
        found.append(f"macro(s) {', '.join(m for (m,) in macros)}")
    tables = con.execute(f"SELECT schema_name, table_name FROM duckdb_tables() WHERE {here} "
                         "ORDER BY 1, 2").fetchall()
    expected_columns, expected_constraints = _labeller_schema()
    known = {c[0] for c in expected_columns}
    strange = [f"{schema}.{table}" for schema, table in tables if schema != "main" or table not in known]
    if strange:
        found.append(f"table(s) {', '.join(strange[:3])}")
    columns, constraints = _catalog(con)
    odd = sorted(f"{c[0]}.{c[1]} {c[2]}" for c in columns - expected_columns if c[0] in known)
    if odd:
        found.append(f"column(s) {', '.join(odd[:3])}")
    if constraints - expected_constraints:
        found.append("constraint(s) " + ", ".join(sorted(f"{c[1]} on {c[0]}" for c in constraints
                                                          - expected_constraints)[:3]))
    if found:
        raise InvalidInput(f"refused: not a {HISTORY_SCHEMA} run history: it holds {'; '.join(found)}, which "
                           f"labeller never writes (a planted database?); move it away to start a new one",
                           path=str(path))


def too_slow(path: Path, exc: duckdb.Error) -> InvalidInput:
    """A statement over the history ran past ``max_execution_time``: labeller's take
    milliseconds, so the database holds something labeller did not write."""
    return InvalidInput(f"refused: reading the run history took over {STATEMENT_MS / 1000:g} s, which labeller's own "
                        f"history never does (a planted database?); move it away to start a new one ({exc})",
                        path=str(path))


def refused_access(path: Path, exc: duckdb.Error) -> InvalidInput:
    """A history that asks DuckDB for a file or a network address (a planted view): labeller
    did not write it, and it is not read."""
    return InvalidInput(f"refused: the run history reads outside itself, which labeller never writes "
                        f"(a planted view?); move it away to start a new one ({exc})", path=str(path))


def _split_metric(name: str) -> tuple[str, int]:
    metric, _, k = name.partition("@")
    return metric, int(k)


def _split_char_metric(name: str) -> tuple[str, int | None, int | None]:
    """``recall@5`` → (recall, 5, None); ``recall@budget=2000`` → (recall, None, 2000)."""
    metric, _, at = name.partition("@")
    if at.startswith("budget="):
        return metric, None, int(at.removeprefix("budget="))
    return metric, int(at), None


def _insert_columns(con, table: str, columns: list[str], types: list[str], rows: list[tuple]) -> None:
    """Bulk insert as one statement of unnested column lists (row-by-row inserts are slow in DuckDB)."""
    if not rows:
        return
    cols = [list(c) for c in zip(*rows)]
    select = ", ".join(f"unnest(?::{t}[])" for t in types)
    con.execute(f"INSERT INTO {table} ({', '.join(columns)}) SELECT {select}", cols)


def append_run(path: Path, report: EvalReport, seconds: float, started_at: datetime | None = None) -> str:
    """Append one run (its typed report) and return its run id."""
    started_at = started_at or datetime.now(timezone.utc)
    fp, cfg, agg = report.fingerprint, report.config, report.aggregate
    run_id = f"{started_at.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
    comparison = report.comparison
    con = connect(path, create=True)
    try:
        con.execute("BEGIN TRANSACTION")
        chunking = fp.chunking or {}
        con.execute(
            f"INSERT INTO runs ({', '.join(RUN_COLUMNS)}) VALUES ({', '.join('?' * len(RUN_COLUMNS))})",
            [run_id, started_at.replace(tzinfo=None), seconds, fp.tool_version, fp.digest, fp.chunker,
             fp.max_chars, fp.hit_rule, fp.retriever.get("name"), fp.retriever.get("analyzer"),
             fp.corpus_digest, fp.golden_set_digest, json.dumps(fp.k), cfg.shipped_k, cfg.split,
             cfg.include_holdout, cfg.records.scored, cfg.records.negatives,
             len(report.findings), comparison.regression if comparison is not None else None,
             json.dumps(fp.json_value(), sort_keys=True), json.dumps(cfg.json_value(), sort_keys=True),
             json.dumps([f.json_value() for f in report.findings], sort_keys=True, ensure_ascii=False),
             chunking.get("name"), chunking.get("digest")])
        char_rows = [(run_id, *_split_char_metric(name), s.value, s.ci_low, s.ci_high, s.n)
                     for name, s in sorted((agg.chars or {}).items())]
        _insert_columns(con, "char_metrics", ["run_id", "metric", "k", "budget", "value", "ci_low", "ci_high", "n"],
                        ["VARCHAR", "VARCHAR", "INTEGER", "INTEGER", "DOUBLE", "DOUBLE", "DOUBLE", "INTEGER"],
                        char_rows)
        metric_rows = [(run_id, level, *_split_metric(name), s.value, s.ci_low, s.ci_high, s.n)
                       for level, stats in agg.levels().items() for name, s in sorted(stats.items())]
        _insert_columns(con, "run_metrics", ["run_id", "level", "metric", "k", "value", "ci_low", "ci_high", "n"],
                        ["VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "DOUBLE", "DOUBLE", "DOUBLE", "INTEGER"],
                        metric_rows)
        query_rows = []
        for row in report.queries:
            for level, (values, ranks) in row.levels().items():
                found = [r for r in ranks if r is not None]
                for k in fp.k:
                    query_rows.append((run_id, row.query_id, level, k,
                                       *(values.get(f"{m}@{k}") for m in QUERY_COLUMNS), min(found) if found else None))
        _insert_columns(con, "query_metrics",
                        ["run_id", "query_id", "level", "k", "recall", "success", "all_hit", "mrr", "ndcg",
                         "first_rank"],
                        ["VARCHAR", "VARCHAR", "VARCHAR", "INTEGER", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE", "DOUBLE",
                         "INTEGER"], query_rows)
        finding_rows = [(run_id, f.check, f.path, q.query_id, q.rank_in_top_k)
                        for f in report.findings for q in f.quoted]
        _insert_columns(con, "findings", ["run_id", "check_name", "path", "query_id", "rank_in_top_k"],
                        ["VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "INTEGER"], finding_rows)
        con.execute("COMMIT")
    except duckdb.Error as exc:
        con.execute("ROLLBACK")
        if isinstance(exc, duckdb.PermissionException):
            raise refused_access(path, exc) from None
        if isinstance(exc, duckdb.InterruptException):
            raise too_slow(path, exc) from None
        raise InvalidInput(f"cannot append to the run history: {exc}", path=str(path)) from None
    finally:
        con.close()
    return run_id


def list_runs(path: Path, metric: str, level: str = "chunk", limit: int = 20) -> list[dict]:
    """The last ``limit`` runs, oldest first, each with ``metric`` (e.g. ``recall@5``) at ``level``."""
    con = connect(path, create=False)
    if con is None:
        return []
    name, k = _split_metric(metric)
    try:
        with _reading(path):
            cur = con.execute(
                """SELECT * FROM (
                     SELECT r.run_id, r.started_at, r.seconds, r.fingerprint_digest, r.chunker, r.max_chars, r.hit_rule,
                            r.retriever, r.analyzer, r.corpus_digest, r.golden_set_digest, r.split, r.n_scored,
                            r.n_negatives, r.n_findings, r.regression, m.value, m.ci_low, m.ci_high, m.n
                     FROM runs r LEFT JOIN run_metrics m
                       ON m.run_id = r.run_id AND m.level = ? AND m.metric = ? AND m.k = ?
                     ORDER BY r.started_at DESC, r.run_id DESC LIMIT ?)
                   ORDER BY started_at, run_id""", [level, name, k, limit])
            cols = [d[0] for d in cur.description]
            rows = [dict(zip(cols, row)) for row in cur.fetchall()]
    finally:
        con.close()
    for row in rows:  # labeller records finite numbers only; NaN or inf would reach the JSON and the trend
        bad = next((k for k, v in row.items() if isinstance(v, float) and not math.isfinite(v)), None)
        if bad is not None:
            raise InvalidInput(f"refused: run {row['run_id']!r} holds {bad} = {row[bad]}, a number labeller never "
                               "writes (a planted database?); move it away to start a new one", path=str(path))
    return rows


# A run as ``labeller runs`` lists it (``append_run``'s ids), or ``latest`` / ``latest~N``:
# anything else is refused before the database is read.
RUN_ID = re.compile(r"\d{8}T\d{6}-[0-9a-f]{8}")
LATEST = re.compile(r"latest(?:~(\d{1,6}))?")


@contextlib.contextmanager
def _reading(path: Path):
    """DuckDB's errors while reading the history, as the refusals ``list_runs`` gives."""
    try:
        yield
    except duckdb.PermissionException as exc:
        raise refused_access(path, exc) from None
    except duckdb.InterruptException as exc:
        raise too_slow(path, exc) from None
    except duckdb.Error as exc:
        raise InvalidInput(f"cannot read the run history: {exc}", path=str(path)) from None


def read_run(path: Path, ref: str) -> dict:
    """One recorded run in the shape of the eval report it came from, as far as the history
    keeps it: ``run_id``, ``started_at``, ``fingerprint``, ``config``, ``aggregate`` (chunk
    and doc level) and ``queries`` (per query its chunk and doc metrics, in the report's
    order: the table's insertion order, which the paired bootstrap's draws depend on).
    ``ref`` is a run id, ``latest`` or ``latest~N`` (N runs before the latest)."""
    latest = LATEST.fullmatch(ref)
    if latest is None and RUN_ID.fullmatch(ref) is None:
        raise InvalidInput(f"not a run id: {ref!r} (give one `labeller runs` lists, or latest, latest~1, ...)",
                           path=str(path))
    con = connect(path, create=False)
    if con is None:
        raise InvalidInput("no runs recorded yet (run `labeller eval`)", path=str(path))
    try:
        with _reading(path):
            cols = "run_id, started_at, fingerprint, config"
            if latest is not None:
                row = con.execute(f"SELECT {cols} FROM runs ORDER BY started_at DESC, run_id DESC LIMIT 1 OFFSET ?",
                                  [int(latest.group(1) or 0)]).fetchone()
            else:
                row = con.execute(f"SELECT {cols} FROM runs WHERE run_id = ?", [ref]).fetchone()
            if row is None:
                raise InvalidInput(f"no run {ref!r} in the run history (`labeller runs` lists them)", path=str(path))
            run_id = row[0]
            metrics = con.execute("SELECT level, metric, k, value, ci_low, ci_high, n FROM run_metrics "
                                  "WHERE run_id = ? ORDER BY rowid", [run_id]).fetchall()
            per_query = con.execute(f"SELECT query_id, level, k, {', '.join(QUERY_STORED)} FROM query_metrics "
                                    "WHERE run_id = ? ORDER BY rowid", [run_id]).fetchall()
    finally:
        con.close()
    try:
        fingerprint, config = json.loads(row[2]), json.loads(row[3])
    except (TypeError, ValueError):
        fingerprint = config = None
    if not (isinstance(fingerprint, dict) and isinstance(config, dict)):
        raise InvalidInput(f"refused: run {run_id!r} has no fingerprint or config object, which labeller always "
                           "writes (a planted database?)", path=str(path))
    numbers = [v for r in metrics for v in r[3:6]] + [v for r in per_query for v in r[3:]]
    if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
        raise InvalidInput(f"refused: run {run_id!r} holds a number that is not finite, which labeller never "
                           "writes (a planted database?); move it away to start a new one", path=str(path))
    aggregate: dict[str, dict] = {level: {} for level in LEVELS}
    for level, metric, k, value, ci_low, ci_high, n in metrics:
        if level in aggregate:
            aggregate[level][f"{metric}@{k}"] = {"value": value, "ci_low": ci_low, "ci_high": ci_high, "n": n}
    queries: dict[str, dict] = {}
    for query_id, level, k, *values in per_query:
        if level in aggregate:
            row_ = queries.setdefault(query_id, {"query_id": query_id, **{lv: {} for lv in LEVELS}})
            row_[level].update({f"{m}@{k}": v for m, v in zip(QUERY_COLUMNS, values)})
    started = row[1].isoformat() if row[1] is not None else None
    return {"run_id": run_id, "started_at": started, "fingerprint": fingerprint, "config": config,
            "aggregate": aggregate, "queries": list(queries.values())}
