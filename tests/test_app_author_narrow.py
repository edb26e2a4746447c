"""Writing a label end to end, keyboard only, at 80×24 (the first-class size) and 100×30:
new question, search, open the hit, select, read the span and chunk ids, save — with every
step on screen (the focused widget drawn whole, nothing typed into a hidden field). Then the
input paths a terminal really delivers: bursts (a Tab among typed keys, keys right after
Ctrl+N) and bracketed pastes. Pictures of each step at both sizes (pytest-textual-snapshot).
"""

from __future__ import annotations

import json

import pytest
from pytest_textual_snapshot import SVGImageExtension
from textual import events

from helpers_app import (assert_focus_on_screen, burst, make_app, on_screen, open_record, run_async, settle,  # noqa: F401
                         small)  # small: a fixture
from labeller.app.widgets.document_view import DocumentView

SIZES = [(80, 24), (100, 30)]
IDS = [f"{w}x{h}" for w, h in SIZES]
QUERY = "When does the eu rotation run?"
ANSWER = "On Tuesday."
QUOTE = "issue a new API key"


def cursor_in_view(view) -> bool:
    """The cursor's row (of the text as wrapped at the view's width) is between the first and
    the last row the view shows."""
    row = view.wrapped_document.location_to_offset(view.cursor_location).y
    return view.scroll_offset.y <= row < view.scroll_offset.y + view.scrollable_content_region.height


async def write_label(pilot, checks) -> None:
    """The loop, keyboard only; ``checks(step)`` runs after every step."""
    await settle(pilot)
    await pilot.press("ctrl+n")
    await settle(pilot)
    await checks("new question")
    await pilot.press(*QUERY, "tab", *ANSWER)
    await settle(pilot)
    await checks("query and answer")
    await pilot.press("ctrl+f", *"rotate key")
    await settle(pilot)
    await checks("search")
    await pilot.press("down")  # from the box to the hits
    await settle(pilot)
    await checks("hits")
    await pilot.press("enter")  # opens the hit in the document
    await settle(pilot)
    await checks("hit opened")
    await pilot.press("slash")  # find the answer's first word: the cursor goes there
    await settle(pilot)
    await pilot.press(*QUOTE.split()[0], "enter")
    await settle(pilot)
    await pilot.press(*["ctrl+shift+right"] * (len(QUOTE.split()) - 1))  # select word by word
    await settle(pilot)
    await checks("selected")
    await pilot.press("tab")  # on to the record column, through to the resolution
    for _ in range(20):
        if pilot.app.screen.focused.id == "preview":
            break
        await checks("tab")
        await pilot.press("tab")
    await settle(pilot)
    await checks("resolution")
    await pilot.press("ctrl+s")
    await settle(pilot)
    await checks("saved")


@pytest.mark.parametrize("size", SIZES, ids=IDS)
@run_async
async def test_a_label_is_written_end_to_end_with_every_step_on_screen(small, size):
    doc = small / "corpus" / "guide" / "rotate.md"  # the hit two screens down: opening it must scroll there
    filler = "".join(f"Background note {n}: " + "a line long enough to wrap in the document view. " * 3 + "\n\n"
                     for n in range(size[1]))
    doc.write_text(doc.read_text(encoding="utf-8").replace("# Rotating keys", filler + "# Rotating keys"),
                   encoding="utf-8")
    app = make_app(small)
    seen: list[str] = []

    async def checks(step: str) -> None:
        seen.append(step)
        screen = app.screen
        assert_focus_on_screen(app, {"new question": "form-query", "query and answer": "form-answer",
                                     "search": "search-input", "hits": "search-hits", "hit opened": "document",
                                     "selected": "document", "resolution": "preview"}.get(step))
        if step == "search":  # a view of its own: nothing beside it to squeeze
            assert not screen.query_one(DocumentView).display
            assert screen.query_one("#left").region.width == size[0]
        if step in ("hit opened", "selected"):  # the passage is in view, the cursor on it
            view = screen.query_one(DocumentView)
            assert view.doc.doc_id == "guide/rotate.md" and cursor_in_view(view)
        if step in ("selected", "resolution"):  # the span and the chunk ids, whole, where the author is
            preview = screen.preview
            assert preview is not None and preview.span is not None and preview.locator.quote == QUOTE
            status = screen.query_one("#preview-status")
            assert on_screen(status)
            shown = str(status.visual)
            assert f"span [{preview.span.start}, {preview.span.end})" in shown
            assert preview.chunks and all(c.chunk_id[:8] in shown for c in preview.chunks)

    async with app.run_test(size=size) as pilot:
        await write_label(pilot, checks)
    assert seen[-1] == "saved"
    lines = (small / "golden" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    saved = [json.loads(line) for line in lines if line.startswith("{")][-1]
    assert (saved["query"], saved["expected_answer"]) == (QUERY, ANSWER)
    assert saved["locators"] == [{"doc": "guide/rotate.md", "quote": QUOTE}]


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 48)], ids=["80x24", "100x30", "160x48"])
@run_async
async def test_every_stop_of_the_tab_chain_is_on_screen(small, size):
    """Tab visits each field of a resolved record once round, every one drawn whole when it has
    the focus: at 80 and 100 columns the "unanswerable" box was cut off yet took Tab and space."""
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await open_record(pilot, "q001")
        first = app.screen.focused
        stops = []
        for _ in range(30):
            assert_focus_on_screen(app)
            stops.append(app.screen.focused)
            await pilot.press("tab")
            await settle(pilot)
            if app.screen.focused is first:
                break
        ids = {w.id for w in stops}
        assert {"form-query", "form-answer", "form-unanswerable", "form-tags", "loc-quote", "preview"} <= ids


