"""The ``traffic`` and ``subset`` sections in every report a person reads (issue 39.5, 39.6):
``labeller eval``'s text, the pull-request comment (``--format markdown``), the HTML page and
the app's Traffic tab. Every figure is checked against the JSON report of the same run; tenant
and stratum names come from a query log, so hostile ones (``@team``, ``#123``, 10,000
characters) must stay text that mentions, references and links nothing, in a bounded comment.
"""

from __future__ import annotations

import html
import json
import re

from conftest import write_project
from helpers_app import make_app, nested_scrolls, row_on_screen, run_async, run_eval, settle, silent_empty_tables
from test_eval_html import Page
from test_markdown_safety import links_left, render, text_of

from labeller.app.screens.traffic_estimates import GROUP_WIDTH, TrafficEstimatesView
from labeller.cli import main
from labeller.commands.eval_markdown import eval_markdown
from labeller.diagnostics import CELL_CHARS, COMMENT_CHARS, TEXT_LIMIT, ZWJ
from labeller.eval.report_model import EvalReport

N = 16
TENANTS = ("@team", "#123")  # a mention and an issue reference, were they rendered as GitHub reads them


def provenance(i: int, tenants=TENANTS) -> dict:
    tenant = tenants[i % 2]
    return {"stratum": f"{'tail' if i % 2 else 'head'}|tenant={tenant}", "pi": 0.25 if i % 2 else 1.0,
            "frequency": 1 + 3 * i, "log_hash": f"{i:032x}", "tenant": tenant}


def traffic_project(tmp_path, tenants=TENANTS):
    """N one-fact documents, each question sampled from traffic; every fourth asks with words
    its document lacks (a miss), so the strata and tenants differ."""
    docs = {f"doc{i:02d}.md": f"# Topic {i:02d}\n\nFact {i:02d}: the kestrel alpha{i:02d} nests on ridge "
                              f"number {i:02d}.\n" for i in range(N)}
    questions = [{"id": f"t{i:02d}", "expected_answer": "", "locators": [{"doc": f"doc{i:02d}.md",
                                                                          "quote": f"alpha{i:02d}"}],
                  "query": f"where does alpha{i:02d} nest" if i % 4 else f"bird home number {i}",
                  "traffic": provenance(i, tenants)} for i in range(N)]
    return write_project(tmp_path / "proj", docs, questions)


