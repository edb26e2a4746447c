"""A planted run history cannot stall ``labeller runs`` or ``labeller eval`` (issue 23).

``.labeller/runs.duckdb`` sits in the project, so a fork's pull request can commit one whose
``runs`` or ``meta`` is a view of pure computation (no file read, so the external-access
lock of issue 18 does not stop it). The history is checked against the tables labeller
creates before any of them is read, and every statement is bounded in time and memory.
Commands run in a subprocess with a generous ``timeout``: a stall fails the test instead
of hanging it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from conftest import q, write_project

from labeller.cli import main
from labeller.eval import history

REPO = Path(__file__).resolve().parents[1]
STALL_BOUND_SECONDS = 120  # far above the history's own statement bound; only a stall reaches it

ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT max(n) FROM r"
HUGE_RANGE = "SELECT count(*) FROM range(1000000000000)"


def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj", {"a.md": "# A\n\nThe kestrel nests on the ridge.\n"},
                         [q("q1", {"doc": "a.md", "quote": "kestrel nests"}, query="where does the kestrel nest")])


def plant(root: Path, statements: list[str]) -> Path:
    """A real history (labeller's own tables), then the planted statements over it."""
    path = root / ".labeller" / "runs.duckdb"
    history.connect(path, create=True).close()
    con = duckdb.connect(str(path))
    for stmt in statements:
        con.execute(stmt)
    con.close()
    return path


def cli(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "labeller.cli", *args, "--root", str(root)], capture_output=True,
                          text=True, timeout=STALL_BOUND_SECONDS, env={"PYTHONPATH": str(REPO), "COLUMNS": "400",
                                                                       "PATH": "/usr/bin:/bin"})


STALLS = {
    "runs a view over range(10^12)": [
        "ALTER TABLE runs RENAME TO runs_real",
        f"CREATE VIEW runs AS SELECT * FROM runs_real UNION ALL BY NAME SELECT ({HUGE_RANGE})::VARCHAR AS run_id"],
    "meta an endless recursive view": [
        "DROP TABLE meta", f"CREATE VIEW meta AS SELECT 'schema' AS key, ({ENDLESS})::VARCHAR AS value"],
}
# Shapes labeller never writes that can compute on a read or an insert (no stall here: the
# refusal is by shape, before any table is read).
SHAPES = {
    "a computed column": [
        "DROP TABLE runs", "CREATE TABLE runs (run_id VARCHAR, chunker VARCHAR AS (repeat(run_id, 1000000)))"],
    "a column default": ["DROP TABLE findings", "CREATE TABLE findings (run_id VARCHAR DEFAULT repeat('x', 9))"],
    "a CHECK constraint": [
        "DROP TABLE findings", "CREATE TABLE findings (run_id VARCHAR CHECK (length(repeat(run_id, 99)) > 0))"],
    "a macro": [f"CREATE MACRO slow() AS ({HUGE_RANGE})"],
    "a view in another schema": ["CREATE SCHEMA other", f"CREATE VIEW other.runs AS {HUGE_RANGE}"],
    "a table labeller does not make": ["CREATE TABLE extra (a INTEGER)"],
}


def assert_refused(message: str, path: Path) -> None:
    assert str(path) in message and "never writes" in message


@pytest.mark.parametrize("planted", STALLS.values(), ids=STALLS.keys())
def test_runs_refuses_a_stalling_history_naming_it(tmp_path, planted):
    root = project(tmp_path)
    path = plant(root, planted)
    before = path.read_bytes()
    done = cli(root, "runs", "--format", "json")
    assert done.returncode == 2, done.stderr
    (error,) = json.loads(done.stdout)["errors"]
    assert_refused(error["message"], path)
    assert path.read_bytes() == before  # read-only: nothing written, not even a migration


