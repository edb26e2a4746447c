"""``eval --format markdown`` and ``eval --baseline ... --format markdown``: a pull-request comment,
read back through a real Markdown renderer (markdown-it-py, GFM tables). Every figure is checked
against the JSON report of the same run, so the comment says what ``--format json`` says."""

from __future__ import annotations

import html
import json
import re

from markdown_it import MarkdownIt
from test_eval_cli import N, facts_project, write_run

from labeller.cli import main
from labeller.diagnostics import TEXT_LIMIT, ZWJ, markdown_cell

HOSTILE = "alpha05 | `x` [link](https://e.example) <img src=x> @someone\u202e"


def render(markdown: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(markdown)


def tables(markdown: str) -> list[list[list[str]]]:
    """Each rendered table as rows of cell texts (header row first)."""
    out = []
    for table in re.findall(r"<table>(.*?)</table>", render(markdown), re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        out.append([[html.unescape(c) for c in re.findall(r"<t[hd]>(.*?)</t[hd]>", row, re.S)] for row in rows])
    return out


def run(root, capsys, *args: str, expect: int = 0) -> str:
    capsys.readouterr()
    rc = main(["eval", "--root", str(root), "--no-history", *args])
    out = capsys.readouterr()
    assert rc == expect, out.err
    return out.out


def both(root, capsys, tmp_path, *args: str, expect: int = 0) -> tuple[str, dict]:
    """The Markdown comment of a run and the JSON report of the same run (``--out``)."""
    md = run(root, capsys, "--format", "markdown", "--out", str(tmp_path / "same.json"), *args, expect=expect)
    return md, json.loads((tmp_path / "same.json").read_text())


def test_a_run_is_its_metrics_at_the_shipped_k_and_its_misses(tmp_path, capsys):
    root = facts_project(tmp_path)
    run_file = write_run(tmp_path / "r.run", root, drop={"q04", "q07"})
    md, report = both(root, capsys, tmp_path, "--run", str(run_file))
    k = report["config"]["shipped_k"]
    metrics, misses = tables(md)
    assert metrics[0] == ["metric", "value", "95% interval", "n"]
    rows = {r[0]: r[1:] for r in metrics[1:]}
    for level, name in (("chunk", "recall"), ("chunk", "mrr"), ("doc", "recall")):
        s = report["aggregate"][level][f"{name}@{k}"]
        assert rows[f"{level} {name}@{k}"] == [f"{s['value']:.3f}", f"[{s['ci_low']:.3f}, {s['ci_high']:.3f}]",
                                               str(s["n"])]
    assert rows[f"chars recall@{k}"][0] == f"{report['aggregate']['chars'][f'recall@{k}']['value']:.3f}"
    missed = [q["query_id"] for q in report["queries"] if q["miss"]]
    assert [r[0] for r in misses[1:]] == missed == ["q04", "q07"]
    assert misses[1][2] == "doc04.md (not retrieved)"
    assert md.startswith(f"### labeller eval: chunk recall\\@{k} ")


def test_a_comparison_is_metric_before_after_delta_interval_verdict(tmp_path, capsys):
    root = facts_project(tmp_path)
    base = write_run(tmp_path / "base.run", root)
    run(root, capsys, "--run", str(base), "--format", "json", "--out", str(tmp_path / "base.json"))
    worse = write_run(tmp_path / "worse.run", root, drop={f"q{i:02d}" for i in range(4, 16)})
    md, report = both(root, capsys, tmp_path, "--run", str(worse), "--baseline", str(tmp_path / "base.json"),
                      "--fail-on-regression", expect=1)
    k = report["config"]["shipped_k"]
    c = report["comparison"]
    assert c["regression"] is True
    assert md.startswith(f"### labeller eval: regression at chunk recall\\@{k}")
    chunk = tables(md)[0]
    assert chunk[0] == ["metric", "before", "after", "Δ", "95% interval", "verdict"]
    rows = {r[0]: r[1:] for r in chunk[1:]}
    d = c["deltas"]["chunk"][f"recall@{k}"]
    assert rows[f"chunk recall@{k}"] == [f"{d['baseline']:.3f}", f"{d['current']:.3f}", f"{d['value']:+.3f}",
                                         f"[{d['ci_low']:+.3f}, {d['ci_high']:+.3f}]", "worse"]
    assert "**verdict**: regression" in md
    mdd = c["mdd"]  # one sentence under the tables, not a row of the last one
    assert "\n\n" + markdown_cell(f"minimum detectable difference in chunk recall@{k} at 80% power: "
                                  f"{mdd['value']:.3f} over {mdd['n']} paired queries") in md
    moved = tables(md)[-2]  # the queries that moved, then the misses
    assert moved[0] == ["id", "before", "after", "Δ"]
    assert [r[0] for r in moved[1:]] == [m["query_id"] for m in c["changed_queries"]] == \
        [f"q{i:02d}" for i in range(4, 16)]


def test_noise_is_no_clear_change_and_no_regression(tmp_path, capsys):
    root = facts_project(tmp_path)
    base = write_run(tmp_path / "base.run", root, add_miss={"q01", "q02", "q03"})
    run(root, capsys, "--run", str(base), "--format", "json", "--out", str(tmp_path / "base.json"))
    noise = write_run(tmp_path / "noise.run", root, add_miss={"q02", "q03", "q10", "q11"})
    md, report = both(root, capsys, tmp_path, "--run", str(noise), "--baseline", str(tmp_path / "base.json"))
    k = report["config"]["shipped_k"]
    d = report["comparison"]["deltas"]["chunk"][f"recall@{k}"]
    assert d["ci_low"] < 0 < d["ci_high"]
    rows = {r[0]: r[1:] for r in tables(md)[0][1:]}
    assert rows[f"chunk recall@{k}"][-1] == "no clear change"
    assert md.startswith(f"### labeller eval: no regression at chunk recall\\@{k}")


def test_a_baseline_of_another_hit_rule_says_why_it_is_not_compared(tmp_path, capsys):
    root = facts_project(tmp_path)
    run(root, capsys, "--format", "json", "--out", str(tmp_path / "b.json"), "--hit-rule", "span_containment")
    md, _ = both(root, capsys, tmp_path, "--baseline", str(tmp_path / "b.json"))
    assert md.startswith("### labeller eval: not compared with the baseline")
    assert "not compared: different hit_rule: the chunk-level numbers" in html.unescape(render(md))


def test_cells_from_the_golden_set_stay_literal_text(tmp_path, capsys):
    hostile = {"id": "evil|1", "query": HOSTILE, "expected_answer": "x",
               "locators": [{"doc": "doc05.md", "quote": "alpha05"}]}
    root = facts_project(tmp_path, extra_questions=[hostile])
    run_file = write_run(tmp_path / "r.run", root)  # evil|1 has no rows: a miss
    md = run(root, capsys, "--run", str(run_file), "--format", "markdown")
    rendered = render(md)
    assert "<a " not in rendered and "<img" not in rendered and "<code>" not in rendered
    miss = [r for r in tables(md)[-1][1:] if r[0] == "evil|1"]
    assert len(miss) == 1 and len(miss[0]) == 4  # the pipes did not split the row
    assert "[link](https://e.example)" in miss[0][1].replace(ZWJ, "")  # as written, its link broken
    assert "\\u202e" in miss[0][1] and "\u202e" not in md


def test_more_misses_than_fit_show_the_first_and_a_count(tmp_path, capsys):
    extra = [{"id": f"x{i}", "query": f"fact {i:02d}", "expected_answer": "x",
              "locators": [{"doc": f"doc{i:02d}.md", "quote": f"Fact {i:02d}"}]} for i in range(5)]
    root = facts_project(tmp_path, extra_questions=extra)
    run_file = write_run(tmp_path / "r.run", root, drop={f"q{i:02d}" for i in range(N)})  # x*: no rows, misses
    md = run(root, capsys, "--run", str(run_file), "--format", "markdown")
    total = N + len(extra)
    assert total > TEXT_LIMIT
    assert len(tables(md)[-1]) == 1 + TEXT_LIMIT
    assert f"… and {total - TEXT_LIMIT:,} more misses; --format json lists them all" in md
