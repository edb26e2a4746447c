"""The typed eval report, its presenter and the metric registry (issue 26, point 4).

The JSON of SPEC §9 is the contract: the typed model must give back the very bytes the
runner's report renders to, on the bundled example and on a foreign chunking. A metric is
one measure class plus one registration line: registered here, it reaches the aggregates,
the per-query rows, the JSON and both views' tables with no other change.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass

import pytest
from conftest import REPO, write_project

from labeller.cli import main
from labeller.eval.measures import FAMILIES, Measure, RankedQuery
from labeller.eval.present import ReportView
from labeller.eval.report import render
from labeller.eval.report_model import EvalReport

FOREIGN = REPO / "tests" / "fixtures" / "pipelines" / "bundled" / "langchain.jsonl"


def eval_stdout(root, capsys, *args) -> str:
    rc = main(["eval", "--root", str(root), "--no-history", *args])
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out.out


@pytest.fixture
def example(tmp_path):
    root = tmp_path / "example"
    for part in ("corpus", "golden"):
        shutil.copytree(REPO / part, root / part)
    return root


@pytest.mark.parametrize("chunks", [None, FOREIGN], ids=["own-chunks", "foreign-chunking"])
def test_the_typed_report_renders_to_the_same_bytes_as_the_json_written(example, capsys, tmp_path, chunks):
    args = ["--format", "json", "--out", str(tmp_path / "r.json"), *(["--chunks", str(chunks)] if chunks else [])]
    printed = eval_stdout(example, capsys, *args)
    assert (tmp_path / "r.json").read_text(encoding="utf-8") == printed
    model = EvalReport.of(json.loads(printed))
    assert render(model.json_value()) == printed
    assert model.schema_ == "labeller.eval-report.v1" and model.queries  # typed access, not string keys


def test_a_baseline_comparison_round_trips_too(example, capsys, tmp_path):
    base = tmp_path / "base.json"
    eval_stdout(example, capsys, "--format", "json", "--out", str(base))
    printed = eval_stdout(example, capsys, "--format", "json", "--baseline", str(base), "--budget", "2000")
    model = EvalReport.of(json.loads(printed))
    assert model.comparison is not None and model.comparison.comparable
    assert render(model.json_value()) == printed


@dataclass(frozen=True)
class Top1Hit(Measure):
    """A toy: 1 when the first ranked item is relevant, whatever k."""

    family = "top1hit"
    label = "top-1 hit (toy)"

    def __call__(self, q: RankedQuery) -> float:
        return float(bool(q.gains) and q.gains[0] == 1)


@pytest.fixture
def toy_metric(monkeypatch):
    monkeypatch.setitem(FAMILIES, "top1hit", Top1Hit)  # the one registration line


def small_project(tmp_path):
    docs = {f"d{i}.md": f"# Part {i}\n\nThe kestrel number{i} nests on ridge {i}.\n" for i in range(4)}
    questions = [{"id": f"q{i}", "query": f"where does number{i} nest", "expected_answer": f"ridge {i}",
                  "locators": [{"doc": f"d{i}.md", "quote": f"number{i}"}]} for i in range(4)]
    return write_project(tmp_path / "proj", docs, questions)


def test_a_registered_metric_reaches_the_report_json_and_both_views(tmp_path, capsys, toy_metric):
    root = small_project(tmp_path)
    report = json.loads(eval_stdout(root, capsys, "--format", "json", "--k", "1,5"))
    for level in ("chunk", "doc"):
        assert report["aggregate"][level]["top1hit@5"]["n"] == 4
        assert all("top1hit@1" in q[level] for q in report["queries"])
    # the per-query value is what the measure says about that query's ranking
    assert all(q["chunk"]["top1hit@1"] == (1.0 if q["hit_ranks"][0] == 1 else 0.0) for q in report["queries"])
    view = ReportView(EvalReport.of(report))
    assert "top-1 hit (toy)" in [row.label for row in view.metric_grid("chunk")]  # the CLI's table
    assert "top1hit@5" in [row.name for row in view.metric_pairs()]  # the app's table
    assert "top-1 hit (toy)" in eval_stdout(root, capsys, "--k", "1,5")


def test_without_the_registration_line_the_metric_is_nowhere(tmp_path, capsys):
    report = json.loads(eval_stdout(small_project(tmp_path), capsys, "--format", "json", "--k", "1,5"))
    assert not any(name.startswith("top1hit@") for name in report["aggregate"]["chunk"])


def test_a_measure_is_named_by_its_family_and_typed_parameter():
    recall = FAMILIES.load("recall")
    assert recall is not None and recall(k=5).name == "recall@5"
    assert recall(k=2)(RankedQuery([1, 3, None], [1, 0, 1], 2)) == pytest.approx(1 / 3)


def test_a_metric_registered_after_scoring_began_is_scored_from_then_on(monkeypatch):
    """Scoring keeps its measures between queries; a registration must still reach it."""
    from labeller.eval.metrics import level_metrics

    assert "top1hit@1" not in level_metrics([1], [1], 1, (1,), False)
    monkeypatch.setitem(FAMILIES, "top1hit", Top1Hit)
    assert level_metrics([1], [1], 1, (1,), False)["top1hit@1"] == 1.0


def test_the_reports_consumers_read_the_typed_model_not_the_dict():
    """compare, history and the drill-down read ``EvalResult.model`` (typed), never
    ``EvalResult.report`` by string keys: a renamed field is then a type error, not a KeyError
    at run time. (Their outputs are held byte-identical by their own tests.)"""
    import ast
    import inspect

    from labeller.app.session import drilldown
    from labeller.eval import compare, history

    for module in (compare, drilldown, history):
        tree = ast.parse(inspect.getsource(module))
        reads = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "report"]
        assert not reads, f"{module.__name__} reads .report at lines {reads}"
    assert inspect.signature(history.append_run).parameters["report"].annotation == "EvalReport"