@pytest.mark.parametrize("planted", SHAPES.values(), ids=SHAPES.keys())
def test_runs_and_eval_refuse_a_history_holding_what_labeller_never_writes(tmp_path, planted, capsys):
    root = project(tmp_path)
    path = plant(root, planted)
    before = path.read_bytes()
    assert main(["runs", "--root", str(root), "--format", "json"]) == 2
    (error,) = json.loads(capsys.readouterr().out)["errors"]
    assert_refused(error["message"], path)
    assert main(["eval", "--root", str(root), "--format", "json"]) == 0  # the history is a side effect of eval
    out = capsys.readouterr()
    (warning,) = json.loads(out.out)["warnings"]  # --format json: in the document, stderr empty
    assert out.err == "" and "run not recorded in the history" in warning and "never writes" in warning
    assert path.read_bytes() == before


def test_eval_scores_and_records_nothing_in_a_planted_history(tmp_path):
    root = project(tmp_path)
    path = plant(root, STALLS["meta an endless recursive view"])
    before = path.read_bytes()
    done = cli(root, "eval", "--format", "json")
    assert done.returncode == 0, done.stderr  # the history is a side effect of eval
    assert json.loads(done.stdout)["config"]["records"]["scored"] == 1
    (warning,) = json.loads(done.stdout)["warnings"]
    assert done.stderr == "" and "run not recorded in the history" in warning and "never writes" in warning
    assert path.read_bytes() == before


def test_a_plant_the_schema_check_missed_is_still_interrupted(tmp_path):
    """The statement bound on its own: with the catalog check switched off, the view is read
    and DuckDB interrupts it after the history's own bound."""
    root = project(tmp_path)
    path = plant(root, STALLS["runs a view over range(10^12)"])
    code = ("import sys; from labeller.eval import history; from labeller.errors import InvalidInput\n"
            "history.check_schema = lambda con, path: None\n"
            "history.STATEMENT_MS = history.SAFE_CONFIG['max_execution_time'] = 1000  # the bound, not its size\n"
            f"try: history.list_runs({str(path)!r}, 'recall@5')\n"
            "except InvalidInput as exc: print(exc); sys.exit(2)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=STALL_BOUND_SECONDS,
                          env={"PYTHONPATH": str(REPO)})
    assert done.returncode == 2, done.stderr
    assert str(path) in done.stdout and "took over 1 s" in done.stdout


def test_a_history_labeller_wrote_passes_the_check_and_is_read_only_when_listed(tmp_path, capsys):
    root = project(tmp_path)
    assert main(["eval", "--root", str(root)]) == 0
    path = root / ".labeller" / "runs.duckdb"
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["runs", "--root", str(root), "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["runs"]) == 1
    assert path.read_bytes() == before
    con = history.connect(path, create=False)
    assert con is not None
    try:
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("CREATE TABLE scratch (a INTEGER)")
    finally:
        con.close()


def test_a_history_written_before_chunkings_still_passes(tmp_path):
    """Missing tables and columns are not a plant: an older history lacks the later ones."""
    path = tmp_path / "runs.duckdb"
    history.connect(path, create=True).close()
    con = duckdb.connect(str(path))
    con.execute("ALTER TABLE runs DROP COLUMN chunking_name")
    con.execute("ALTER TABLE runs DROP COLUMN chunking_digest")
    con.execute("DROP TABLE char_metrics")
    con.close()
    assert history.list_runs(path, "recall@5") == []
    history.connect(path, create=True).close()  # and the next eval adds them back


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_a_non_finite_number_in_the_history_is_refused_not_a_crash(tmp_path, capsys, fmt):
    """A labeller-shaped history with NaN or inf where labeller writes finite numbers: the JSON
    could not hold them and the trend line could not scale them (both were exit 3)."""
    root = project(tmp_path)
    assert main(["eval", "--root", str(root)]) == 0
    path = root / ".labeller" / "runs.duckdb"
    con = duckdb.connect(str(path))
    con.execute("UPDATE run_metrics SET value = 'NaN'::DOUBLE, ci_low = 'inf'::DOUBLE")
    con.close()
    capsys.readouterr()
    assert main(["runs", "--root", str(root), "--format", fmt]) == 2
    out = capsys.readouterr()
    message = " ".join((out.out + out.err).split())
    assert str(path) in message and "value = nan" in message and "never writes" in message
