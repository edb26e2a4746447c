"""The document view's own wrap (issue 26.1) is the one it had as Textual's TextArea.

``labeller/app/widgets/line_table.py`` wraps the view's lines itself (the view is a
``ScrollView`` on public Textual API): ``wrap_offsets`` and its fast path for lines of one-cell
characters (``one_cell_wrap_offsets``, ``ONE_CELL``) must break every line where Textual 8's
TextArea broke it, and the table's rows, cells and cursor moves must be the TextArea's. Textual's
own wrap (``textual._wrap``, ``textual.document._*``) is the oracle here, in the tests only: the
product reaches no Textual private. The app tests then check, in a long document whose lines
wrap, that what is drawn and what a drag selects agree with that same reference, and, beside
a real read-only ``TextArea`` showing the same text, that every key moves the cursor alike and
every row is drawn with the same text.
"""

from __future__ import annotations

import json
import random

import pytest
from textual._wrap import compute_wrap_offsets
from textual.app import App, ComposeResult
from textual.document._document import Document as TextDocument
from textual.document._document_navigator import DocumentNavigator
from textual.document._wrapped_document import WrappedDocument
from textual.expand_tabs import get_tab_widths
from textual.geometry import Offset
from textual.widgets import TextArea

from helpers_app import make_app, open_record, run_async, settle
from labeller.app.widgets import document_view
from labeller.app.widgets.document_view import GUTTER_MARK, TAB_SIZE, DocumentView, Mark
from labeller.app.widgets.line_table import ONE_CELL, LineTable, one_cell_wrap_offsets, tab_widths, wrap_offsets
from labeller.core.corpus import make_document

# every kind of line the fast paths tell apart: fits / wraps, ASCII / wide / zero-width,
# tabs, words longer than a row, leading and trailing blanks, empty lines
HOSTILE = "\n".join([
    "",
    "short line",
    "a line of ordinary words that is certainly longer than a narrow view is wide, twice over at least",
    "x" * 130,
    "   leading blanks then words that run on past the edge of the row and further still",
    "trailing blanks" + " " * 70,
    "\tindented by a tab, then words enough to wrap at a narrow width as well",
    "col\tcol\tcol\t\tcol",
    "表格の中の長い日本語の行は二つのセルを使うので早く折り返される必要があります。" * 2,
    "emoji 🙂🙂🙂 and accents éèê and combining e\u0301 marks, long enough to wrap somewhere",
    "exactly" + "-" * 51,
    " ",
    "",
    "last",
])


@pytest.mark.parametrize("width", [0, 1, 2, 7, 20, 58, 200])
@pytest.mark.parametrize("tab_size", [4, 8])
def test_every_line_breaks_and_every_row_is_textuals(width, tab_size):
    # a line of several tabs is where the wrap leaves Textual's: see the test below
    lines = [line for line in HOSTILE.split("\n") if line.count("\t") < 2]
    text = "\n".join(lines)
    ours, theirs = LineTable(lines, width, tab_size), WrappedDocument(TextDocument(text), width, tab_size)
    for i, line in enumerate(lines):
        if width:
            expected = compute_wrap_offsets(line, width, tab_size, precomputed_tab_sections=get_tab_widths(line, tab_size))
            assert wrap_offsets(line, width, tab_widths(line, tab_size)) == expected, (i, width)
        assert ours.breaks(i) == theirs.get_offsets(i), i
    assert ours.height == theirs.height
    for y in range(theirs.height):
        assert ours.row_info(y) == theirs._offset_to_line_info[y], y
    # cells: Textual expands a tab from its row's start when placing the cursor but from the
    # line's start when drawing; ours is the drawing's everywhere, so compare lines without tabs
    for y in range(theirs.height + 2):  # past the end too: both clamp to the last row
        for x in (0, 3, 40):
            line, _ = ours.row_info(y)
            if "\t" not in lines[line]:
                assert ours.offset_to_location(Offset(x, y)) == theirs.offset_to_location(Offset(x, y)), (x, y)
    for row, line in enumerate(lines):
        if "\t" not in line:
            for col in range(len(line) + 1):
                assert ours.location_to_offset((row, col)) == theirs.location_to_offset((row, col)), (row, col)


