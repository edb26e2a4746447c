"""The document view's own wrap (issue 17.7: a 1 MB document opens in well under 300 ms).

``SizedWrappedDocument`` replaces Textual's ``WrappedDocument.wrap`` by one that keeps only
the special lines and works Textual's row tables out on access, and ``one_cell_wrap_offsets``
replaces Textual's ``compute_wrap_offsets`` for lines of one-cell characters (``ONE_CELL``).
Both must give Textual's answer exactly, entry by entry: the highlight, the gutter marks,
find, go to line, scrolling to a span and a mouse selection all go through those tables. The
app test then checks, in a long document whose lines wrap, that what is drawn and what a drag selects
agree with Textual's own wrap of the same text.
"""

from __future__ import annotations

import json
import random

import pytest
from textual._wrap import compute_wrap_offsets
from textual.document._document import Document as TextDocument
from textual.document._wrapped_document import WrappedDocument
from textual.geometry import Offset

from helpers_app import make_app, open_record, run_async, settle
from labeller.app.widgets.document_view import GUTTER_MARK, DocumentView
from labeller.app.widgets.textual_adapter import ONE_CELL, SizedWrappedDocument, one_cell_wrap_offsets

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
TABLES = ("_wrap_offsets", "_tab_width_cache", "_line_index_to_offsets", "_offset_to_line_info")


@pytest.mark.parametrize("width", [0, 1, 2, 7, 20, 58, 200])
@pytest.mark.parametrize("tab_width", [4, 8])
def test_every_table_entry_is_textuals(width, tab_width):
    doc = TextDocument(HOSTILE)
    ours, theirs = SizedWrappedDocument(doc, width, tab_width), WrappedDocument(doc, width, tab_width)
    for name in TABLES:
        assert list(getattr(ours, name)) == getattr(theirs, name), name
        assert getattr(ours, name)[-1] == getattr(theirs, name)[-1], name
        with pytest.raises(IndexError):
            getattr(ours, name)[len(getattr(theirs, name))]
    assert ours.height == theirs.height and ours.wrapped == theirs.wrapped
    for y in range(theirs.height + 2):  # past the end too: Textual clamps to the last row
        for x in (0, 3, 40):
            assert ours.offset_to_location(Offset(x, y)) == theirs.offset_to_location(Offset(x, y)), (x, y)
    for row, line in enumerate(doc.lines):
        assert ours.get_sections(row) == theirs.get_sections(row)
        for col in range(len(line) + 1):
            assert ours.location_to_offset((row, col)) == theirs.location_to_offset((row, col)), (row, col)


def test_a_rewrap_follows_the_width_and_an_edit():
    doc = TextDocument(HOSTILE)
    ours = SizedWrappedDocument(doc, 20, 4)
    ours.wrap(58)  # another width: new rows
    assert list(ours._offset_to_line_info) == WrappedDocument(doc, 58, 4)._offset_to_line_info
    ours.wrap(58)  # the same width: kept
    doc.replace_range((1, 0), (1, 5), "a much longer replacement that wraps at fifty-eight columns, surely it does")
    ours.wrap_range((1, 0), (1, 5), (1, 76))
    assert list(ours._offset_to_line_info) == WrappedDocument(doc, 58, 4)._offset_to_line_info


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
    reference = WrappedDocument(TextDocument(view.text), view.wrap_width, view.indent_width)
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
        assert view.wrap_width < len(view.document[row]), "the target's line must wrap for this test"
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
        reference = WrappedDocument(TextDocument(view.text), view.wrap_width, view.indent_width)
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
    wraps: list[tuple[int, int]] = []
    wrap = SizedWrappedDocument.wrap

    def counted(self, width, tab_width=None):
        before = self._wrapped_at
        wrap(self, width, tab_width)
        if self._wrapped_at != before and self.document.line_count > 100:
            wraps.append(self._wrapped_at)

    monkeypatch.setattr(SizedWrappedDocument, "wrap", counted)
    app = make_app(long_project)
    async with app.run_test(size=(120, 36)) as pilot:
        await open_record(pilot, "q001")
        view = app.screen.query_one(DocumentView)
        assert view.doc is not None and view.doc.doc_id == "manual.md" and view.show_vertical_scrollbar
        assert wraps == [(view.wrap_width, view.indent_width)]
        reference = WrappedDocument(TextDocument(view.text), view.wrap_width, view.indent_width)
        assert list(view.wrapped_document._offset_to_line_info) == reference._offset_to_line_info
        assert view.virtual_size.height == reference.height