@run_async
async def test_search_at_narrow_width_is_a_view_of_its_own_and_esc_returns(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q001")
        assert not app.screen.query_one("#left").display
        await pilot.press("ctrl+f")
        await settle(pilot)
        assert_focus_on_screen(app, "search-input")
        await pilot.press(*"pages")
        await settle(pilot)
        assert app.session.drafts["q001"].query == "How do I rotate the API key?"  # typed into the search
        await pilot.press("escape")
        await settle(pilot)
        assert_focus_on_screen(app, "document")
        assert not app.screen.query_one("#left").display and app.screen.query_one("#right").display
        await pilot.press("f9")  # the corpus view as it was left
        await settle(pilot)
        assert_focus_on_screen(app, "search-input")
        assert app.screen.query_one("#search-input").value == "pages"
        await pilot.press("f9")
        await settle(pilot)
        assert_focus_on_screen(app, "document")


@run_async
async def test_a_tab_in_a_burst_moves_the_keys_after_it_to_the_next_field(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q004")
        app.screen.query_one("#form-query").value = ""
        await settle(pilot)
        await burst(pilot, "a", "b", "tab", "c", "d")
        draft = app.session.drafts["q004"]
        assert (draft.query, draft.expected_answer) == ("ab", "cd")


@run_async
async def test_ctrl_s_in_a_burst_saves_the_text_typed_before_it(small):
    """Ctrl+S is a priority binding: it ran while the keys typed just before it still waited
    for the field, and saved the record without them (left unsaved, the file one edit behind)."""
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q004")
        app.screen.query_one("#form-query").focus()
        await pilot.press("end")
        await burst(pilot, "?", "!", "ctrl+s")
        await settle(pilot)
        assert not app.session.dirty
    lines = (small / "golden" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    saved = {r["id"]: r for r in (json.loads(line) for line in lines if line.startswith("{"))}
    assert saved["q004"]["query"] == "What is the office wifi password??!"


@pytest.mark.parametrize("where", ["question list", "author screen"])
@run_async
async def test_keys_right_after_ctrl_n_reach_the_new_form(small, where):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        if where == "author screen":
            await open_record(pilot, "q001")
            app.screen.query_one(DocumentView).focus()
            await settle(pilot)
        before = set(app.session.drafts)
        await burst(pilot, "ctrl+n", "h", "i")
        (new,) = set(app.session.drafts) - before
        assert app.session.drafts[new].query == "hi"


@run_async
async def test_a_bracketed_paste_lands_in_the_focused_field_whole(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_record(pilot, "q004")
        app.screen.query_one("#form-query").value = ""
        await settle(pilot)
        app.post_message(events.Paste("Where is the wifi\x1b]52;c;x\x07 password?"))
        app.post_message(events.Key("tab", "\t"))
        app.post_message(events.Paste("Nowhere.\nNot in the corpus."))
        await settle(pilot)
        draft = app.session.drafts["q004"]
        # kept as pasted, the control characters too (shown as stand-ins, never sent to the terminal)
        assert draft.query == "Where is the wifi\x1b]52;c;x\x07 password?"
        assert draft.expected_answer == "Nowhere.\nNot in the corpus."
        await pilot.press("ctrl+f")
        await settle(pilot)
        app.post_message(events.Paste("on-call pages"))
        await settle(pilot)
        assert app.screen.query_one("#search-input").value == "on-call pages"
        assert app.screen.query_one("#search-hits").option_count > 0


SHOTS = ["query and answer", "hits", "selected", "resolution"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
def test_author_loop_snapshot(snapshot, small, size):
    """The author screen at four steps of the loop of ``write_label``, pictured in one walk (a
    walk a picture replayed every step before it: twice the CPU). Each picture is taken as
    pytest-textual-snapshot takes one — the app run headless by ``App.run``, pauses and the
    scheduled animations waited for, ``export_screenshot`` — with every cursor steady, so that
    the picture never depends on the clock; stored one file a step, as that plugin stores them."""
    app = make_app(small)
    shots: dict[str, str] = {}

    async def walk(pilot):
        async def checks(step: str) -> None:
            if step not in SHOTS:
                return
            await settle(pilot)
            for widget in pilot.app.screen.query("Input, TextArea"):
                widget.cursor_blink = False  # a blinking cursor would make the picture depend on the clock
            await pilot.pause()
            await pilot.pause()  # then as take_svg_screenshot waits
            await pilot.wait_for_scheduled_animations()
            await pilot.pause()
            await pilot.pause()
            await pilot.wait_for_scheduled_animations()
            shots[step] = app.export_screenshot(title=app.title, simplify=True)

        await write_label(pilot, checks)
        app.exit()

    app.run(headless=True, size=size, auto_pilot=walk)
    assert list(shots) == SHOTS
    pictures = snapshot.use_extension(SVGImageExtension)
    for step in SHOTS:
        assert shots[step] == pictures(name=step), step