def test_a_word_wider_than_a_row_measures_each_tab_where_it_is():
    """Where the view leaves Textual's wrap on purpose: cutting a chunk wider than a row,
    Textual measures the chunk's tabs as the line's first tabs (its index starts at the
    line's first tab), so a row could run past the width. ``col\tcol\tcol\t\tcol`` at width
    7, tab stops every 4 cells: ``col\t`` fills cells 0-4; the next ``col\t`` (to cell 8)
    does not fit, row 2 starts at column 4; ``col\t\t`` (cells 8-16) is wider than a row,
    so it starts row 3 at column 8 and is cut: ``col\t`` reaches cell 12, the second tab
    (4 cells more) starts row 4 at column 12, where ``\tcol`` takes 4 + 3 = 7 cells."""
    line = "col\tcol\tcol\t\tcol"
    assert tab_widths(line, 4) == [1, 1, 1, 4]
    assert wrap_offsets(line, 7, tab_widths(line, 4)) == [4, 8, 12]
    assert compute_wrap_offsets(line, 7, 4) == [4, 8, 13], "Textual's; if this changes, compare again"


@pytest.mark.parametrize("width", [7, 20, 58])
def test_cursor_moves_are_textuals(width):
    """Up, down, home, end, left, right from every location of the tab-free lines, as
    Textual's navigator moves a TextArea's cursor (up/down from a cursor put there, so the
    remembered cell is its own)."""
    lines = HOSTILE.split("\n")
    ours = LineTable(lines, width, TAB_SIZE)
    wrapped = WrappedDocument(TextDocument(HOSTILE), width, TAB_SIZE)
    nav = DocumentNavigator(wrapped)
    for row, line in enumerate(lines):
        if "\t" in line:
            continue
        for col in range(len(line) + 1):
            at = (row, col)
            nav.last_x_offset = ours.location_to_offset(at).x
            remembered = nav.last_x_offset
            if "\t" not in lines[max(0, row - 1)]:
                assert ours.vertical(at, -1, remembered) == nav.get_location_above(at), at
            if "\t" not in lines[min(len(lines) - 1, row + 1)]:
                assert ours.vertical(at, 1, remembered) == nav.get_location_below(at), at
            assert ours.home(at) == nav.get_location_home(at, smart_home=True), at
            assert ours.end(at) == nav.get_location_end(at), at
            assert ours.left(at) == nav.get_location_left(at), at
            assert ours.right(at) == nav.get_location_right(at), at


@pytest.mark.parametrize("alphabet", ["abcdefghij KLMNOP.,-   ", "aéßøŁź ÆÑ ΩλЖщ.,-   ", "ab  "])
def test_one_cell_wraps_are_textuals(alphabet):
    rng = random.Random(17)
    cases = [("", 5), ("word", 4), ("word", 3), (" " * 12, 5), ("a " * 40, 9), ("x" * 25 + " yy", 10),
             ("trailing blanks" + " " * 70, 58), ("   leading blanks then words", 7), ("ab   cd", 3)]
    for _ in range(20_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 160)))
        if rng.random() < 0.2:
            line = "z" * rng.randint(1, 90) + line
        if rng.random() < 0.1:
            line += " " * rng.randint(1, 90)
        cases.append((line, rng.choice([1, 2, 3, 5, 8, 13, 40, 58, 80])))
    for line, width in cases:
        assert ONE_CELL.issuperset(line)
        assert one_cell_wrap_offsets(line, width) == compute_wrap_offsets(line, width, 4), (line, width)


