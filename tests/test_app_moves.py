"""The broken-label view (F5) shows moved labels grouped per pair of documents, and one key
re-points a whole group with ``labeller repair --moves``'s plan, as one undo step."""

from __future__ import annotations

import subprocess
from dataclasses import replace

import pytest

from conftest import q, write_project
from helpers_app import make_app, run_async, settle
from helpers_interop import cli_json
from helpers_moves import AUTHORS, MANIFEST_NOW, commit_all, git, renamed_manifest, reorganised
from labeller.app.app import LabellerApp
from labeller.app.screens.stale import StaleScreen
from labeller.app.session.session import AuthoringSession
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.preview import PreviewPanel
from labeller.commands.committed_corpus import last_build
from labeller.core.questions import load_questions

pytestmark = pytest.mark.skipif(subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
                                reason="git is not installed")
SIZE = (150, 45)


async def on_broken_labels(pilot) -> None:
    """The app loaded, then F5 (the broken labels), every worker done."""
    await settle(pilot)
    await pilot.press("f5")
    await settle(pilot)


def reorganised_app(tmp_path, capsys) -> tuple:
    """The app on ``helpers_moves.reorganised``'s project, and the project's root."""
    root = reorganised(tmp_path, capsys)
    return make_app(root), root


@run_async
async def test_one_key_accepts_a_group_of_moves_and_ctrl_z_undoes_it(tmp_path, capsys):
    app, root = reorganised_app(tmp_path, capsys)
    async with app.run_test(size=SIZE) as pilot:
        await on_broken_labels(pilot)
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
    app, _ = reorganised_app(tmp_path, capsys)
    async with app.run_test(size=SIZE) as pilot:
        await on_broken_labels(pilot)
        screen = app.screen
        assert screen.check_action("accept_moves", ()) is True
        for _ in range(2):
            await pilot.press("m")
            await settle(pilot)
        assert not screen.query_one("#moves").display
        assert screen.check_action("accept_moves", ()) is False
        assert app.session.broken_records() == ["r-sleep", "r-run", "r-note"]



@run_async
async def test_a_locator_edited_while_the_plan_was_made_is_not_overwritten(tmp_path, capsys):
    """The plan is made in a worker; a locator the author changed meanwhile keeps the author's edit."""
    app, _ = reorganised_app(tmp_path, capsys)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.session
        fixes = [f for f in session.moves_plan() if f.old.doc == "ch01.md"]
        assert sorted(f.record_id for f in fixes) == ["r-cat", "r-fox"]
        edited = replace(session.draft("r-fox").locators[0], quote="quick brown")
        session.set_locator("r-fox", 0, edited, coalesce=False)
        assert session.accept_moves(fixes) == ["r-cat"]
        assert session.draft("r-fox").locators[0] == edited
        assert session.draft("r-cat").locators[0].doc == "ch02.md"


def renamed_manifest_app(tmp_path, capsys, monkeypatch, questions: list):
    """The app (reading the committed build) on ``renamed_manifest``'s project."""
    monkeypatch.setenv("LABELLER_REVIEWER", "repair-bot")
    root = renamed_manifest(tmp_path, capsys, questions)
    return LabellerApp(AuthoringSession.open(root, last_build_reader=last_build), watch_corpus=False)


@run_async
async def test_the_group_key_moves_a_quote_the_new_page_repeats_where_it_stood(tmp_path, capsys, monkeypatch):
    """As ``labeller repair --moves``: the group's plan reads the committed build, so the label
    whose quote the renamed page now holds twice is moved to the occurrence where it stood,
    pinned by context, with the plain move of the group; the group counts both (the build's
    report counts the plain one alone)."""
    app = renamed_manifest_app(tmp_path, capsys, monkeypatch, [
        q("r-urls", {"doc": "docs/manifest.md", "quote": "Links shown on the package index."}),
        q("r-authors", {"doc": "docs/manifest.md", "quote": AUTHORS})])
    async with app.run_test(size=SIZE) as pilot:
        await on_broken_labels(pilot)
        moves = app.screen.query_one("#moves")
        assert [str(moves.get_row_at(i)[0]) for i in range(moves.row_count)] == [
            "docs/manifest.md → manifest.md: 2 labels (renamed, paired by content)"]  # what m applies
        await pilot.press("m")
        await settle(pilot)
        assert app.session.broken_records() == []
        authors = app.session.draft("r-authors").locators[0]
        assert authors.doc == "manifest.md" and authors.quote == AUTHORS and (authors.prefix or authors.suffix)
        (span,) = app.session.result("r-authors").spans
        assert span.start > MANIFEST_NOW.index("## The tool table")
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.draft("r-authors").locators[0].doc == "docs/manifest.md"
        assert app.session.draft("r-urls").locators[0].doc == "docs/manifest.md"


