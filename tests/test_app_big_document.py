"""What a keystroke costs stays small in a big document:

* the document view wraps its text once per text and width (its ``LineTable``); the table
  must follow a load, a document switch and a re-wrap on resize, and the scrollable height
  must be its rows;
* the journal written on every change never waits for the disk (no fsync), while saving
  questions.jsonl still does."""

from __future__ import annotations

import pytest

from helpers_app import make_app, open_record, run_async, settle, write_small_project
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.markup import display_text


@pytest.fixture
def small(tmp_path):
    return write_small_project(tmp_path / "proj")


def assert_table_follows_the_view(view: DocumentView) -> None:
    table = view.wrapped_document
    assert view.doc is not None and view.text == display_text(view.doc.text)
    assert table.lines == view.text.split("\n") and table.width == view.wrap_width
    assert table.height == sum(len(table.breaks(i)) + 1 for i in range(len(table.lines)))
    assert view.virtual_size.height == table.height


@run_async
async def test_the_line_table_follows_loads_and_resizes(small):
    app = make_app(small)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_record(pilot, "q001")
        view = app.screen.query_one(DocumentView)
        assert view.doc is not None and view.doc.doc_id == "guide/rotate.md"
        assert_table_follows_the_view(view)
        tall = view.wrapped_document.height
        await pilot.resize_terminal(80, 24)  # narrower: more wrapped rows
        await settle(pilot)
        await pilot.press("escape")  # below 100 columns the record has the screen until the document has focus
        await settle(pilot)
        assert view.display and view.wrap_width > 0
        assert_table_follows_the_view(view)
        assert view.wrapped_document.height > tall
        app.screen.show_document("ops/oncall.md")
        await settle(pilot)
        assert "on-call engineer" in view.text
        assert_table_follows_the_view(view)


def test_the_journal_never_waits_for_the_disk_but_the_save_does(small, monkeypatch):
    import os

    from labeller.app.session.session import AuthoringSession

    session = AuthoringSession.open(small)
    session.prepare()
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    session.update("q002", query="How quickly is a page answered?")
    assert session.journal.exists() and "How quickly" in session.journal.path.read_text(encoding="utf-8")
    assert synced == [], "a keystroke's journal write must not fsync"
    out = session.save_questions()
    assert out.written and synced, "questions.jsonl is written durably"
