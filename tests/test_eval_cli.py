"""``labeller eval`` and ``labeller runs`` end to end: report schema, holdout, exit codes, the
regression gate, leak findings, run history."""

from __future__ import annotations

import json

import duckdb
import pytest
from conftest import write_project

from labeller.cli import main
from labeller.config import load_config
from labeller.core.project import Project
from labeller.eval.report import SCHEMA

N = 20


def facts_project(tmp_path, extra_docs=None, extra_questions=(), toml=None):
    """N one-fact documents, N questions (dev/test alternating), one holdout, one negative."""
    docs = {f"doc{i:02d}.md": f"# Topic {i:02d}\n\nFact {i:02d}: the kestrel alpha{i:02d} nests on ridge "
                              f"number {i:02d}.\n" for i in range(N)}
    docs.update(extra_docs or {})
    questions = [{"id": f"q{i:02d}", "query": f"where does alpha{i:02d} nest", "expected_answer": f"ridge {i:02d}",
                  "locators": [{"doc": f"doc{i:02d}.md", "quote": f"alpha{i:02d}"}],
                  "split": "dev" if i % 2 else "test", "tags": ["even" if i % 2 == 0 else "odd"]}
                 for i in range(N)]
    questions.append({"id": "h01", "query": "held out alpha03 ridge", "expected_answer": "3",
                      "locators": [{"doc": "doc03.md", "quote": "Fact 03"}], "split": "holdout"})
    questions.append({"id": "neg1", "query": "how tall are giraffes", "expected_answer": "", "locators": [],
                      "unanswerable": True})
    questions.extend(extra_questions)
    return write_project(tmp_path / "proj", docs, questions, toml)


def eval_json(root, capsys, *args, expect: int = 0) -> tuple[dict | None, str]:
    """``labeller eval --format json ARGS``: the report and stderr, once the exit code is
    ``expect`` (every call checks one, so no code goes unasserted)."""
    rc = main(["eval", "--root", str(root), "--format", "json", "--no-history", *args])
    out = capsys.readouterr()
    assert rc == expect, (args, rc, out.err)
    try:
        report = json.loads(out.out)
    except ValueError:
        report = None
    return report, out.err


def gold_chunk_ids(root) -> dict[str, str]:
    project = Project(load_config(root))
    return {c.doc_id: c.chunk_id for c in project.all_chunks}


def write_run(path, root, drop=(), add_miss=()):
    """Gold at rank 1 for every query except ``drop`` (gold not retrieved) and ``add_miss``."""
    ids = gold_chunk_ids(root)
    lines = []
    for i in range(N):
        qid = f"q{i:02d}"
        others = [ids[f"doc{(i + j) % N:02d}.md"] for j in range(1, 5)]
        ranked = ([] if qid in drop or qid in add_miss else [ids[f"doc{i:02d}.md"]]) + others
        lines += [f"{qid} Q0 {cid} {r} {10 - r} ext\n" for r, cid in enumerate(ranked, 1)]
    path.write_text("".join(lines))
    return path


def test_json_report_has_the_v1_schema_and_is_deterministic(tmp_path, capsys):
    root = facts_project(tmp_path)
    report, err = eval_json(root, capsys, "--out", str(tmp_path / "r.json"))
    assert err == ""
    assert {"schema", "fingerprint", "config", "aggregate", "queries", "negatives", "findings"} <= set(report)
    assert report["schema"] == SCHEMA and report["findings"] == [] and "comparison" not in report
    fp = report["fingerprint"]
    assert {"chunker", "hit_rule", "retriever", "k", "golden_set_digest", "corpus_digest", "tool_version"} <= set(fp)
    assert fp["retriever"]["analyzer"] == "labeller-auto-v3" and fp["k"] == [1, 5, 10, 20, 50]
    for level in ("chunk", "doc"):
        for k in fp["k"]:
            for m in ("recall", "success", "all", "mrr", "ndcg"):
                assert set(report["aggregate"][level][f"{m}@{k}"]) == {"value", "ci_low", "ci_high", "n"}
    assert report["aggregate"]["chunk"]["recall@5"]["n"] == N
    assert report["aggregate"]["chunk"]["all@5"] == {"value": None, "ci_low": None, "ci_high": None, "n": 0}
    row = report["queries"][0]
    assert row["query_id"] == "q00" and row["hit_ranks"] == [1] and row["doc_ranks"] == [1]
    assert row["chunk"]["recall@5"] == 1.0 and row["retrieved"][0]["doc_id"] == "doc00.md"
    assert [n["query_id"] for n in report["negatives"]] == ["neg1"]
    assert report["negatives"][0]["top_score"] is None or report["negatives"][0]["top_score"] >= 0
    assert set(report["breakdowns"]) == {"split", "tag", "hop"}
    assert set(report["breakdowns"]["split"]) == {"dev", "test"}
    assert {d["check"] for d in report["diagnostics"]} >= {"ranking_ratio", "depth_gain", "recall_floor"}
    assert report["warnings"] == [] and json.loads((tmp_path / "r.json").read_text()) == report
    again, _ = eval_json(root, capsys)
    assert again == report


