"""Any terminal from 80×24 up: the corpus pane sits beside the document only where it fits
(F9 flips it; at narrow widths F9 opens it as a full-width view), the document keeps a readable width, and every footer key stays on screen
(wrapped onto more rows instead of cut off). Pictures of the author screen and the
question list at 80×24, 100×30 and 160×48 (pytest-textual-snapshot)."""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from helpers_app import make_app, open_record, run_async, settle, small  # noqa: F401 (small: a fixture)
from labeller.app.widgets.document_view import DocumentView
from labeller.app.widgets.key_bar import KeyBar
from labeller.app.widths import SIDE_PANE, width_class

SIZES = [(80, 24), (100, 30), (160, 48)]
READABLE = 44  # the document's minimum width (labeller.tcss)


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
