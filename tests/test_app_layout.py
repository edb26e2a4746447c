"""Any terminal from 80×24 up: the corpus pane sits beside the document only where it fits
(F9 flips it; at narrow widths F9 opens it as a full-width view), the document keeps a readable width, and every footer key stays on screen
(wrapped onto more rows instead of cut off). Pictures of the author screen and the
question list at 80×24, 100×30 and 160×48 (pytest-textual-snapshot).

Issue 38's "80×24 that breathes", asserted on what is drawn: below 100 columns the record has
the whole width while one of its fields has the focus (the document back beside it with Esc,
the labels then above the fields); the record's status is a line of its own, wrapped, never cut;
the question list shows at least 12 rows; F1 is a table of one line per key inside the screen."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

import json

from helpers_app import (make_app, on_screen, open_record, run_async, settle, small,  # noqa: F401 (a fixture)
                         type_into, write_small_project)
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widgets.preview import EMPTY_LOCATOR
from labeller.app.widths import SIDE_PANE, width_class

SIZES = [(80, 24), (100, 30), (160, 48)]
READABLE = 44  # the document's minimum width (labeller.tcss)


def screen_lines(screen, region=None) -> list[str]:
    """The screen's rows as the terminal shows them (within ``region``, if given)."""
    strips = screen._compositor.render_strips()
    if region is None:
        return [strip.text for strip in strips]
    return [strips[y].text[region.x:region.right] for y in range(region.y, region.bottom)]


def drawn(screen, text: str) -> bool:
    """``text`` is on one row of the screen, whole."""
    return any(text in line for line in screen_lines(screen))


def keys_on_screen(screen) -> tuple[int, int]:
    """(keys in the key bar, keys wholly inside the screen)."""
    keys = list(screen.query_one(KeyBar).query(FooterKey))
    inside = [k for k in keys if k.region.width > 0 and screen.region.contains_region(k.region)]
    return len(keys), len(inside)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_the_author_screen_fits(small, size):
    app = make_app(small)
    cls = width_class(size[0])
    async with app.run_test(size=size) as pilot:
        await open_record(pilot, "q001")
        screen = app.screen
        right = screen.query_one("#right")
        if cls == "narrow":  # the query has the focus: the record alone, the whole width
            assert not screen.query_one(DocumentView).display and right.region.width == size[0]
            await pilot.press("escape")  # to the document: beside the record again
            await settle(pilot)
            assert screen.query_one(DocumentView).display and right.region.width < size[0] // 2
        assert screen.query_one(DocumentView).size.width >= READABLE - 2  # inside its border
        assert screen.query_one("#left").display == SIDE_PANE.get(cls, False)
        shown, inside = keys_on_screen(screen)
        assert shown >= 5 and inside == shown
        await pilot.press("f9")  # the toggle, whatever the width
        await settle(pilot)
        if cls in SIDE_PANE:  # the side pane flips; the document and the record stay readable
            assert screen.query_one("#left").display == (not SIDE_PANE[cls])
            assert screen.query_one(DocumentView).size.width >= READABLE - 2
            assert screen.region.contains_region(screen.query_one("#right").region)
        else:  # no room beside the document: the corpus view, full width, in its place
            assert screen.query_one("#left").size.width == size[0]
            assert not screen.query_one(DocumentView).display and not screen.query_one("#right").display


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@run_async
async def test_every_key_of_the_question_list_is_on_screen(small, size):
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        shown, inside = keys_on_screen(app.screen)
        assert shown >= 5 and inside == shown


def snap(snap_compare, root, size, steps=None):
    async def run_before(pilot):
        await settle(pilot)
        if steps is not None:
            await steps(pilot)
            await settle(pilot)
        for widget in pilot.app.screen.query("Input, TextArea"):
            widget.cursor_blink = False
        await pilot.pause()

    return snap_compare(make_app(root), terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_author_snapshot(snap_compare, small, size):
    async def steps(pilot):
        pilot.app.open_record("q001")

    assert snap(snap_compare, small, size, steps)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_questions_snapshot(snap_compare, small, size):
    assert snap(snap_compare, small, size)


def test_help_snapshot_80x24(snap_compare, small):
    async def steps(pilot):
        await pilot.press("f1")

    assert snap(snap_compare, small, (80, 24), steps)


def long_list(tmp_path):
    """The small project with 30 more questions: a list longer than any screen."""
    root = write_small_project(tmp_path / "proj")
    qpath = root / "golden" / "questions.jsonl"
    extra = [json.dumps({"id": f"q{i:03d}", "query": f"Question number {i}?", "expected_answer": "",
                         "locators": [], "unanswerable": True}) for i in range(5, 35)]
    qpath.write_text(qpath.read_text(encoding="utf-8") + "".join(line + "\n" for line in extra), encoding="utf-8")
    return root


@run_async
async def test_the_question_list_shows_twelve_rows_at_80x24(tmp_path):
    app = make_app(long_list(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one("#questions")
        ids = [line.split()[1] for line in screen_lines(app.screen, table.region)
               if line.startswith("│ q0") and len(line.split()) > 1]
        assert len(ids) >= 12, screen_lines(app.screen)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@run_async
async def test_a_new_record_reads_whole(small, size):
    """ctrl+n: the fields' placeholders, the empty locator's hint and the status line are drawn
    whole; then a long status (what the empty locator needs) wraps in its line instead of being cut."""
    app = make_app(small)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+n")
        await settle(pilot)
        screen = app.screen
        for field in ("#form-query", "#loc-quote", "#loc-doc"):
            widget = screen.query_one(field)
            assert drawn(screen, widget.placeholder), (field, screen_lines(screen))
        hint = EMPTY_LOCATOR.replace("[b]", "").replace("[/b]", "")
        preview = screen.query_one("#preview-status")
        assert on_screen(preview) and hint in " ".join(line.strip() for line in screen_lines(screen, preview.region))
        await type_into(pilot, "#form-query", "Where is it?")  # the next problem: the empty locator's, long
        await settle(pilot)
        status = screen.query_one("#record-status")
        rows = [line.strip() for line in screen_lines(screen, status.content_region)]
        if size[0] == 80:
            assert len(screen.status_text) > size[0] - 2 and len(rows) > 1, screen.status_text  # wrapped
        assert " ".join(rows) == screen.status_text and "…" not in screen.status_text
        assert on_screen(status)


@run_async
async def test_help_is_one_line_per_key_inside_80x24(small):
    app = make_app(small)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("f1")
        await settle(pilot)
        screen = app.screen
        dialog = screen.query_one(".dialog")
        assert screen.region.contains_region(dialog.region)
        lines = [line.strip() for line in screen_lines(screen, screen.query_one("#help-scroll").content_region)]
        rows = [row for _, group in app.help_groups() for row in group]
        page = [row for row in rows if any(line.startswith(row[0]) and line.endswith(row[2]) for line in lines)]
        assert len(page) >= 12, lines  # a page holds a dozen keys or more, each on one line: key … id
