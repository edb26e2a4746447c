"""Issue 17 items 3-6 through Pilot: repair suggestions, the whole label, keys that flow.

No timing: every step waits for the app to settle (all messages handled, workers done).
"""

from __future__ import annotations

import pytest

from helpers_app import make_app, open_record, paste_into, run_async, settle, write_small_project
from labeller.app.screens.ask import Ask
from labeller.app.session.drafts import LocatorDraft
from labeller.app.session.unlabelled import sections, unlabelled
from labeller.app.widgets.document_view import DocumentView, find_in
from labeller.app.widgets.preview import PreviewPanel
from labeller.config import load_config
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.suggest import suggest
from labeller.core.suggest_cut import pieces, trim_piece

SIZE = (150, 45)


@pytest.fixture
def small(tmp_path):
    root = write_small_project(tmp_path / "proj")
    # "Redeploy services" once here and once in guide/rotate.md: ambiguous, and pinning resolves it
    (root / "corpus" / "ops" / "deploy.md").write_text("# Deploy\n\nRedeploy services after a config change.\n",
                                                       encoding="utf-8")
    return root


def status_text(app) -> str:
    return str(app.screen.query_one("#preview-status").visual)


# -- item 4: repair suggestions ---------------------------------------------------------------

def test_pieces_split_at_blocks_and_table_cells():
    text = "Run it.\n\n- Announce it in the channel.\n- Run keys rotate.\n\n| eu | Tuesday |\n"
    cut = [text[slice(*t)] for s, e in pieces(text, 0, len(text)) if (t := trim_piece(text, s, e))]
    assert cut == ["Run it.", "Announce it in the channel.", "Run keys rotate.", "eu", "Tuesday"]


def test_not_found_suggestions_stay_in_one_block_or_cell(small):
    project = Project(load_config(small))
    for quote, best in (("eu Tuesdays", "Tuesday"), ("the ops channel. Run keys rotates", None)):
        refusal = suggest(project.resolver, project.resolver.resolve(Locator(quote=quote)))
        assert refusal.kind == "not_found" and refusal.suggestions
        for sug in refusal.suggestions:
            assert "|" not in sug["quote"] and "\n" not in sug["quote"], sug
            assert not sug["quote"].startswith(("- ", "# ")), sug
            doc = project.corpus[sug["doc"]].text
            assert sug["quote"] in doc, "cut at word edges of the document's own text"
        assert not any("channel. Run" in s["quote"] for s in refusal.suggestions), "never across two items"
        if best:
            assert refusal.suggestions[0]["quote"] == best
        scores = [s["score"] for s in refusal.suggestions]
        assert scores == sorted(scores, reverse=True)


