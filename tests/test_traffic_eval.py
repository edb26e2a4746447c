"""Traffic provenance on questions.jsonl records, and ``labeller eval``'s weighted estimates."""

from __future__ import annotations

import json

import pytest
from conftest import write_project
from pydantic import ValidationError

from labeller.cli import main
from labeller.core.models import Question

N = 16


def provenance(i: int) -> dict:
    return {"stratum": "tail|tenant=acme" if i % 2 else "head|tenant=blue", "pi": 0.25 if i % 2 else 1.0,
            "frequency": 1 + 3 * i, "log_hash": f"{i:032x}", "tenant": "acme" if i % 2 else "blue"}


def traffic_project(tmp_path):
    """N one-fact documents; the odd questions ask with words the documents lack (BM25 misses
    them), so recall differs between strata; two authored records carry no provenance."""
    docs = {f"doc{i:02d}.md": f"# Topic {i:02d}\n\nFact {i:02d}: the kestrel alpha{i:02d} nests on ridge "
                              f"number {i:02d}.\n" for i in range(N)}
    questions = [{"id": f"t{i:02d}", "expected_answer": "", "locators": [{"doc": f"doc{i:02d}.md",
                                                                          "quote": f"alpha{i:02d}"}],
                  "query": f"where does alpha{i:02d} nest" if i % 4 else f"bird home number {i}",
                  "traffic": provenance(i)} for i in range(N)]
    questions += [{"id": "a1", "query": "alpha01 ridge", "expected_answer": "",
                   "locators": [{"doc": "doc01.md", "quote": "alpha01"}]}]
    return write_project(tmp_path / "proj", docs, questions)


def test_eval_reports_the_weighted_estimate_beside_the_unweighted(tmp_path, capsys):
    root = traffic_project(tmp_path)
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history"]) == 0
    report = json.loads(capsys.readouterr().out)
    t = report["traffic"]
    k = report["config"]["shipped_k"]
    rows = {r["query_id"]: r["chunk"][f"recall@{k}"] for r in report["queries"]}
    w = {f"t{i:02d}": provenance(i)["frequency"] / provenance(i)["pi"] for i in range(N)}
    expected = sum(w[q] * rows[q] for q in w) / sum(w.values())
    assert t["weighted"][f"recall@{k}"]["value"] == pytest.approx(expected, abs=1e-6)
    assert t["unweighted"][f"recall@{k}"]["value"] == pytest.approx(sum(rows[q] for q in w) / N, abs=1e-6)
    assert t["records"] == N and t["authored_left_out"] == 1
    assert set(t["tenants"]) == {"acme", "blue"} and set(t["strata"]) == {"tail|tenant=acme", "head|tenant=blue"}
    assert t["strata"]["head|tenant=blue"]["ci_low"] == t["strata"]["head|tenant=blue"]["ci_high"]  # π = 1: whole
    assert main(["eval", "--root", str(root), "--no-history"]) == 0
    text = capsys.readouterr().out
    assert f"traffic-weighted chunk recall@{k}" in text and "tail|tenant=acme" in text


def test_no_traffic_records_no_traffic_object(tmp_path, capsys):
    root = write_project(tmp_path / "p", {"a.md": "# A\n\nalpha fact.\n"},
                         [{"id": "q1", "query": "alpha", "expected_answer": "", "locators": [{"doc": "a.md"}]}])
    assert main(["eval", "--root", str(root), "--format", "json", "--no-history"]) == 0
    assert "traffic" not in json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("bad", [{"pi": 0}, {"pi": 1.5}, {"pi": True}, {"frequency": 0}, {"log_hash": "RAW TEXT"},
                                 {"query": "the raw text"}])
def test_provenance_is_checked_and_unknown_keys_refused(bad):
    rec = {"id": "t1", "query": "q", "expected_answer": "", "unanswerable": True, "locators": [],
           "traffic": provenance(1) | bad}
    with pytest.raises(ValidationError):
        Question.model_validate(rec)


def test_provenance_round_trips_through_the_record_json():
    rec = {"id": "t1", "query": "q", "expected_answer": "", "unanswerable": True, "locators": [],
           "traffic": provenance(3)}
    assert Question.model_validate(rec).as_json() == rec