def test_every_one_cell_character_wraps_as_textual_wraps_it():
    """Lines drawn from the whole of ``ONE_CELL`` (each character in some thousand places):
    a character Textual measured as other than one cell, or split words at, would show."""
    rng = random.Random(18)
    alphabet = sorted(ONE_CELL) + [" "] * 200
    for _ in range(5_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        width = rng.choice([1, 2, 5, 13, 58, 80])
        assert one_cell_wrap_offsets(line, width) == compute_wrap_offsets(line, width, 4), (line, width)
    assert not ONE_CELL & set("\t\n\x7f\xa0\u00ad\u0301\u2028表🙂\u200b"), "wide, zero-width or another blank"
    assert set("aé ßΩЖ.") <= ONE_CELL


def test_wide_and_mixed_lines_wrap_as_textual_wraps_them():
    """The general rule (not the one-cell fast path) on random lines of wide, zero-width and
    one-cell characters, blanks and tabs."""
    rng = random.Random(19)
    alphabet = list("ab cd  表格の🙂é\u0301\u200b-") + ["\t"]
    for _ in range(5_000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 120)))
        width = rng.choice([2, 3, 5, 13, 40])
        if line.count("\t") > 1:
            continue  # see test_a_word_wider_than_a_row_measures_each_tab_where_it_is
        expected = compute_wrap_offsets(line, width, 4, precomputed_tab_sections=get_tab_widths(line, 4))
        assert wrap_offsets(line, width, tab_widths(line, 4)) == expected, (line, width)


# -- in the app -------------------------------------------------------------------------------

TARGET = "the unmistakable target phrase of this manual"
OTHER = "a phrase another record labels"


def long_document() -> str:
    """About 3,000 lines, a third of them wrapping, with tabs and wide characters; the
    target phrase sits far down, on a wrapped continuation row of a long paragraph."""
    lines = []
    for i in range(3000):
        if i % 9 == 0:
            lines += [f"## Section {i}", ""]
        elif i % 3 == 1:
            lines.append(f"Paragraph {i} runs on " + " ".join(f"word{i}x{k}" for k in range(18)) + ".")
        elif i % 17 == 2:
            lines.append(f"\tcode {i}\tvalue {i}")
        elif i % 19 == 3:
            lines.append(f"幅の広い文字 {i} の行は長くて二つのセルを使います、だから早く折り返します。")
        else:
            lines.append(f"Line {i} of the manual.")
    lines[2400] = "A long paragraph opens " + "with filler words " * 6 + TARGET + " and goes on a little."
    lines[2300] = f"Somewhere above, {OTHER}."
    return "\n".join(lines) + "\n"


@pytest.fixture
def long_project(tmp_path):
    root = tmp_path / "proj"
    (root / "corpus").mkdir(parents=True)
    (root / "corpus" / "manual.md").write_text(long_document(), encoding="utf-8", newline="")
    (root / "corpus" / "short.md").write_text("# Short\n\nA short page.\n", encoding="utf-8", newline="")
    (root / "golden").mkdir()
    records = [
        {"id": "q001", "query": "Where is the target?", "expected_answer": "In the manual.",
         "locators": [{"doc": "manual.md", "quote": TARGET}]},
        {"id": "q002", "query": "What does the other record label?", "expected_answer": "A phrase.",
         "locators": [{"doc": "manual.md", "quote": OTHER}]},
    ]
    (root / "golden" / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records),
                                                     encoding="utf-8")
    return root


def drawn_row(view: DocumentView, location: tuple[int, int]) -> tuple[int, int]:
    """Where Textual's own wrap of the view's text puts ``location``: (x, y) in the view."""
    reference = WrappedDocument(TextDocument(view.text), view.wrap_width, TAB_SIZE)
    at = reference.location_to_offset(location)
    return at.x + view.gutter_width, at.y - view.scroll_offset.y