@run_async
async def test_a_digit_accepts_a_suggestion_pins_its_document_and_shows_the_old_quote(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_record("q002")  # a locator without a doc
        await settle(pilot)
        screen = app.screen
        await paste_into(pilot, "#loc-quote", "eu Tuesdays")
        await settle(pilot)
        assert screen.preview.status == "not found" and not screen.preview.pending
        screen.query_one(DocumentView).focus()
        await pilot.press("1")
        await settle(pilot)
        loc = app.session.draft("q002").locators[0]
        assert (loc.quote, loc.doc) == ("Tuesday", "guide/rotate.md"), "accepting pins the document"
        assert screen.preview.status == "resolved"
        assert "was:" in status_text(app) and "eu Tuesdays" in status_text(app)
        # the old quote is shown only while the accepted locator is on screen
        await paste_into(pilot, "#loc-quote", "Thursday")
        await settle(pilot)
        assert "was:" not in status_text(app)


@run_async
async def test_ambiguity_offers_pin_to_a_document(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q002")
        screen = app.screen
        await paste_into(pilot, "#loc-quote", "Redeploy services")
        await settle(pilot)
        assert screen.preview.status == "ambiguous"
        assert [p.doc for p in screen.preview.pins] == ["guide/rotate.md", "ops/deploy.md"]
        panel = screen.query_one(PreviewPanel)
        assert [r.get("pin") for r in panel._suggestions[:2]] == [True, True]
        screen.query_one(DocumentView).focus()
        await pilot.press("2")
        await settle(pilot)
        loc = app.session.draft("q002").locators[0]
        assert (loc.quote, loc.doc, loc.prefix, loc.suffix) == ("Redeploy services", "ops/deploy.md", None, None)
        assert screen.preview.status == "resolved"
        # a pinned quote offers no pin
        await paste_into(pilot, "#loc-doc", "")
        await paste_into(pilot, "#loc-quote", "keys rotate")
        await settle(pilot)
        assert screen.preview.status == "ambiguous" and screen.preview.pins == ()


# -- item 3: keys --------------------------------------------------------------------------

@run_async
async def test_jump_keys_and_moving_over_a_suggestion_scrolls_the_document(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q002")
        screen = app.screen
        for key, wid in (("alt+a", "form-answer"), ("alt+w", "loc-quote"), ("alt+q", "form-query")):
            await pilot.press(key)
            await settle(pilot)
            assert app.focused.id == wid, key
        await paste_into(pilot, "#loc-quote", "Redeploy services")
        await settle(pilot)
        await pilot.press("alt+s")
        await settle(pilot)
        assert app.focused.id == "preview-suggestions"
        view = screen.query_one(DocumentView)
        await pilot.press("down")  # onto the second pin: ops/deploy.md
        await settle(pilot)
        assert view.doc.doc_id == "ops/deploy.md"
        text = view.doc.text
        assert view.offset_of(view.selection.end) == text.index("Redeploy services")
        await pilot.press("down")  # onto the first occurrence, in guide/rotate.md
        await settle(pilot)
        assert view.doc.doc_id == "guide/rotate.md"
        assert view.offset_of(view.selection.end) == view.doc.text.index("Redeploy services")
        assert app.session.draft("q002").locators[0].quote == "Redeploy services", "moving never applies"


@run_async
async def test_jump_keys_work_from_inside_a_text_field_as_a_terminal_sends_them(small):
    """A terminal sends alt+w as ESC w, which Textual reports as key "alt+w" *with* the
    character "w": a focused text field would type the w unless the jump is a priority
    binding (Pilot's press gives no character, so the test above cannot see this). Tabbing
    into a field never selects its text, so the next key cannot replace the whole query."""
    from textual import events

    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q002")
        before = app.session.draft("q002")
        for key, wid in (("alt+a", "form-answer"), ("alt+w", "loc-quote"), ("alt+q", "form-query")):
            app.post_message(events.Key(key, key[-1]))
            await settle(pilot)
            assert app.focused.id == wid, key
        after = app.session.draft("q002")
        assert (after.query, after.expected_answer, after.locators) == (before.query, before.expected_answer,
                                                                        before.locators), "no letter was typed"
        await pilot.press("tab")  # query -> answer
        await pilot.press("shift+tab")  # back to the query, cursor at its end
        await pilot.press("x")
        await settle(pilot)
        assert app.session.draft("q002").query == before.query + "x"


def test_find_in_wraps_and_ignores_case():
    text = "Alpha beta ALPHA gamma alpha"
    assert find_in(text, "alpha", 0) == 0
    assert find_in(text, "alpha", 5) == 11
    assert find_in(text, "alpha", 24) == 0, "wraps"
    assert find_in(text, "alpha", 11, forward=False) == 0
    assert find_in(text, "alpha", 0, forward=False) == 23, "wraps backwards"
    assert find_in(text, "delta", 0) is None


@run_async
async def test_find_in_the_document_and_go_to_line(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        view = screen.query_one(DocumentView)
        text = view.doc.text
        view.focus()
        await pilot.press("slash")
        await settle(pilot)
        assert isinstance(app.screen, Ask)
        await pilot.press(*"redeploy", "enter")
        await settle(pilot)
        first, second = text.index("redeploy"), text.index("Redeploy")
        assert sorted(view.selected_offsets()) == [first, first + 8]
        await pilot.press("n")
        await settle(pilot)
        assert view.selected_offsets() == (second, second + 8)
        await pilot.press("N")
        await settle(pilot)
        assert view.selected_offsets() == (first, first + 8)
        assert app.session.draft("q001").locators[0].quote == "issue a new API key", "finding is not anchoring"
        await pilot.press("colon")
        await settle(pilot)
        await pilot.press("1", "2", "enter")
        await settle(pilot)
        assert view.cursor_location == (11, 0)


# -- item 5: the whole label ---------------------------------------------------------------------

@run_async
async def test_all_spans_of_a_multi_hop_record_are_marked_the_active_one_emphasised(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.session.add_locator("q001", LocatorDraft(doc="guide/rotate.md", quote="Redeploy services"))
        app.session.update("q001", hop="multi")
        app.open_record("q001", 1)
        await settle(pilot)
        view = app.screen.query_one(DocumentView)
        text = view.doc.text
        kinds = {(text[m.start:m.end], m.kind) for m in view._marks}
        assert ("Redeploy services", "match") in kinds
        other = [text[m.start:m.end] for m in view._marks if m.kind == "other"]
        assert any("issue a new API key" in o for o in other), view._marks
        assert "quote" in str(app.screen.query_one("#legend").visual), "the colour legend"


def test_unlabelled_queue_orders_by_coverage(small):
    project = Project(load_config(small))
    doc = project.corpus["guide/rotate.md"].text
    s = doc.index("issue a new API key")
    gaps = unlabelled(project.corpus, [("guide/rotate.md", s, s + 19), ("ops/oncall.md", 0, 10)])
    assert [(g.doc_id, g.heading) for g in gaps[:2]] == [("notes/separators.md", None), ("ops/deploy.md", None)]
    parts = [(g.doc_id, g.heading) for g in gaps[2:]]
    assert ("guide/rotate.md", "Checklist") in parts and ("guide/rotate.md", "Rotating keys") not in parts
    assert sections("# A\n```\n# not a heading\n```\n## B\ntext\n# C\n") == [(0, 38, "A"), (28, 38, "B"),
                                                                              (38, 42, "C")]


@run_async
async def test_next_unlabelled_key_walks_the_queue(small):
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        view = screen.query_one(DocumentView)
        view.focus()
        await pilot.press("u")
        await settle(pilot)
        first = screen.gap
        assert first.heading is None and view.doc.doc_id == first.doc_id
        await pilot.press("u")
        await settle(pilot)
        assert screen.gap != first and view.doc.doc_id == screen.gap.doc_id


# -- item 6: the first ten minutes -----------------------------------------------------------

def test_draft_problems_are_plain_language():
    from labeller.app.session.drafts import Draft

    draft = Draft(id="q9", query="", expected_answer="", locators=[LocatorDraft(heading="Checklist")])
    assert draft.problems() == ["The query is empty: type what a user would ask", "Locator 1: a section locator needs doc"]
    assert Draft(id="q9", query="q?", expected_answer="a", locators=[]).problems() == [
        "An answerable record needs at least one locator"]
    assert not any("String should" in p or "locators.0" in p for p in draft.problems())


@run_async
async def test_empty_states_say_what_to_do_next(tmp_path):
    from labeller.app.screens.author import AuthorScreen

    root = write_small_project(tmp_path / "proj")
    (root / "golden" / "questions.jsonl").write_text("", encoding="utf-8")
    app = make_app(root)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "ctrl+n" in str(app.screen.query_one("#question-detail").visual)
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen) and "ctrl+n" in app.screen.status_text  # its status line
        await pilot.press("ctrl+n")
        await settle(pilot)
        assert "ctrl+l" in status_text(app), "a question without locators says how to add one"


@run_async
async def test_review_asks_the_reviewer_once_and_e_opens_the_live_editor(small, monkeypatch):
    from labeller.app.screens.author import AuthorScreen
    from labeller.app.screens.review import ReviewScreen

    monkeypatch.delenv("LABELLER_REVIEWER", raising=False)
    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, Ask)
        app.screen.query_one("#ask-input").value = ""
        await pilot.press(*"Ada Reviewer", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen) and app.screen.reviewer == "Ada Reviewer"
        first = app.screen.record_ids[0]
        await pilot.press("e")
        await settle(pilot)
        assert isinstance(app.screen, AuthorScreen) and app.screen.record_id == first
        await pilot.press("f7")
        await settle(pilot)
        assert isinstance(app.screen, ReviewScreen), "the name is remembered for the session"
        assert app.screen.reviewer == "Ada Reviewer"


@run_async
async def test_other_records_labels_are_marked_in_the_gutter(small):
    from labeller.app.widgets.document_view import GUTTER_MARK

    app = make_app(small)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_record("q003")  # "Tuesday" in guide/rotate.md; q001 labels line 6 of the same document
        await settle(pilot)
        view = app.screen.query_one(DocumentView)
        assert view.doc.doc_id == "guide/rotate.md"
        q001 = app.session.result("q001").spans[0]
        first_line = view.doc.line_of(q001.start)
        assert first_line in view._gutter and view.doc.line_of(view.doc.text.index("Tuesday")) not in view._gutter
        view.scroll_to(0, 0, animate=False)
        await settle(pilot)
        rows = {view.wrapped_document.location_to_offset((first_line, 0)).y,
                view.wrapped_document.location_to_offset((0, 0)).y}
        text = {y: "".join(seg.text for seg in view.render_line(y)) for y in rows}
        assert GUTTER_MARK in text[view.wrapped_document.location_to_offset((first_line, 0)).y]
        assert GUTTER_MARK not in text[0], "line 1 carries no label"
