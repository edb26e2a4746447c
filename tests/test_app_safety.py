"""Nothing the author does in the app silently damages the golden set (issue 17, "Safety").

Each test is the failure a user met, driven through Pilot: the cursor after a delete,
undo/redo across screens, a corpus edited while the app is open, a save that rewrites
untouched lines, results older than the labels. Every test waits for the app to settle
(``helpers_app.settle``), never on a clock.
"""

from __future__ import annotations

import pytest

from helpers_app import (  # noqa: F401 (small: a fixture)
    bundled_example_present, copy_bundled_example, make_app, open_record, paste_into, run_async, settle, small, type_into)
from labeller.app.screens.author import AuthorScreen
from labeller.app.screens.dialogs import Choice
from labeller.app.widgets.question_list import QuestionTable

SIZE = (150, 45)


@pytest.fixture
def example(tmp_path):
    if not bundled_example_present():
        pytest.skip("the bundled example is not in this checkout")
    return copy_bundled_example(tmp_path / "example")


async def delete_highlighted(pilot) -> None:
    """Delete + Enter, as the author does it (the dialog's first button is "Delete")."""
    await pilot.press("delete")
    await settle(pilot)
    assert isinstance(pilot.app.screen, Choice)
    await pilot.press("enter")
    await settle(pilot)


# -- (1) the cursor after a delete ------------------------------------------------------------

@run_async
async def test_delete_keeps_the_cursor_on_the_neighbouring_row(example):
    app = make_app(example)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        table = app.screen.query_one(QuestionTable)
        table.focus()
        order = list(app.session.order)
        assert order[0] == "hb-001"
        await pilot.press("down", "down")
        assert table.current_id == order[2]
        await delete_highlighted(pilot)
        assert order[2] not in app.session.drafts
        assert table.current_id == order[3], "the cursor stays on the next row"
        await delete_highlighted(pilot)  # the second Delete + Enter of the bug report
        assert order[3] not in app.session.drafts
        assert "hb-001" in app.session.drafts, "a second Delete + Enter must not remove the first record"
        assert table.current_id == order[4]
        # the last row: the cursor goes to the previous one
        table.move_cursor(row=table.row_count - 1)
        await pilot.pause()
        await delete_highlighted(pilot)
        assert order[-1] not in app.session.drafts
        assert table.current_id == order[-2]


# -- (2) undo / redo --------------------------------------------------------------------------

@run_async
async def test_undo_a_delete_from_another_screen_and_redo_it(example):
    app = make_app(example)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        order = list(app.session.order)
        table = app.screen.query_one(QuestionTable)
        table.focus()
        await pilot.press("down")
        await delete_highlighted(pilot)
        assert order[1] not in app.session.drafts and app.session.dirty
        await pilot.press("f3")  # undo works from any screen
        await settle(pilot)
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.order == order, "the record is back where it was"
        assert not app.session.dirty, "undoing the only change leaves nothing unsaved"
        assert not app.session.journal.exists()
        await pilot.press("ctrl+shift+z")
        await settle(pilot)
        assert order[1] not in app.session.drafts
        await pilot.press("ctrl+z")
        await settle(pilot)
        await pilot.press("f2")
        await settle(pilot)
        assert app.screen.query_one(QuestionTable).row_count == len(order)
        assert app.session.status(order[1])[0] == "resolved"


@run_async
async def test_undo_an_accepted_suggestion_and_typing(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        assert isinstance(screen, AuthorScreen)
        original = app.session.draft("q001")
        await type_into(pilot, "#form-query", "How is the key rotated?")
        await settle(pilot)
        await paste_into(pilot, "#loc-quote", "keys rotate")
        await settle(pilot)
        assert screen.preview.status == "ambiguous"
        await pilot.press("ctrl+g")  # pick the highlighted occurrence (pinned by its context)
        await settle(pilot)
        accepted = app.session.draft("q001").locators[0]
        assert (accepted.prefix or accepted.suffix) and screen.preview.status == "resolved"

        await pilot.press("ctrl+z")  # the accepted suggestion
        await settle(pilot)
        undone = app.session.draft("q001").locators[0]
        assert (undone.quote, undone.prefix, undone.suffix) == ("keys rotate", None, None)
        assert screen.query_one("#loc-quote").value == "keys rotate", "the form shows the undone value"
        assert screen.preview.status == "ambiguous"
        await pilot.press("ctrl+z")  # the pasted quote
        await pilot.press("ctrl+z")  # the typed query: one step, not one per key
        await settle(pilot)
        assert app.session.draft("q001") == original
        assert screen.query_one("#form-query").value == original.query
        await pilot.press("ctrl+z")
        await settle(pilot)
        assert app.session.draft("q001") == original, "nothing more to undo"
        for _ in range(3):
            await pilot.press("ctrl+y")
        await settle(pilot)
        assert app.session.draft("q001").query == "How is the key rotated?"
        assert app.session.draft("q001").locators[0] == accepted
        assert screen.preview.status == "resolved"


def test_undo_survives_a_save_and_a_new_record(small):
    """Undo reaches back past a save (the undone edit is then unsaved again) and takes back
    a new record; redo is dropped by a fresh change."""
    from labeller.app.session.session import AuthoringSession

    s = AuthoringSession.open(small)
    s.prepare()
    s.update("q002", query="How quickly is a page answered?")
    rid = s.new_record()
    out = s.save_questions()
    assert out.written and list(out.held_back) == [rid], "the empty new record is held back"
    assert not s.is_dirty("q002")
    assert s.undo() == [rid]
    assert rid not in s.drafts and not s.dirty
    assert s.undo() == ["q002"]
    assert s.draft("q002").query == "How fast must on-call answer a page?" and s.is_dirty("q002")
    assert s.redo() == ["q002"]
    s.update("q003", expected_answer="Tuesday.")
    assert s.redo() == [], "a new change drops what was undone"


# -- (3) the corpus is watched; nothing is built from a stale corpus --------------------------

def edit_corpus_doc(root):
    """Change one document the way an editor would, while the app is open."""
    doc = root / "corpus" / "guide" / "rotate.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("The old key stays valid for 24 hours.",
                                                           "The old key stays valid for 48 hours."),
                   encoding="utf-8")
    return "guide/rotate.md"