@run_async
async def test_a_long_wrapped_document_draws_marks_and_selects_where_textual_would(long_project):
    app = make_app(long_project)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_record(pilot, "q001")
        view = app.screen.query_one(DocumentView)
        assert view.doc is not None and view.doc.doc_id == "manual.md"
        start = view.doc.text.index(TARGET)
        row, col = view.location_of(start)
        assert row == 2400
        assert view.wrap_width < len(view.text.split("\n")[row]), "the target's line must wrap for this test"
        # the span is scrolled into view and drawn, with the match style, where Textual puts it
        x, y = drawn_row(view, (row, col))
        assert 0 <= y < view.size.height
        strip = view.render_line(y)
        assert TARGET.split()[0] in strip.text[x:]
        match = view._style("match")
        styled = [seg for seg in strip if seg.text.strip() and seg.style and match.bgcolor
                  and seg.style.bgcolor == match.bgcolor]
        assert styled and "".join(seg.text for seg in styled).strip() in TARGET
        # the other record's label: the first row of each line its span covers carries the
        # gutter mark, continuation rows and other lines do not (rows as Textual wraps them)
        span = app.session.result("q002").spans[0]
        labelled = set(range(view.doc.line_of(span.start), view.doc.line_of(span.end - 1) + 1))
        other_row, _ = view.location_of(view.doc.text.index(OTHER))
        view.go_to_line(other_row + 1)
        await settle(pilot)
        _, gy = drawn_row(view, (other_row, 0))
        assert 0 <= gy < view.size.height and str(other_row + 1) in view.render_line(gy).text[:view.gutter_width]
        reference = WrappedDocument(TextDocument(view.text), view.wrap_width, TAB_SIZE)
        for r in range(view.size.height):
            line, section = reference._offset_to_line_info[r + view.scroll_offset.y]
            marked = GUTTER_MARK in view.render_line(r).text[:view.gutter_width]
            assert marked == (section == 0 and line in labelled), (r, line, section)
        # find lands on the target's offsets
        assert view.find(TARGET[:20]) == (start, start + 20)
        await settle(pilot)
        # a drag from the second "filler" to the end of the target, over several wrapped
        # rows, selects exactly that range, and the record's quote becomes it
        first = view.doc.text.index("filler", view.doc.text.index("filler", start - 200) + 1)
        end = start + len(TARGET)
        (x0, y0), (x1, y1) = drawn_row(view, view.location_of(first)), drawn_row(view, view.location_of(end))
        assert 0 <= y0 < y1 < view.size.height
        dx, dy = view.content_region.x - view.region.x, view.content_region.y - view.region.y  # border, padding
        await pilot.mouse_down(view, offset=(x0 + dx, y0 + dy))
        await pilot.hover(view, offset=(x1 + dx, y1 + dy))
        await pilot.mouse_up(view, offset=(x1 + dx, y1 + dy))
        await settle(pilot)
        assert view.selected_offsets() == (first, end)
        assert app.session.draft("q001").locators[0].quote == view.doc.text[first:end]


@run_async
async def test_a_long_document_is_wrapped_once_at_the_width_it_is_shown_at(long_project, monkeypatch):
    """The first open of a long document in a fresh app: one wrap, beside the scrollbar that
    the text brings (not once without it and again when it appears), and the rows are those
    Textual gives at the width the view ends up with."""
    wraps: list[int] = []

    class Counted(LineTable):
        def __init__(self, lines, width, tab_size, **kwargs):
            super().__init__(lines, width, tab_size, **kwargs)
            if len(lines) > 100:
                wraps.append(width)

    monkeypatch.setattr(document_view, "LineTable", Counted)
    app = make_app(long_project)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_record(pilot, "q001")
        view = app.screen.query_one(DocumentView)
        assert view.doc is not None and view.doc.doc_id == "manual.md" and view.show_vertical_scrollbar
        assert wraps == [view.wrap_width]
        reference = WrappedDocument(TextDocument(view.text), view.wrap_width, TAB_SIZE)
        assert [view.wrapped_document.row_info(y) for y in range(reference.height)] == reference._offset_to_line_info
        assert view.virtual_size.height == reference.height


