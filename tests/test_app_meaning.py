"""Issue 38's second rule: no silent change of meaning. Clearing a pinned locator's quote
leaves it *incomplete* (no ✓, no span, not saved), never a whole-document label; the whole
document is labelled only when the author ticks "whole doc". A warning leaves when its
cause does (the near-verbatim warning, once the locator is gone)."""

from __future__ import annotations

import pytest

from helpers_app import make_app, open_record, paste_into, run_async, settle, small, type_into  # noqa: F401
from labeller.app.session.drafts import Draft, LocatorDraft

SIZES = [(80, 24), (120, 40)]


def preview_text(screen) -> str:
    return str(screen.query_one("#preview-status").render())


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_clearing_the_quote_leaves_an_incomplete_locator_not_a_whole_document(small, size):
    saved = (small / "golden" / "questions.jsonl").read_text(encoding="utf-8")
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await open_record(pilot, "q001")  # pinned to guide/rotate.md, quoting "issue a new API key"
        screen = app.screen
        assert screen.preview.status == "resolved"
        await paste_into(pilot, "#loc-quote", "")
        await settle(pilot)
        loc = app.session.draft("q001").locators[0]
        assert loc.doc == "guide/rotate.md" and loc.incomplete
        assert screen.preview.span is None and screen.preview.status == "incomplete"
        shown = preview_text(screen)
        assert "incomplete" in shown and "✓" not in shown and "whole doc" in shown
        assert screen.statuses == ["incomplete"]
        assert app.session.status("q001")[0] == "incomplete"
        await pilot.press("ctrl+s")
        await settle(pilot)
        on_disk = (small / "golden" / "questions.jsonl").read_text(encoding="utf-8")
        assert on_disk == saved, "an incomplete locator is never written (its last saved version stays)"

        screen.query_one("#loc-whole").value = True  # the author's explicit choice
        await settle(pilot)
        assert app.session.draft("q001").locators[0].whole
        assert screen.preview.status == "resolved" and screen.preview.span.block == "document"


def test_a_doc_only_locator_round_trips_as_whole_and_an_incomplete_one_as_incomplete():
    whole = Draft.from_json({"id": "q1", "query": "q", "expected_answer": "a", "locators": [{"doc": "a.md"}]})
    assert whole.locators[0].whole and not whole.problems()
    assert whole.as_json()["locators"] == [{"doc": "a.md"}]
    half = Draft(id="q1", query="q", expected_answer="a", locators=(LocatorDraft(doc="a.md"),))
    assert half.locators[0].incomplete and "Locator 1 is incomplete" in half.problems()[0]
    back = Draft.from_json(half.as_json())  # the journal keeps it incomplete
    assert back.locators[0].incomplete and back == half


@run_async
async def test_the_copy_warning_leaves_with_its_locator(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        await type_into(pilot, "#form-query", "issue a new API key then redeploy every service")
        await settle(pilot)
        assert screen.query_one("#copy-warning").display
        screen.query_one("#locators").focus()
        await pilot.press("delete")  # the only locator: the label the query copied is gone
        await settle(pilot)
        assert app.session.draft("q001").locators == ()
        assert not screen.query_one("#copy-warning").display


@run_async
async def test_a_save_warns_about_a_record_with_no_split(small):
    app = make_app(small)
    said: list[str] = []
    notify = app.notify
    app.notify = lambda message, *a, **kw: (said.append(str(message)), notify(message, *a, **kw))[1]
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q003")  # the fixture's record with no split
        assert app.session.draft("q003").split is None
        await type_into(pilot, "#form-query", "Which day is the eu rotation window, again?")
        await settle(pilot)
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert any("saved with no split: q003" in m for m in said), said
