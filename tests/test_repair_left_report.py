"""What ``labeller repair`` left, counted per document: after a reorganisation most locators left
share a few gone pages, which the first twenty locators listed one by one do not show."""

from __future__ import annotations

import subprocess

import pytest

from helpers_interop import cli, cli_json
from helpers_moves import reorganised
from labeller.commands.repair import print_plan
from labeller.core.fixes import Left
from labeller.core.models import Locator
from labeller.core.repair import RepairPlan

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")


def _left(doc: str | None, kind: str, n: int = 0) -> Left:
    return Left(f"r-{doc}-{kind}-{n}", 0, Locator(doc=doc, quote="a quote"), kind, "why")


def test_the_left_are_counted_per_document_most_first_then_by_name():
    plan = RepairPlan(left=[_left("a.md", "not_found"), _left("c.md", "unknown_doc", 0), _left(None, "not_found"),
                            _left("b.md", "not_found", 0), _left("b.md", "ambiguous"), _left("c.md", "unknown_doc", 1),
                            _left("b.md", "not_found", 1), _left("c.md", "unknown_doc", 2)])
    assert plan.left_by_doc() == [
        {"doc": "b.md", "left": 3, "kinds": {"ambiguous": 1, "not_found": 2}},
        {"doc": "c.md", "left": 3, "kinds": {"unknown_doc": 3}},
        {"doc": "a.md", "left": 1, "kinds": {"not_found": 1}},
        {"doc": None, "left": 1, "kinds": {"not_found": 1}}]


def test_the_text_report_says_where_the_left_are_before_each_with_why(tmp_path, capsys, monkeypatch):
    root = reorganised(tmp_path, capsys)
    rc, out, err = cli(capsys, "repair", "--moves", "--dry-run", "--root", root)
    assert rc == 1
    lines = err.splitlines()
    start = lines.index("left 3 refused locator(s) in 3 document(s) (unknown_doc 2, not_found 1):")
    assert lines[start + 1:start + 5] == ["  ch01.md: 1 (unknown_doc 1)", "  guide.md: 1 (not_found 1)",
                                          "  notes.md: 1 (unknown_doc 1)", "each, with why:"]
    assert [line.split(" (")[0] for line in lines[start + 5:start + 8]] == [
        "  r-sleep locator 1", "  r-run locator 1", "  r-note locator 1"]
    rc, report = cli_json(capsys, "repair", "--moves", "--dry-run", "--root", root)
    assert report["left_by_doc"] == [{"doc": "ch01.md", "left": 1, "kinds": {"unknown_doc": 1}},
                                     {"doc": "guide.md", "left": 1, "kinds": {"not_found": 1}},
                                     {"doc": "notes.md", "left": 1, "kinds": {"unknown_doc": 1}}]


def test_one_locator_left_is_not_counted_again(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    rc, out, err = cli(capsys, "repair", "r-run", "--moves", "--dry-run", "--root", root)
    assert rc == 1
    assert "left 1 refused locator(s) in 1 document(s) (not_found 1):\n  r-run locator 1 (not_found): " in err
    assert "each, with why" not in err


def test_many_documents_are_listed_to_the_text_bound_and_counted(capsys):
    plan = RepairPlan(left=[_left(f"page-{i:02}.md", "unknown_doc") for i in range(25)])
    print_plan(plan, written=False, dry_run=True, rel="golden/questions.jsonl")
    err = capsys.readouterr().err
    assert err.count(": 1 (unknown_doc 1)") == 20  # the first twenty documents, by name (each 1)
    assert "  page-19.md: 1" in err and "page-20.md: 1" not in err
    assert "… and 5 more documents" in err
    assert "left 25 refused locator(s) in 25 document(s) (unknown_doc 25):" in err


def test_each_document_s_kinds_are_counted_most_first(capsys):
    plan = RepairPlan(left=[_left("b.md", "ambiguous"), _left("b.md", "not_found", 0), _left("b.md", "not_found", 1)])
    print_plan(plan, written=False, dry_run=True, rel="golden/questions.jsonl")
    assert "  b.md: 3 (not_found 2, ambiguous 1)\n" in capsys.readouterr().err


def test_the_text_report_groups_the_moves_per_pair_and_lists_each_edited_quote(tmp_path, capsys, monkeypatch):
    """One line a renamed page, as the build groups them (Poetry: 121 moves in 10 lines, not 20 of
    them and "… and 101 more"), then each edited quote re-pointed: those are the ones to read."""
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = reorganised(tmp_path, capsys)
    rc, _, err = cli(capsys, "repair", "--dry-run", "--root", root)
    lines = err.splitlines()
    start = lines.index("would apply 4 fix(es) to 4 record(s): 3 moved, 1 nearest passage(s)")
    assert lines[start + 1:start + 6] == ["  moved, per pair of documents:",
                                          "    ch01.md → ch02.md: 2 labels (renamed, paired by git)",  # as built
                                          "    guide.md → faq.md: 1 label", "  edited quotes re-pointed (read each):",
                                          "    r-sleep locator 1: where it stood, 100.0% of the quote kept: ch02.md: "
                                          "'Cats sleep up to sixteen hours a day.'"]
