"""The broken-label view (F5) shows moved labels grouped per pair of documents, and one key
re-points a whole group with ``labeller repair --moves``'s plan, as one undo step."""

from __future__ import annotations

import subprocess

import pytest

from helpers_app import make_app, run_async, settle
from helpers_moves import reorganised
from labeller.app.screens.stale import StaleScreen
from labeller.core.questions import load_questions

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")
SIZE = (150, 45)


@run_async
async def test_one_key_accepts_a_group_of_moves_and_ctrl_z_undoes_it(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, StaleScreen)
        moves = screen.query_one("#moves")
        assert moves.display and moves.row_count == 2
        assert [str(moves.get_row_at(i)[0]) for i in range(2)] == [
            "ch01.md → ch02.md: 2 labels (renamed, paired by git)", "guide.md → faq.md: 1 label"]
        await pilot.press("m")  # the first group: both ch01.md labels, nothing else
        await settle(pilot)
        docs = {rid: [loc.doc for loc in app.session.draft(rid).locators] for rid in app.session.order}
        assert docs["r-fox"] == ["ch02.md"] and docs["r-cat"] == ["ch02.md"]
        assert docs["r-cache"] == ["guide.md"] and docs["r-sleep"] == ["ch01.md"]
        assert app.session.draft("r-cat").locators[0].suffix == " and their"  # the locator unchanged but its doc
        assert "r-fox" not in app.session.broken_records() and "r-cat" not in app.session.broken_records()
        assert moves.row_count == 1  # the group left: guide.md → faq.md
        await pilot.press("ctrl+z")  # one step undoes the whole group
        await settle(pilot)
        assert [loc.doc for loc in app.session.draft("r-fox").locators] == ["ch01.md"]
        assert [loc.doc for loc in app.session.draft("r-cat").locators] == ["ch01.md"]
        await pilot.press("ctrl+y")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
    saved = {q.id: q for q in load_questions(root / "golden/questions.jsonl").questions}
    assert saved["r-fox"].locators[0].doc == "ch02.md" and saved["r-cache"].locators[0].doc == "guide.md"


@run_async
async def test_the_key_is_offered_only_when_there_are_moves(tmp_path, capsys):
    root = reorganised(tmp_path, capsys)
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f5")
        await settle(pilot)
        screen = app.screen
        assert screen.check_action("accept_moves", ()) is True
        for _ in range(2):
            await pilot.press("m")
            await settle(pilot)
        assert not screen.query_one("#moves").display
        assert screen.check_action("accept_moves", ()) is False
        assert app.session.broken_records() == ["r-sleep", "r-run", "r-note"]