def test_holdout_is_scored_only_with_the_flag(tmp_path, capsys):
    root = facts_project(tmp_path)
    report, _ = eval_json(root, capsys)
    assert "h01" not in {q["query_id"] for q in report["queries"]}
    report, _ = eval_json(root, capsys, "--include-holdout")
    assert "h01" in {q["query_id"] for q in report["queries"]}
    refused, _ = eval_json(root, capsys, "--split", "holdout", expect=2)
    assert refused["ok"] is False and "--include-holdout" in refused["errors"][0]["message"]
    report, _ = eval_json(root, capsys, "--split", "holdout", "--include-holdout")
    assert [q["query_id"] for q in report["queries"]] == ["h01"] and report["negatives"] == []
    report, _ = eval_json(root, capsys, "--split", "dev")
    assert {q["split"] for q in report["queries"]} == {"dev"}


def test_no_scored_queries_is_no_data_not_zero(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    root = write_project(tmp_path / "p", {"a.md": "# A\n\ntext\n"},
                         [{"id": "n1", "query": "anything", "expected_answer": "", "locators": [],
                           "unanswerable": True}])
    report, _ = eval_json(root, capsys)
    assert report["aggregate"]["chunk"]["recall@5"]["value"] is None
    rc = main(["eval", "--root", str(root), "--no-history"])
    assert rc == 0 and "no data" in capsys.readouterr().out


@pytest.mark.parametrize("args", [["--k", "0"], ["--k", "a,b"], ["--hit-rule", "best"], ["--analyzer", "icu"],
                                  ["--fail-on-regression"], ["--baseline", "missing.json"]])
def test_invalid_input_exits_2(tmp_path, capsys, args):
    root = facts_project(tmp_path)
    assert main(["eval", "--root", str(root), "--no-history", *args]) == 2


def test_a_golden_set_that_does_not_build_is_invalid_input(tmp_path, capsys):
    root = facts_project(tmp_path, extra_questions=[{"id": "bad", "query": "q", "expected_answer": "",
                                                     "locators": [{"quote": "no such text"}]}])
    report, err = eval_json(root, capsys, expect=2)
    assert report["ok"] is False
    assert [(e["id"], e["kind"]) for e in report["errors"]] == [("bad", "not_found")]
    assert main(["eval", "--root", str(root), "--no-history"]) == 2
    assert "the golden set does not build (1 label error(s))" in capsys.readouterr().err


@pytest.mark.parametrize("content", ['{"schema": "something-else"}', "not json", f'{{"schema": "{SCHEMA}"}}',
                                     f'{{"schema": "{SCHEMA}", "fingerprint": {{}}, "queries": [], "aggregate": []}}'])
def test_not_a_report_as_baseline_is_refused(tmp_path, capsys, content):
    root = facts_project(tmp_path)
    (tmp_path / "b.json").write_text(content)
    eval_json(root, capsys, "--baseline", str(tmp_path / "b.json"), expect=2)


def test_regression_gate_red_on_a_planted_regression_green_on_noise(tmp_path, capsys):
    root = facts_project(tmp_path)
    base = write_run(tmp_path / "base.run", root, add_miss={"q01", "q02", "q03"})
    eval_json(root, capsys, "--run", str(base), "--out", str(tmp_path / "base.json"))
    baseline = ["--baseline", str(tmp_path / "base.json"), "--fail-on-regression"]

    worse = write_run(tmp_path / "worse.run", root, drop={f"q{i:02d}" for i in range(4, 16)})
    report, _ = eval_json(root, capsys, "--run", str(worse), *baseline, expect=1)
    c = report["comparison"]
    assert c["regression"] is True and c["comparable"] is True
    assert c["deltas"]["chunk"]["recall@5"]["ci_high"] < 0
    assert {"retriever.file", "retriever.sha256"} <= {d["field"] for d in c["fingerprint_differences"]}

    # noise: two queries lose their answer, one gains it back; the mean drops but the interval spans zero
    noise = write_run(tmp_path / "noise.run", root, add_miss={"q02", "q03", "q10", "q11"})
    report, _ = eval_json(root, capsys, "--run", str(noise), *baseline)
    c = report["comparison"]
    assert c["deltas"]["chunk"]["recall@5"]["value"] < 0
    assert c["deltas"]["chunk"]["recall@5"]["ci_low"] < 0 < c["deltas"]["chunk"]["recall@5"]["ci_high"]
    assert c["regression"] is False

    report, _ = eval_json(root, capsys, "--run", str(worse), "--baseline", str(tmp_path / "base.json"))
    assert report["comparison"]["regression"] is True  # without the flag reported, never an exit code


def test_a_baseline_under_another_hit_rule_is_reported_not_compared(tmp_path, capsys):
    root = facts_project(tmp_path)
    eval_json(root, capsys, "--hit-rule", "span_containment", "--out", str(tmp_path / "b.json"))
    report, err = eval_json(root, capsys, "--baseline", str(tmp_path / "b.json"))
    c = report["comparison"]
    assert c["comparable"] is False and c["deltas"] is None
    assert {"field": "hit_rule", "baseline": "span_containment", "current": "any_overlap"} in c["fingerprint_differences"]
    _, err = eval_json(root, capsys, "--baseline", str(tmp_path / "b.json"), "--fail-on-regression", expect=2)
    assert "cannot gate" in err


def test_misses_print_what_was_retrieved_instead(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    root = facts_project(tmp_path)
    run = write_run(tmp_path / "r.run", root, drop={"q05"})
    rc = main(["eval", "--root", str(root), "--run", str(run), "--no-history"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "misses at k = 5: what was retrieved instead" in out and "q05" in out and "not retrieved" in out
    assert "doc06.md > Topic 06" in out


def test_queries_missing_from_a_run_file_are_warned_about_and_scored_as_misses(tmp_path, capsys):
    root = facts_project(tmp_path)
    run = tmp_path / "partial.run"
    run.write_text(write_run(tmp_path / "full.run", root).read_text().split("q01 ")[0])
    report, err = eval_json(root, capsys, "--run", str(run))
    (warning,) = report["warnings"]  # --format json: in the document, stderr empty
    assert "have no rows in the run file" in warning and "q01" in warning and err == ""
    assert main(["eval", "--root", str(root), "--run", str(run), "--no-history"]) == 0
    assert "have no rows in the run file" in " ".join(capsys.readouterr().err.split())
    assert report["queries"][1]["hit_ranks"] == [None]


def test_written_run_scores_the_same_when_read_back(tmp_path, capsys):
    root = facts_project(tmp_path)
    bm25, _ = eval_json(root, capsys, "--write-run", str(tmp_path / "bm25.run"))
    replay, _ = eval_json(root, capsys, "--run", str(tmp_path / "bm25.run"))
    assert replay["aggregate"] == bm25["aggregate"]
    assert replay["fingerprint"]["retriever"]["name"] == "run"


def test_leak_findings_warn_never_change_the_exit_code_and_are_recorded(tmp_path, capsys):
    notes = "# Eval notes\n\nWe ask: where does alpha03 nest\n\nAnd also: where does alpha04 nest\n"
    root = facts_project(tmp_path, extra_docs={"notes.md": notes})
    rc = main(["eval", "--root", str(root), "--format", "json"])
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert rc == 0
    assert [f["path"] for f in report["findings"]] == ["notes.md"]
    assert {q["query_id"] for q in report["findings"][0]["quoted"]} == {"q03", "q04"}
    rows = {r["query_id"]: r["retrieved"] for r in report["queries"]}
    for q in report["findings"][0]["quoted"]:  # the best rank of a notes.md chunk in the query's ranking
        assert q["rank_in_top_k"] == min(r["rank"] for r in rows[q["query_id"]] if r["doc_id"] == "notes.md")
    assert out.err == "" and [w.split(":")[0] for w in report["warnings"]] == ["golden-queries-quoted"]
    assert "findings" not in report["fingerprint"]
    con = duckdb.connect(str(root / ".labeller" / "runs.duckdb"))
    assert con.execute("SELECT path, query_id FROM findings ORDER BY query_id").fetchall() == [
        ("notes.md", "q03"), ("notes.md", "q04")]
    con.close()


def test_runs_are_appended_to_the_history_and_listed(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    root = facts_project(tmp_path)
    assert main(["runs", "--root", str(root)]) == 0
    assert "no runs recorded yet" in capsys.readouterr().out
    assert main(["eval", "--root", str(root)]) == 0
    assert main(["eval", "--root", str(root), "--analyzer", "plain"]) == 0
    capsys.readouterr()
    assert main(["runs", "--root", str(root), "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["analyzer"] for r in listed["runs"]] == ["labeller-auto-v3", "labeller-plain-v3"]
    assert listed["metric"] == "recall@5" and listed["runs"][0]["n"] == N
    con = duckdb.connect(str(root / ".labeller" / "runs.duckdb"))
    assert con.execute("SELECT count(*) FROM query_metrics").fetchone()[0] == 2 * N * 5 * 2
    assert con.execute("SELECT count(*) FROM run_metrics WHERE metric = 'recall'").fetchone()[0] == 2 * 5 * 2
    con.close()
    assert main(["runs", "--root", str(root), "--metric", "mrr@10"]) == 0
    text = capsys.readouterr().out
    assert "mrr@10" in text and "trend of mrr@10 over the 2 run(s)" in text
    assert main(["runs", "--root", str(root), "--metric", "bogus"]) == 2


def test_a_planted_history_view_that_reads_a_file_is_refused_and_reads_nothing(tmp_path, capsys):
    """Issue 18: ``.labeller/runs.duckdb`` is project data, so it can be planted; its ``meta``
    and ``runs`` may be views calling ``read_text``. ``labeller runs`` refuses it (exit 2,
    naming the file) and ``labeller eval`` records nothing and warns (exit 0: the history is a
    side effect), the file unread both times; the secret would be in ``runs``'s JSON (as the chunker) if DuckDB read it."""
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("TOP-SECRET-7f3a\n")
    root = facts_project(tmp_path)
    assert main(["eval", "--root", str(root)]) == 0
    history = root / ".labeller" / "runs.duckdb"
    con = duckdb.connect(str(history))
    reader = f"(SELECT content FROM read_text('{secret}'))"
    con.execute("ALTER TABLE meta RENAME TO meta_real")
    con.execute(f"CREATE VIEW meta AS SELECT key, value || left({reader}, 0) AS value FROM meta_real")
    con.execute("ALTER TABLE runs RENAME TO runs_real")
    con.execute(f"CREATE VIEW runs AS SELECT * REPLACE ({reader} AS chunker) FROM runs_real")
    assert "TOP-SECRET" in con.execute("SELECT chunker FROM runs").fetchone()[0]  # the plant works unguarded
    con.close()
    planted = history.read_bytes()
    capsys.readouterr()
    assert main(["runs", "--root", str(root), "--format", "json"]) == 2
    out = capsys.readouterr()
    assert "TOP-SECRET" not in out.out + out.err
    (error,) = json.loads(out.out)["errors"]  # --format json: the refusal is the JSON answer
    assert error["kind"] == "invalid" and "never writes" in error["message"]
    assert str(history) in error["message"] and "runs" not in json.loads(out.out)
    assert main(["eval", "--root", str(root), "--format", "json"]) == 0  # the history is a side effect
    out = capsys.readouterr()
    assert "TOP-SECRET" not in out.out + out.err
    # eval writes first, and a view is not a table it can write: "not a run history"
    (warning,) = json.loads(out.out)["warnings"]  # --format json: in the document, stderr empty
    assert out.err == "" and warning.startswith("run not recorded in the history")
    assert "not a labeller.runs.v1 run history" in warning
    assert history.read_bytes() == planted


def test_eval_runs_under_a_chunker_without_max_chars(tmp_path, capsys):
    root = facts_project(tmp_path, toml='[build]\nchunker = "words-v1:size=8,overlap=2"\n')
    report, _ = eval_json(root, capsys)  # asserts exit 0
    assert report is not None and report["fingerprint"]["chunker"] == "words-v1" and report["fingerprint"]["max_chars"] is None


def test_the_history_is_opened_without_file_network_or_extension_access(tmp_path):
    from labeller.eval.history import SAFE_CONFIG, connect

    con = connect(tmp_path / "runs.duckdb", create=True)
    try:
        settings = dict(con.execute("SELECT name, value FROM duckdb_settings() WHERE name IN ?",
                                    [list(SAFE_CONFIG)]).fetchall())
        assert settings.pop("memory_limit") == "953.6 MiB"  # "1GB" (10^9 bytes), shown in binary units
        assert settings == {name: str(value).lower() for name, value in SAFE_CONFIG.items() if name != "memory_limit"}
        with pytest.raises(duckdb.Error):
            con.execute("SET enable_external_access = true")
    finally:
        con.close()


def test_eval_hit_rule_scores_without_changing_the_build(tmp_path, capsys):
    long_para = "word " * 500
    docs = {"a.md": f"# A\n\n{long_para}\n\n{long_para}\n\n{long_para}\n\n{long_para}\n"}
    questions = [{"id": "q1", "query": "word", "expected_answer": "", "locators": [{"doc": "a.md", "heading": "A"}]}]
    root = write_project(tmp_path / "p", docs, questions)
    any_overlap, _ = eval_json(root, capsys)
    containment, _ = eval_json(root, capsys, "--hit-rule", "span_containment")
    assert any_overlap["aggregate"]["chunk"]["recall@1"]["value"] == 1.0
    assert containment["aggregate"]["chunk"]["recall@50"]["value"] == 0.0  # no chunk holds the whole section
    assert containment["config"]["build_hit_rule"] == "any_overlap"


def test_eval_json_is_one_document_its_warnings_inside_sorted_and_bounded(tmp_path, capsys):
    """Every warning eval has at once (queries missing from the run, leak findings, a history
    it cannot write): under --format json stdout is the JSON document alone, its
    ``warnings`` sorted and each one bounded line, and stderr empty; text keeps them on stderr."""
    from labeller.diagnostics import MESSAGE_CHARS

    notes = "# Eval notes\n\nWe ask: where does alpha03 nest\n\nAnd also: where does alpha04 nest\n"
    root = facts_project(tmp_path, extra_docs={"notes.md": notes})
    run = write_run(tmp_path / "full.run", root)
    run.write_text("".join(line for line in run.read_text().splitlines(True) if not line.startswith("q1")))
    (root / ".labeller").mkdir(exist_ok=True)
    (root / ".labeller" / "runs.duckdb").write_bytes(b"not a database" * 100)
    args = ["eval", "--root", str(root), "--run", str(run), "--format", "json"]
    assert main(args) == 0
    out = capsys.readouterr()
    warnings = json.loads(out.out)["warnings"]
    assert out.err == "" and warnings == sorted(warnings) and len(warnings) == 3
    absent = [f"q1{i}" for i in range(10)] + ["neg1"]  # a negative has no rows in any run
    assert warnings[0].startswith(f"{len(absent)} golden queries have no rows in the run file")
    assert warnings[0].endswith(f"… and {len(absent) - 10} more queries")  # ten ids listed, then a count
    assert warnings[1].startswith("golden-queries-quoted:") and warnings[2].startswith("run not recorded")
    assert all(len(w) < MESSAGE_CHARS + 40 and "\n" not in w for w in warnings)
    assert main(args) == 0 and capsys.readouterr().out == out.out  # the same input, the same bytes
    assert main(args[:-2]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "no rows in the run file" in err and "golden-queries-quoted" in err and "not recorded" in err