def build_check(root) -> bool:
    from labeller.config import load_config
    from labeller.core.build import build
    from labeller.core.check import check
    from labeller.core.project import Project

    project = Project(load_config(root))
    result = build(project, project.load_questions().questions)
    return check(result, project.layout.artifact, project.layout.manifest).ok


@run_async
async def test_save_after_a_corpus_edit_builds_from_the_corpus_on_disk(small):
    """The bug: the app rebuilt from the corpus as it was at start-up, so the manifest held
    the old hash and ``build --check`` failed on a file the app had just written. The
    watcher is off here: the check before the rebuild alone must prevent it."""
    import json

    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        doc_id = edit_corpus_doc(small)
        on_disk = app.session.fresh_project().corpus[doc_id].sha256
        assert on_disk != app.session.project.corpus[doc_id].sha256, "the app still holds the old text"
        app.open_record("q001")
        await settle(pilot)
        await type_into(pilot, "#form-query", "How do I rotate an API key?")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "rebuilt" in app.last_save and "corpus changed on disk" in app.last_save, app.last_save
        assert app.session.project.corpus[doc_id].sha256 == on_disk, "the session uses the new corpus now"
        assert app.session.ready and app.session.status("q001")[0] == "resolved"
    manifest = json.loads(app.session.config.layout.manifest.read_text(encoding="utf-8"))
    assert manifest["docs"][doc_id]["sha256"] == on_disk
    assert build_check(small), "build --check passes on what the app wrote"


@run_async
async def test_a_corpus_change_reloads_and_re_resolves(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.session.status("q003")[0] == "resolved"
        before = app.session.project
        app.check_corpus()  # nothing changed: nothing reloads
        await settle(pilot)
        assert app.session.project is before
        doc = small / "corpus" / "guide" / "rotate.md"
        doc.write_text(doc.read_text(encoding="utf-8").replace("Tuesday", "Wednesday"), encoding="utf-8")
        app.check_corpus()  # what the watcher calls on a change under corpus/
        await settle(pilot)
        assert app.session.project is not before
        assert app.session.status("q003")[0] == "not found"


# -- (4) a save rewrites only the records that changed ----------------------------------------

@run_async
async def test_adding_three_questions_adds_three_lines_and_changes_no_other(example):
    """The bug: the first save rewrote records nobody touched (key order moved on 14 lines
    after adding three questions)."""
    import difflib

    path = example / "golden" / "questions.jsonl"
    before = path.read_bytes()
    app = make_app(example)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sources = [app.session.draft(i) for i in app.session.order if app.session.draft(i).locators][:3]
        for n, src in enumerate(sources, 1):
            await pilot.press("ctrl+n")
            await settle(pilot)
            await paste_into(pilot, "#form-query", f"New question number {n} for the minimal diff test")
            loc = src.locators[0]
            if loc.doc:
                await paste_into(pilot, "#loc-doc", loc.doc)
            await paste_into(pilot, "#loc-quote", loc.quote)
            await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "saved" in app.last_save and not app.session.dirty, app.last_save
    after = path.read_bytes()
    diff = [d for d in difflib.ndiff(before.decode().splitlines(keepends=True),
                                     after.decode().splitlines(keepends=True)) if d[:1] in "+-?"]
    assert all(d.startswith("+ ") for d in diff), "".join(diff)
    assert len(diff) == 3
    assert after.startswith(before), "every line of the original file is byte-identical"


def test_undo_locator_changes_and_a_journal_restore(small):
    """Adding and removing locators are a step each; a journal restore (an import of unsaved
    records into the open session) is one step, undone as a whole."""
    from labeller.app.journal import JournalEntry
    from labeller.app.session.drafts import LocatorDraft
    from labeller.app.session.session import AuthoringSession

    s = AuthoringSession.open(small)
    original = s.draft("q001")
    s.add_locator("q001", LocatorDraft(doc="ops/oncall.md", quote="pager ack --all"))
    s.remove_locator("q001", 0)
    assert [loc.quote for loc in s.draft("q001").locators] == ["pager ack --all"]
    s.undo()
    assert len(s.draft("q001").locators) == 2
    s.undo()
    assert s.draft("q001") == original

    entry = JournalEntry(questions="golden/questions.jsonl", base_sha256=s.qfile.source_sha256,
                         drafts=[{**original.as_json(), "query": "Restored query?"},
                                 {"id": "q900", "query": "A restored new record?", "expected_answer": "",
                                  "locators": []}],
                         deleted=["q003"])
    assert s.restore(entry) == ["q001", "q900"]
    assert "q003" not in s.drafts and s.draft("q001").query == "Restored query?"
    assert sorted(s.undo()) == ["q001", "q003", "q900"]
    assert s.order == ["q001", "q002", "q003", "q004"] and not s.dirty