@run_async
async def test_a_group_of_moves_the_build_does_not_suggest_is_listed_from_the_plan(tmp_path, capsys, monkeypatch):
    """The renamed page's one label now stands twice in it: the build suggests no move (SPEC
    §13: ambiguous), but ``repair --moves`` moves it where it stood, so F5 lists its group and
    **m** applies it."""
    app = renamed_manifest_app(tmp_path, capsys, monkeypatch, [q("r-authors", {"doc": "docs/manifest.md",
                                                                               "quote": AUTHORS})])
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.move_groups() == [  # the build's: no move (SPEC §13), one label held twice
            {"from": "docs/manifest.md", "to": "manifest.md", "renamed": True, "paired_by": "content", "labels": 0,
             "records": [], "several": 1}]
        await pilot.press("f5")
        await settle(pilot)
        moves = app.screen.query_one("#moves")
        assert moves.display and [str(moves.get_row_at(i)[0]) for i in range(moves.row_count)] == [
            "docs/manifest.md → manifest.md: 1 label (renamed, paired by content)"]  # the refusal's rename
        assert app.screen.check_action("accept_moves", ()) is True
        await pilot.press("m")
        await settle(pilot)
        assert app.session.broken_records() == [] and not moves.display


@run_async
async def test_the_cursor_stays_on_its_pair_when_the_groups_are_listed_again(tmp_path, capsys):
    """The plan's groups replace the build's while the author looks; **m** must apply the pair
    the cursor was on, wherever the new list puts it."""
    app, _ = reorganised_app(tmp_path, capsys)
    async with app.run_test(size=SIZE) as pilot:
        await on_broken_labels(pilot)
        screen = app.screen
        moves = screen.query_one("#moves")
        groups = list(screen._groups)
        assert moves.cursor_row == 0 and groups[0]["from"] == "ch01.md"
        screen._show_groups([{**g, "labels": g["labels"] + 5} for g in reversed(groups)])  # listed again, reordered
        assert moves.cursor_row == 1 and str(moves.get_row_at(1)[0]).startswith("ch01.md → ch02.md")
        await pilot.press("m")
        await settle(pilot)
        assert app.session.draft("r-fox").locators[0].doc == "ch02.md"
        assert app.session.draft("r-cache").locators[0].doc == "guide.md"


@run_async
async def test_at_80x24_the_broken_list_keeps_rows_beside_many_moves(tmp_path, capsys):
    """Twelve renamed pages: a long list of changed documents, a full moves table and a
    record's detail still leave the broken records' list a few rows on an 80x24 terminal."""
    from helpers_app import row_on_screen

    pages = {f"part-{k:02d}.md": f"# Part {k}\n\nThe paragraph of part {k} says something only part {k} says.\n"
             for k in range(12)}
    questions = [q(f"r-{k:02d}", {"doc": f"part-{k:02d}.md", "quote": f"something only part {k} says"})
                 for k in range(12)]
    root = write_project(tmp_path / "proj", pages, questions)
    assert cli_json(capsys, "build", "--root", root)[0] == 0
    commit_all(root, "built")
    for name in pages:
        git(root, "mv", f"corpus/{name}", f"corpus/renamed-{name}")
    commit_all(root, "renamed")
    app = make_app(root)
    async with app.run_test(size=(80, 24)) as pilot:
        await on_broken_labels(pilot)
        screen = app.screen
        assert screen.query_one("#moves").row_count == 12
        broken = screen.query_one("#broken")
        assert broken.row_count == 12
        assert row_on_screen(broken, 0) is not None and row_on_screen(broken, 1) is not None


@run_async
async def test_a_quote_verbatim_in_several_documents_is_offered_a_move_to_each(tmp_path, capsys):
    """The app lists ``repair``'s offers (``core.repair.offered``): the deleted page's sentence,
    now in two documents, gets a move to each, as ``repair --interactive`` numbers them."""
    app, _ = reorganised_app(tmp_path, capsys)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        ((offers, places),) = app.session.record_offers("r-note")
        assert offers is not None and offers.applied is None  # a person's pick, never applied on its own
        assert [(f.kind, f.new.doc) for f in offers.fixes] == [("moved", "faq.md"), ("moved", "guide.md")]
        assert all(place is not None for place in places)
        app.open_record("r-note", app.session.first_refused_locator("r-note"))
        await settle(pilot)
        listed = app.screen.query_one(PreviewPanel).query_one("#preview-suggestions")
        rows = [str(listed.get_option_at_index(i).prompt.laid_out(200)) for i in range(listed.option_count)]
        assert "notes.md → faq.md" in rows[0] and "notes.md → guide.md" in rows[1]
        app.screen.query_one(DocumentView).focus()
        await pilot.press("2")
        await settle(pilot)
        assert app.screen.preview.status == "resolved"
        assert app.session.draft("r-note").locators[0].doc == "guide.md"