# -- beside Textual's read-only TextArea, which the view was ----------------------------------

SIDE_BY_SIDE = "\n".join([
    "# A heading",
    "",
    "A paragraph long enough to wrap twice in a narrow view, with words of every length: "
    "a, an, the, internationalisation, and so on until the row is full.",
    "表格の中の長い日本語の行は二つのセルを使うので早く折り返される必要があります。",
    "separators\u2028inside\u2029a line stay in it",
    "    indented   blanks   ",
    "x" * 90,
    "",
    "last line",
])
KEY_WALK = ["down", "down", "end", "down", "shift+down", "shift+right", "left", "up", "ctrl+right", "ctrl+right",
            "shift+end", "home", "ctrl+left", "down", "down", "down", "home", "home", "end", "right", "right",
            "pagedown", "up", "ctrl+shift+left", "f6", "down", "f7", "right", "pageup"]


class SideBySide(App):
    """The view and a read-only TextArea of the same text, in boxes of the same size."""

    CSS = ("Horizontal { height: 1fr; } DocumentView, TextArea { width: 1fr; height: 1fr; border: round $primary; "
           "padding: 0 1; }")

    def __init__(self) -> None:
        super().__init__()
        self.selected: list[tuple[int, int]] = []

    def on_document_view_selected(self, event: DocumentView.Selected) -> None:
        self.selected.append((event.start, event.end))

    def compose(self) -> ComposeResult:
        from textual.containers import Horizontal

        with Horizontal():
            yield DocumentView()
            yield TextArea(read_only=True, show_line_numbers=True, soft_wrap=True, highlight_cursor_line=False)


@run_async
async def test_keys_rows_and_selections_are_the_read_only_textareas():
    """Every key of a walk moves the cursor and the selection as the TextArea moves its own,
    every row is drawn with the same text (line numbers, wrap, the blank a cursor rests on),
    and a selection leaves as a ``Selected`` message with canonical offsets."""
    app = SideBySide()
    doc = make_document("side.md", SIDE_BY_SIDE)
    async with app.run_test(size=(100, 16)) as pilot:
        view, area = app.query_one(DocumentView), app.query_one(TextArea)
        view.show_document(doc, dict, [])
        area.load_text(view.text)
        await pilot.pause()
        assert view.wrap_width == area.wrap_width and view.gutter_width == area.gutter_width
        for key in KEY_WALK:
            for widget in (view, area):
                widget.focus()
                await pilot.press(key)
            await pilot.pause()
            assert tuple(view.selection) == tuple(area.selection), key
            assert view.scroll_offset == area.scroll_offset, key
            assert [view.render_line(y).text for y in range(view.size.height)] == [
                area.render_line(y).text for y in range(area.size.height)], key
        await pilot.pause()
        assert app.selected and all(doc.text[a:b].strip() for a, b in app.selected)
        assert (0, len(doc.text)) in app.selected, "f7 selects the whole text"


@run_async
async def test_drawn_rows_are_kept_until_what_they_show_changes():
    """The LRU of drawn rows: drawing a row again gives the kept strip; a new mark, a
    selection over the row, or another width draws it anew."""
    app = SideBySide()
    doc = make_document("side.md", SIDE_BY_SIDE)
    async with app.run_test(size=(100, 16)) as pilot:
        view = app.query_one(DocumentView)
        view.show_document(doc, dict, [])
        await pilot.pause()
        first = view.render_line(2)
        assert view.render_line(2) is first
        view.set_marks([Mark(doc.text.index("paragraph"), doc.text.index("paragraph") + 9, "match")])
        marked = view.render_line(2)
        assert marked is not first and marked.text == first.text
        view.select_offsets(doc.text.index("long"), doc.text.index("long") + 4)
        assert view.render_line(2) is not marked
        await pilot.resize_terminal(80, 16)
        await pilot.pause()
        assert view.render_line(2).text != first.text
