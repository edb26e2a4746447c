"""``labeller traffic sample`` and ``check``: readers, folding, strata, π, determinism, spans."""

from __future__ import annotations

import csv
import json
import random

import duckdb
import pytest

from labeller.cli import main
from labeller.traffic.design import Cell, allocate
from labeller.traffic.normal import fold_key

VARIANTS = ("How do I reset my password?", "how to reset password", "reset password??", "Password reset")


def traffic_rows(seed: int = 5, n: int = 3000) -> list[dict]:
    """Heavy-tailed traffic over 400 distinct questions, three tenants, some feedback, passages."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        rank = min(int(rng.paretovariate(1.0)), 400)
        query = rng.choice(VARIANTS) if rank == 1 else f"how does the parser handle case {rank} of block quotes"
        rows.append({"query": query, "tenant": rng.choice(["acme", "blue", "cobalt"]),
                     "fb": rng.choice(["up", "down", None, None]), "ids": [f"doc{rank}", "doc0"],
                     "scores": [0.9, 0.1]})
    return rows


def write_log(tmp_path, rows, fmt: str):
    jsonl = tmp_path / "log.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    if fmt == "jsonl":
        return jsonl
    if fmt == "csv":
        path = tmp_path / "log.csv"
        with path.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(["query", "tenant", "fb", "ids", "scores"])
            for r in rows:
                w.writerow([r["query"], r["tenant"], r["fb"] or "", json.dumps(r["ids"]), json.dumps(r["scores"])])
        return path
    path = tmp_path / "log.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_json('{jsonl}', format='newline_delimited')) TO '{path}' (FORMAT parquet)")
    return path


def run_sample(root, log, capsys, *extra, n: int = 60, expect: int = 0) -> dict | None:
    root.mkdir(exist_ok=True)
    rc = main(["traffic", "sample", str(log), "--root", str(root), "--n", str(n), "--out", str(root / "queue.jsonl"),
               "--tenant", "tenant", "--feedback", "fb", "--doc-ids", "ids", "--doc-scores", "scores",
               "--stratify-by", "tenant", "--format", "json", *extra])
    out = capsys.readouterr()
    assert rc == expect, out.err
    return json.loads(out.out) if rc == 0 else None


def queue(root) -> list[dict]:
    return [json.loads(line) for line in (root / "queue.jsonl").read_text(encoding="utf-8").splitlines()]


def test_jsonl_csv_and_parquet_give_the_same_queue(tmp_path, capsys):
    rows = traffic_rows()
    texts = []
    for fmt in ("jsonl", "csv", "parquet"):
        root = tmp_path / fmt
        run_sample(root, write_log(tmp_path, rows, fmt), capsys, "--seed", "3")
        texts.append((root / "queue.jsonl").read_bytes())
    assert texts[0] == texts[1] == texts[2]


def test_the_same_seed_gives_the_same_bytes_and_another_another_draw(tmp_path, capsys):
    log = write_log(tmp_path, traffic_rows(), "jsonl")
    run_sample(tmp_path / "a", log, capsys, "--seed", "1")
    run_sample(tmp_path / "b", log, capsys, "--seed", "1")
    run_sample(tmp_path / "c", log, capsys, "--seed", "2")
    a, b, c = ((tmp_path / x / "queue.jsonl").read_bytes() for x in "abc")
    assert a == b != c


def test_near_duplicates_fold_into_one_query_whose_frequency_is_their_sum(tmp_path, capsys):
    rows = traffic_rows()
    report = run_sample(tmp_path / "p", write_log(tmp_path, rows, "jsonl"), capsys, n=100000)
    assert len({fold_key(v) for v in VARIANTS}) == 1
    items = [it for it in queue(tmp_path / "p") if it["key"] == fold_key(VARIANTS[0])]
    for tenant in ("acme", "blue", "cobalt"):
        asked = sum(r["query"] in VARIANTS and r["tenant"] == tenant for r in rows)
        [item] = [it for it in items if it["tenant"] == tenant]
        assert item["frequency"] == asked and item["query"] in VARIANTS
    assert report["requests"] == len(rows) == sum(it["frequency"] for it in queue(tmp_path / "p"))


def test_golden_queries_and_their_near_duplicates_are_left_out(tmp_path, capsys):
    rows = traffic_rows()
    root = tmp_path / "p"
    (root / "golden").mkdir(parents=True)
    (root / "golden" / "questions.jsonl").write_text(json.dumps(
        {"id": "g1", "query": "How can I reset the password", "expected_answer": "",
         "locators": [{"doc": "a.md", "quote": "reset"}]}) + "\n", encoding="utf-8")
    report = run_sample(root, write_log(tmp_path, rows, "jsonl"), capsys, n=100000)
    assert report["golden_requests_left_out"] == sum(r["query"] in VARIANTS for r in rows) > 0
    assert not [it for it in queue(root) if "password" in it["query"].lower()]


def test_each_item_carries_its_stratum_and_inclusion_probability(tmp_path, capsys):
    report = run_sample(tmp_path / "p", write_log(tmp_path, traffic_rows(), "jsonl"), capsys, n=60)
    items = queue(tmp_path / "p")
    strata = report["strata"]
    assert len(items) == report["sampled"] == 60 == sum(s["sampled"] for s in strata.values())
    for it in items:
        s = strata[it["stratum"]]
        assert it["pi"] == pytest.approx(s["sampled"] / s["units"])
        assert it["stratum"].endswith(f"tenant={it['tenant']}")
        assert it["split"] in ("dev", "test", "holdout") and it["retrieved"][0]["id"].startswith("doc")
    assert {name.split("|")[0] for name in strata} == {"head", "torso", "tail"}
    assert any("|negative|" in name for name in strata)


def test_allocation_over_samples_the_tail_by_its_factor():
    cells = [Cell("head", 1000, 5000, 1.0), Cell("tail", 1000, 5000, 2.0)]
    assert allocate(cells, 300) == {"head": 100, "tail": 200}
    small = [Cell("head", 3, 9000, 1.0), Cell("tail", 1000, 1000, 3.0)]
    assert allocate(small, 50) == {"head": 3, "tail": 47}  # a full cell gives its share to the rest
    assert allocate(small, 5000) == {"head": 3, "tail": 1000}


def test_the_split_of_a_query_does_not_depend_on_the_seed(tmp_path, capsys):
    log = write_log(tmp_path, traffic_rows(), "jsonl")
    run_sample(tmp_path / "a", log, capsys, "--seed", "1", n=100000)
    run_sample(tmp_path / "b", log, capsys, "--seed", "2", n=100000)
    assert {it["id"]: it["split"] for it in queue(tmp_path / "a")} == \
        {it["id"]: it["split"] for it in queue(tmp_path / "b")}


def otlp_line(query: str, docs: list[tuple[str, str, float]], tenant: str) -> dict:
    attrs = [{"key": "openinference.span.kind", "value": {"stringValue": "RETRIEVER"}},
             {"key": "input.value", "value": {"stringValue": query}},
             {"key": "tenant.id", "value": {"stringValue": tenant}}]
    for i, (did, text, score) in enumerate(docs):
        attrs += [{"key": f"retrieval.documents.{i}.document.id", "value": {"stringValue": did}},
                  {"key": f"retrieval.documents.{i}.document.content", "value": {"stringValue": text}},
                  {"key": f"retrieval.documents.{i}.document.score", "value": {"doubleValue": score}}]
    llm = [{"key": "openinference.span.kind", "value": {"stringValue": "LLM"}},
           {"key": "input.value", "value": {"stringValue": "not a retrieval"}}]
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name",
                                                            "value": {"stringValue": "rag"}}]},
                               "scopeSpans": [{"scope": {"name": "openinference.instrumentation.llama_index"},
                                               "spans": [{"traceId": "ab" * 16, "spanId": "cd" * 8,
                                                          "name": "retrieve", "kind": 1,
                                                          "startTimeUnixNano": "1733400000000000000",
                                                          "attributes": attrs},
                                                         {"traceId": "ab" * 16, "spanId": "ef" * 8,
                                                          "name": "llm", "attributes": llm}]}]}]}


def phoenix_line(query: str, docs: list[tuple[str, str, float]], tenant: str) -> dict:
    """Phoenix's span dataframe, one row a line: attributes as columns, documents as a list."""
    return {"name": "retrieve", "span_kind": "RETRIEVER", "context.span_id": "cd" * 8,
            "attributes.input.value": query, "attributes.tenant.id": tenant,
            "attributes.retrieval.documents": [{"document.id": d, "document.content": t, "document.score": s}
                                               for d, t, s in docs]}