def run(root, capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(["eval", "--root", str(root), "--no-history", *args]) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def same_run(root, capsys, tmp_path, *args: str) -> tuple[str, dict]:
    """A view of a run and the JSON report of that same run (``--out``)."""
    shown = run(root, capsys, "--out", str(tmp_path / "same.json"), *args)
    return shown, json.loads((tmp_path / "same.json").read_text(encoding="utf-8"))


def figures(t: dict) -> dict[str, tuple[str, str]]:
    """Each stratum's and tenant's value and interval as the views print them, from the JSON."""
    def cells(s):
        ci = "-" if s["ci_low"] is None else f"{s['ci_low']:.3f}, {s['ci_high']:.3f}"
        return ("no data" if s["value"] is None else f"{s['value']:.3f}", ci)
    return {name: cells(s) for name, s in [*t["strata"].items(), *t["tenants"].items()]}


def md_tables(markdown: str) -> list[list[list[str]]]:
    """Each table of the comment as rendered by cmark-gfm: rows of cell texts, ZWJs dropped."""
    out = []
    for table in re.findall(r"<table>(.*?)</table>", render(markdown), re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        out.append([[html.unescape(re.sub(r"<[^>]+>", "", c)).replace(ZWJ, "").strip()
                     for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in rows])
    return out


# -- text ---------------------------------------------------------------------------------


def test_the_text_report_prints_every_stratum_and_tenant_and_the_subset(tmp_path, capsys):
    root = traffic_project(tmp_path)
    text, report = same_run(root, capsys, tmp_path, "--subset", "12")
    t = report["traffic"]
    lines = text.splitlines()
    for name, (value, ci) in figures(t).items():
        assert any(name in line and value in line and ci in line for line in lines), name
    assert f"subset: 12 of {N} records" in text and "subset by stratum" in text
    for stratum, (taken, of) in report["subset"]["strata"].items():
        assert any(stratum in line and f" {taken} " in line and f" {of} " in line for line in lines), stratum


# -- Markdown -----------------------------------------------------------------------------


def test_the_comment_holds_the_traffic_and_subset_sections_and_links_nothing(tmp_path, capsys):
    root = traffic_project(tmp_path)
    md, report = same_run(root, capsys, tmp_path, "--format", "markdown", "--subset", "12")
    t, k = report["traffic"], report["config"]["shipped_k"]
    assert links_left(md) == {}, "a tenant name became a mention, a reference or a link"
    assert "@team" not in md.replace(f"@{ZWJ}", "") and "#123" not in md.replace(f"#{ZWJ}", "")
    w = t["weighted"][f"recall@{k}"]
    assert f"traffic-weighted chunk recall@{k}: {w['value']:.3f}" in text_of(render(md)).replace(ZWJ, "")
    tables = md_tables(md)
    traffic = [tb for tb in tables if tb[0][:3] == ["by", "group", f"recall@{k}"]]
    assert [len(tb) - 1 for tb in traffic] == [len(t["strata"]), len(t["tenants"])]
    shown = {row[1]: (row[2], row[3]) for tb in traffic for row in tb[1:]}
    assert shown == figures(t)  # the names read as written, the figures as the JSON has them
    subset = next(tb for tb in tables if tb[0] == ["stratum", "taken", "of"])
    assert {row[0]: [int(row[1]), int(row[2])] for row in subset[1:]} == report["subset"]["strata"]


def test_a_hostile_log_s_tenants_stay_text_in_a_bounded_comment(tmp_path, capsys):
    """A saved report is a file: its tenant names may be anything. 10,000 characters of
    mentions and references as one name, and 300 more tenants, all below the rest."""
    root = traffic_project(tmp_path)
    _, report = same_run(root, capsys, tmp_path, "--format", "json")
    t = report["traffic"]
    long = ("@team #123 " * 1000)[:10_000]
    stat = {"value": 0.1, "ci_low": 0.05, "ci_high": 0.2, "n": 3}
    t["tenants"] = {**{f"@t{i:03d}": stat for i in range(300)}, long: stat | {"value": 0.05}}  # the weakest: first
    t["below_others"] = sorted(t["tenants"])
    md = eval_markdown(EvalReport.model_validate(report))
    assert len(md.encode("utf-16-le")) // 2 <= COMMENT_CHARS
    assert links_left(md) == {}
    tenants = next(tb for tb in md_tables(md) if tb[0][:2] == ["by", "group"] and tb[1][0] == "tenant")
    assert len(tenants) - 1 == TEXT_LIMIT  # the first rows, then a count
    assert f"and {301 - TEXT_LIMIT:,} more tenants" in md
    cells = [c for line in md.splitlines() if line.startswith("| tenant") for c in line.split(" | ")]
    assert cells and max(len(c) for c in cells) <= CELL_CHARS + 2
    assert any(c.endswith("more characters\\)") for c in cells), "the long name says how much was left out"
    warning = next(line for line in md.splitlines() if line.startswith("**warning**: below the rest"))
    assert len(warning) <= 1100 and "301 tenant" in warning


# -- HTML ---------------------------------------------------------------------------------


def test_the_html_page_holds_both_sections_escaped(tmp_path, capsys):
    hostile = ("<script>alert(1)</script>", '"><img src=x onerror=alert(2)>')
    root = traffic_project(tmp_path, hostile)
    page_path = tmp_path / "r.html"
    _, report = same_run(root, capsys, tmp_path, "--subset", "12", "--html", str(page_path))
    page = page_path.read_text(encoding="utf-8")
    parsed = Page(page)
    assert [tag for tag, _ in parsed.tags if tag == "img"] == [] and len(parsed.scripts) == 1  # its own only
    assert "<h2>Traffic-weighted estimates</h2>" in page and "<h2>Subset (--subset)</h2>" in page
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)
    cells = [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]
    shown = {c[1]: (c[2], c[3]) for c in cells if len(c) == 6 and c[0] in ("stratum", "tenant")}
    assert shown == figures(report["traffic"])
    subset = {c[0]: [int(c[1]), int(c[2])] for c in cells if len(c) == 3 and c[0] in report["subset"]["strata"]}
    assert subset == report["subset"]["strata"]


# -- the app ------------------------------------------------------------------------------


@run_async
async def test_the_traffic_tab_shows_every_row_at_80x24(tmp_path):
    """Every row drawn whole: a long tenant name wraps in its column, never widens the table
    past the screen (where its columns would scroll sideways, out of sight)."""
    root = traffic_project(tmp_path, ("@team", "a-tenant-whose-name-takes-sixty-characters-of-the-screen-xyz"))
    assert main(["eval", "--root", str(root), "--no-history", "--subset", "12", "--format", "json", "--out",
                 str(tmp_path / "subset.json")]) == 0
    subset_report = EvalReport.model_validate_json((tmp_path / "subset.json").read_text(encoding="utf-8"))
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_eval(pilot)
        t = screen.result.report["traffic"]
        await pilot.press("alt+t")
        await settle(pilot)
        assert screen.query_one("#eval-tabs").active == "tab-traffic"
        table = screen.focused
        assert table.id == "eval-traffic" and table.row_count == len(t["strata"]) + len(t["tenants"])
        assert nested_scrolls(screen) == [] and silent_empty_tables(screen) == []
        assert table.region.right <= screen.region.right - 1, "the table is wider than the screen"
        assert table.max_scroll_x == 0, "the table's columns scroll sideways: some are cut"
        words = str(screen.query_one("#eval-traffic-words").render())
        k = screen.session.config.eval.shipped_k
        assert f"traffic-weighted chunk recall@{k}: {t['weighted'][f'recall@{k}']['value']:.3f}" in words
        want = figures(t)
        await pilot.press("home")
        for i in range(table.row_count):
            if i:
                await pilot.press("down")
            await settle(pilot)
            line = row_on_screen(table, i)
            name = str(table.get_row_at(i)[1])
            assert line is not None and name[:GROUP_WIDTH] in line, f"row {i} ({name}) is not drawn on the screen"
            assert table.ordered_rows[i].height == -(-len(name) // GROUP_WIDTH), f"row {i}: {name} not wrapped whole"
            assert want[name][0] in line and want[name][1] in line
        # the app scores the whole set; a report of ``--subset`` shows its strata in the same tab
        screen.query_one(TrafficEstimatesView).show(subset_report)
        await settle(pilot)
        sub = screen.query_one("#eval-subset")
        strata = subset_report.subset["strata"]
        assert sub.display and sub.row_count == len(strata) and sub.max_scroll_x == 0
        assert [[str(c) for c in sub.get_row_at(i)] for i in range(sub.row_count)] == \
            [[h, str(a), str(b)] for h, (a, b) in sorted(strata.items())]
        assert f"subset: 12 of {N} records" in str(screen.query_one("#eval-traffic-words").render())


@run_async
async def test_a_run_without_traffic_says_so_in_words(tmp_path):
    root = write_project(tmp_path / "p", {"a.md": "# A\n\nalpha fact.\n"},
                         [{"id": "q1", "query": "alpha", "expected_answer": "", "locators": [{"doc": "a.md"}]}])
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await run_eval(pilot)
        await pilot.press("alt+t")
        await settle(pilot)
        words = screen.query_one("#eval-traffic-words")
        assert "none of the scored records was sampled from traffic" in str(words.render())
        assert words.region.intersection(screen.region).area > 0
        assert not screen.query_one("#eval-traffic").display and silent_empty_tables(screen) == []