@pytest.mark.parametrize("shape", [otlp_line, phoenix_line])
def test_openinference_retriever_spans_bring_their_passages(tmp_path, capsys, shape):
    docs = [("guide.md#3", "Set DEBUG=1; mail ops@example.com", 0.82), ("faq.md#1", "Restart the worker.", 0.41)]
    lines = [shape("why is the worker stuck after deploy", docs, "acme"),
             shape("why is the worker stuck after deploy?", docs, "acme"),
             shape("where are the logs", docs[1:], "blue")]
    path = tmp_path / "spans.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    root = tmp_path / "p"
    root.mkdir()
    rc = main(["traffic", "sample", str(path), "--format-in", "spans", "--root", str(root), "--n", "10",
               "--out", str(root / "queue.jsonl"), "--tenant", "tenant.id", "--format", "json"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    items = {it["query"]: it for it in queue(root)}
    assert json.loads(out.out)["requests"] == 3 and len(items) == 2
    stuck = items["why is the worker stuck after deploy"]
    assert stuck["frequency"] == 2 and stuck["tenant"] == "acme"
    assert stuck["retrieved"] == [{"id": "guide.md#3", "score": 0.82, "text": "Set DEBUG=1; mail <EMAIL>"},
                                  {"id": "faq.md#1", "score": 0.41, "text": "Restart the worker."}]


def test_a_missing_column_is_invalid_input_naming_it(tmp_path, capsys):
    log = write_log(tmp_path, traffic_rows(n=50), "jsonl")
    (tmp_path / "p").mkdir()
    rc = main(["traffic", "sample", str(log), "--root", str(tmp_path / "p"), "--n", "5",
               "--out", str(tmp_path / "p" / "q.jsonl"), "--tenant", "customer"])
    err = capsys.readouterr().err
    assert rc == 2 and "no column 'customer'" in err and "query, tenant, fb, ids, scores" in err
    assert not (tmp_path / "p" / "q.jsonl").exists()


def test_a_log_line_that_is_not_json_is_named_by_its_line(tmp_path, capsys):
    """DuckDB's own message names the descriptor it read (``/dev/fd/N``) and counts one line
    more: the refusal names the log and the line a person would look at."""
    log = tmp_path / "log.jsonl"
    log.write_text('{"query": "a"}\n\n{"query": "b"}\nnot json\n{"query": "c"}\n', encoding="utf-8")
    (tmp_path / "p").mkdir()
    rc = main(["traffic", "sample", str(log), "--root", str(tmp_path / "p"), "--n", "2",
               "--out", str(tmp_path / "p" / "q.jsonl")])
    err = capsys.readouterr().err
    assert rc == 2 and "log.jsonl" in err and "line 4 is not JSON" in err and "/dev/fd" not in err
    assert not (tmp_path / "p" / "q.jsonl").exists()


def test_check_reads_a_queue_and_names_a_bad_line(tmp_path, capsys):
    root = tmp_path / "p"
    run_sample(root, write_log(tmp_path, traffic_rows(), "jsonl"), capsys, n=20)
    assert main(["traffic", "check", str(root / "queue.jsonl"), "--root", str(root), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == 20
    lines = (root / "queue.jsonl").read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[4])
    bad["pi"] = 1.5
    lines[4] = json.dumps(bad)
    (root / "bad.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["traffic", "check", str(root / "bad.jsonl"), "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert ":5" in err and "pi" in err


def test_the_warehouse_sql_in_the_docs_draws_the_same_queue(tmp_path, capsys, monkeypatch):
    """The two SQL blocks of docs/traffic.md, run in DuckDB over the requests the UDF step makes
    (redacted, normalised, folded, hashed: labeller's own functions), give labeller's queue."""
    import re
    from pathlib import Path

    from labeller.traffic.redact import Redactor
    from labeller.traffic.normal import normalise
    from labeller.traffic.sample import salted_hash

    monkeypatch.setenv("LABELLER_TRAFFIC_SALT", "s3cret")
    rows = traffic_rows(n=2000)
    root = tmp_path / "p"
    run_sample(root, write_log(tmp_path, rows, "jsonl"), capsys, "--seed", "11", n=50)
    mine = {it["id"]: it for it in queue(root)}

    con = duckdb.connect()
    con.execute("CREATE TABLE requests (line BIGINT, key VARCHAR, query VARCHAR, tenant VARCHAR, neg BOOLEAN, "
                "hash VARCHAR)")
    redact = Redactor()
    for line, r in enumerate(rows, start=1):
        text = normalise(redact(r["query"]))
        con.execute("INSERT INTO requests VALUES (?, ?, ?, ?, ?, ?)",
                    [line, fold_key(text), text, r["tenant"], r["fb"] == "down", salted_hash(b"s3cret", r["query"])])
    doc = (Path(__file__).resolve().parents[1] / "docs" / "traffic.md").read_text(encoding="utf-8")
    cells_sql, draw_sql = re.findall(r"```sql\n(.*?)```", doc, re.DOTALL)
    cells = con.execute(cells_sql).fetchall()
    (tmp_path / "cells.csv").write_text("cell,units,traffic\n" + "".join(f"{c},{u},{t}\n" for c, u, t in cells))
    assert main(["traffic", "allocate", str(tmp_path / "cells.csv"), "--n", "50", "--root", str(root)]) == 0
    (tmp_path / "alloc.csv").write_text(capsys.readouterr().out)
    con.execute(f"CREATE TABLE alloc AS SELECT * FROM read_csv('{tmp_path / 'alloc.csv'}', header=true)")
    cur = con.execute(draw_sql, {"seed": 11})
    names = [d[0] for d in cur.description]
    theirs = {r["id"]: r for r in (dict(zip(names, row)) for row in cur.fetchall())}
    assert sorted(theirs) == sorted(mine) and len(mine) == 50
    for id_, it in mine.items():
        t = theirs[id_]
        assert (t["query"], t["key"], t["frequency"], t["stratum"], t["split"], t["log_hash"], t["tenant"]) == \
            (it["query"], it["key"], it["frequency"], it["stratum"], it["split"], it["log_hash"], it["tenant"])
        assert t["pi"] == pytest.approx(it["pi"], abs=1e-12) and bool(t["negative"]) == it.get("negative", False)


def test_batch_sizes_do_not_change_the_queue(tmp_path, capsys, monkeypatch):
    """Requests counted, inserted and folded queries streamed a few at a time (as a large log
    is) give the queue and the report one batch gives."""
    from labeller.traffic import readers, sample

    log = write_log(tmp_path, traffic_rows(n=800), "jsonl")
    one = run_sample(tmp_path / "a", log, capsys, n=40)
    monkeypatch.setattr(sample, "INSERT_BATCH", 7)
    monkeypatch.setattr(readers, "BATCH", 5)
    monkeypatch.setattr(readers, "FOLD_DISTINCT", 3)
    few = run_sample(tmp_path / "b", log, capsys, n=40)
    assert (tmp_path / "a" / "queue.jsonl").read_bytes() == (tmp_path / "b" / "queue.jsonl").read_bytes()
    assert {**one, "queue": ""} == {**few, "queue": ""}


@pytest.mark.parametrize("window", [100, 1])
def test_identical_requests_are_worked_once_and_counted_each_time(tmp_path, capsys, monkeypatch, window):
    """The reader hands identical requests on counted (one row, its count, its first line), so
    the redaction and the fold are done once per distinct request; the report's requests and
    redactions and each item's frequency still count every request, whatever the window."""
    from labeller.traffic import readers

    monkeypatch.setattr(readers, "FOLD_DISTINCT", window)
    mail = "Mail jo@example.com about the reset"
    rows = [(mail, "acme")] * 5 + [(mail.lower(), "acme")] * 2 + [(mail, "blue")] * 3 + [("plain question", "acme")] * 4
    random.Random(2).shuffle(rows)
    log = tmp_path / "log.jsonl"  # text columns only: the rows are their own identity
    log.write_text("".join(json.dumps({"query": q, "tenant": t}) + "\n" for q, t in rows), encoding="utf-8")
    root = tmp_path / "p"
    root.mkdir()
    assert main(["traffic", "sample", str(log), "--root", str(root), "--n", "100", "--out", str(root / "q.jsonl"),
                 "--tenant", "tenant", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["requests"] == len(rows) and report["redaction"]["EMAIL"] == 10
    items = [json.loads(line) for line in (root / "q.jsonl").read_text(encoding="utf-8").splitlines()]
    first = {t: next(q for q, tt in rows if tt == t and q != "plain question") for t in ("acme", "blue")}
    assert sorted((it["tenant"], it["frequency"], it["query"]) for it in items) == [
        ("acme", 4, "plain question"), ("acme", 7, first["acme"].replace("jo@example.com", "<EMAIL>")),
        ("blue", 3, first["blue"].replace("jo@example.com", "<EMAIL>"))]


def test_check_out_writes_a_warehouse_queue_canonical_and_redacted(tmp_path, capsys):
    """A queue made elsewhere (lines unsorted, a raw address left in a query, a tenant and a
    passage) comes back in labeller's form, redacted, and reads back the same."""
    root = tmp_path / "p"
    run_sample(root, write_log(tmp_path, traffic_rows(), "jsonl"), capsys, n=12)
    items = queue(root)
    items[3]["query"] += " mail me at jo.bloggs@example.com"
    items[3]["tenant"] = "jo.bloggs@example.com"
    items[3]["retrieved"] = [{"id": "x", "text": "call +1-415-555-0132"}]
    (root / "wh.jsonl").write_text("".join(json.dumps(it) + "\n" for it in reversed(items)), encoding="utf-8")
    assert main(["traffic", "check", str(root / "wh.jsonl"), "--root", str(root), "--out", str(root / "c.jsonl"),
                 "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    text = (root / "c.jsonl").read_text(encoding="utf-8")
    assert "jo.bloggs" not in text and "555-0132" not in text and report["redaction"]["EMAIL"] == 2
    lines = text.splitlines()
    assert lines == sorted(lines, key=lambda x: (json.loads(x)["stratum"], json.loads(x)["id"])) and len(lines) == 12
    assert main(["traffic", "check", str(root / "c.jsonl"), "--root", str(root), "--out", str(root / "d.jsonl")]) == 0
    assert (root / "d.jsonl").read_text(encoding="utf-8") == text
