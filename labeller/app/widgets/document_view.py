"""The document view: a document's canonical text, read-only, where a selection is an anchor.

Offsets are the core's: code-point indices into the canonical text. Textual's TextArea
splits its text with ``str.splitlines()``, which also breaks at U+2028, U+2029, form
feeds, vertical tabs and other separators that canonical text keeps *inside* a line, so
its (row, column) locations would drift from canonical lines. We therefore show a
display copy in which every such character (and every other control character) is
replaced by one visible stand-in of the same length: the TextArea's rows are then
exactly the canonical text's LF-separated lines and its columns are code points, and
(row, column) maps to an offset through our own line table. The replacement also keeps
escape sequences in a document from acting on the terminal.

The widget only shows: structure styles and marks arrive as ranges computed elsewhere,
and a selection leaves as a ``Selected`` message with canonical offsets.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import accumulate
from typing import TypeVar, overload

from rich.cells import cell_len, get_character_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual._wrap import compute_wrap_offsets
from textual.document._document import Document as TextDocument
from textual.document._document_navigator import DocumentNavigator
from textual.document._wrapped_document import WrappedDocument
from textual.expand_tabs import get_tab_widths
from textual.geometry import Offset
from textual.strip import Strip
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from labeller.core.chunkers import Chunk
from labeller.core.corpus import Document
from labeller.app.widgets.markup import display_text, visible_line

def line_starts(text: str) -> list[int]:
    """Offsets where each line starts, splitting on LF only (the TextArea's rows, given
    ``display_text``), including the empty line after a final LF."""
    starts = [0]
    pos = text.find("\n")
    while pos != -1:
        starts.append(pos + 1)
        pos = text.find("\n", pos + 1)
    return starts


def find_in(text: str, needle: str, offset: int, forward: bool = True) -> int | None:
    """Where ``needle`` occurs in ``text`` ignoring case: the first start at or after
    ``offset`` going forward, the last start before it going back, wrapping around.
    (``str.lower`` almost always keeps lengths; where it does not, case counts.)"""
    hay, pin = text.lower(), needle.lower()
    if len(hay) != len(text) or len(pin) != len(needle):
        hay, pin = text, needle
    if forward:
        at = hay.find(pin, offset)
        at = hay.find(pin) if at == -1 else at
    else:
        at = hay.rfind(pin, 0, offset - 1 + len(pin)) if offset > 0 else -1
        at = hay.rfind(pin) if at == -1 else at
    return None if at == -1 else at


@dataclass(frozen=True)
class Mark:
    """A highlighted range of canonical offsets, drawn with the component class ``kind``
    (``chunk``, ``other``, ``span``, ``occurrence``, ``match``, ``hit``)."""

    start: int
    end: int
    kind: str


T = TypeVar("T")

GUTTER_MARK = "▐"  # in the gutter: another record's label covers this line

# Later marks are drawn over earlier ones.
MARK_ORDER = ("chunk", "other", "hit", "span", "occurrence", "match")


# Characters one cell wide that Textual's wrap treats like any printable ASCII letter (or, the
# space, as the one blank): Latin with its accents, Greek and Cyrillic. A line made of these
# alone is wrapped by ``one_cell_wrap_offsets``; tests/test_app_document_wrap.py holds that
# equal to Textual's ``compute_wrap_offsets`` on such lines.
ONE_CELL = frozenset(c for c in map(chr, range(0x20, 0x530))
                     if c.isprintable() and (c == " " or not c.isspace()) and get_character_cell_size(c) == 1)


def one_cell_wrap_offsets(line: str, width: int) -> list[int]:
    """Textual's ``compute_wrap_offsets(line, width, ...)`` for a line of ``ONE_CELL``
    characters (``width`` >= 1), many times faster: widths are then character counts and the
    only blank is the space, so a row is found with two ``rfind`` calls instead of a loop over
    its words. The rule is Textual's: the chunks of ``re_chunk`` (a word and the blanks after
    it) fill a row while they fit; one that does not starts the next row; one wider than a
    row is cut into rows of ``width`` characters, the first starting a row of its own.
    So each row ends where the last chunk that fits ends, a position ``q`` after a space and
    before a non-space; with no such position in the row, a chunk is cut there."""
    breaks: list[int] = []
    row = 0  # where the current row starts
    n = len(line)
    while n - row > width:
        end = row + width  # chunks that end at or before ``end`` fit
        blank = line.rfind(" ", row, end)
        if blank != -1 and line[blank + 1] == " ":  # blank + 1 == end: those blanks run past the row
            run = row + len(line[row:end].rstrip(" "))  # where they start
            blank = line.rfind(" ", row, run)
        row = blank + 1 if blank != -1 else end
        breaks.append(row)
    return breaks


class _Table(Sequence[T]):
    """One of ``WrappedDocument``'s tables, each entry worked out when it is read (Textual
    reads one at a time, ``[-1]`` included, and takes the length)."""

    def __len__(self) -> int:
        raise NotImplementedError

    def _entry(self, i: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, i: int) -> T: ...
    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._entry(n) for n in range(*i.indices(len(self)))]
        n = i + len(self) if i < 0 else i
        if not 0 <= n < len(self):
            raise IndexError(i)
        return self._entry(n)


class _Rows(_Table[tuple[int, int]]):
    """``_offset_to_line_info``: visual row -> (line, section of that line), found by
    bisecting the first row of each line."""

    def __init__(self, first_rows: list[int]) -> None:
        self._first = first_rows  # the first row of each line, then the height

    def __len__(self) -> int:
        return self._first[-1]

    def _entry(self, y: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._first, y) - 1
        return line, y - self._first[line]


class _LineRows(_Table[list[int]]):
    """``_line_index_to_offsets``: line -> its visual rows."""

    def __init__(self, first_rows: list[int]) -> None:
        self._first = first_rows

    def __len__(self) -> int:
        return len(self._first) - 1

    def _entry(self, i: int) -> list[int]:
        return list(range(self._first[i], self._first[i + 1]))


class _PerLine(_Table[list[int]]):
    """A table of one list per line, ``special`` where it is not ``usual(line)``:
    ``_wrap_offsets`` (no breaks) and ``_tab_width_cache`` (one section, no tab)."""

    def __init__(self, lines: list[str], special: dict[int, list[int]], usual: Callable[[str], list[int]]) -> None:
        self._lines, self._special, self._usual = lines, special, usual

    def __len__(self) -> int:
        return len(self._lines)

    def _entry(self, i: int) -> list[int]:
        found = self._special.get(i)
        return list(found) if found is not None else self._usual(self._lines[i])


class SizedWrappedDocument(WrappedDocument):
    """Textual's wrapped document, made cheap for a text that is loaded once and never edited.

    Textual's ``wrap`` builds four tables with an entry per line or per row: in a 1 MB
    document (25,000 lines) that was 0.25 s of per-line tab and width tables, and 100,000
    new lists each time, which also set off a full garbage collection of the app's heap.
    Here ``wrap`` keeps only what is special (the breaks of the lines that wrap, the tab
    widths of lines with tabs) and the first row of each line; the tables Textual reads are
    sequences that work each entry out when asked (tests/test_app_document_wrap.py holds
    every entry equal to Textual's own ``wrap``, tabs, wide characters and long words
    included). Only lines longer than the width are wrapped, those of ``ONE_CELL`` characters
    by ``one_cell_wrap_offsets``, the rest by Textual's ``compute_wrap_offsets``.

    A second ``wrap`` at the width and tab width of the last one returns at once: TextArea
    re-wraps on every resize event, and one comes each time the author screen is shown
    again, at the width it already had. An edit (TextArea's ``wrap_range``; the view makes
    none) re-wraps the whole text."""

    _wrapped_at: tuple[int, int] | None = None
    _height = 0

    @property
    def height(self) -> int:
        return self._height

    def wrap(self, width: int, tab_width: int | None = None) -> None:
        tab_width = tab_width or self._tab_width
        if self._wrapped_at == (width, tab_width):
            return
        self._width, self._tab_width = width, tab_width
        lines = self.document.lines
        breaks: dict[int, list[int]] = {}
        tabs: dict[int, list[int]] = {}
        for i in [i for i, line in enumerate(lines) if "\t" in line or width and (
                len(line) > width or not line.isascii() and cell_len(line) > width)]:
            line = lines[i]
            if ONE_CELL.issuperset(line):
                offsets = one_cell_wrap_offsets(line, width)
            else:
                sections = get_tab_widths(line, tab_width)
                tabs[i] = [w for _, w in sections]
                offsets = compute_wrap_offsets(line, width, tab_size=tab_width,
                                               precomputed_tab_sections=sections) if width else []
            if offsets:
                breaks[i] = offsets
        rows = [1] * len(lines)
        for i, offsets in breaks.items():
            rows[i] += len(offsets)
        first_rows = list(accumulate(rows, initial=0))
        # Textual declares these as lists; it only indexes them and takes their length
        self._wrap_offsets = _PerLine(lines, breaks, _no_breaks)  # type: ignore[assignment]
        self._tab_width_cache = _PerLine(lines, tabs, _untabbed)  # type: ignore[assignment]
        self._line_index_to_offsets = _LineRows(first_rows)  # type: ignore[assignment]
        self._offset_to_line_info = _Rows(first_rows)  # type: ignore[assignment]
        self._height = first_rows[-1]
        self._wrapped_at = (width, tab_width)

    def wrap_range(self, start, old_end, new_end) -> None:
        self._wrapped_at = None
        self.wrap(self._width, self._tab_width)


def _no_breaks(line: str) -> list[int]:
    return []


def _untabbed(line: str) -> list[int]:
    return [0] if line else []  # Textual's ``get_tab_widths``: one section of a tab-less line, none of ""


class DocumentView(TextArea):
    """Read-only canonical text with line numbers, Markdown structure and live marks."""

    COMPONENT_CLASSES = {f"document-view--{k}" for k in (
        *MARK_ORDER, "heading", "code", "table", "front-matter", "html", "marker", "label")}
    DEFAULT_CSS = """
    DocumentView > .document-view--label {
        color: $secondary;
        text-style: bold;
    }
    """

    class Selected(Message):
        """The author selected ``[start, end)`` of ``doc_id`` (canonical offsets)."""

        def __init__(self, doc_id: str, start: int, end: int) -> None:
            super().__init__()
            self.doc_id = doc_id
            self.start = start
            self.end = end

    def __init__(self, **kwargs) -> None:
        super().__init__("", read_only=True, show_line_numbers=True, soft_wrap=True, highlight_cursor_line=False,
                         **kwargs)
        self.doc: Document | None = None
        self._starts: list[int] = [0]
        self._structure: dict[int, list[tuple[int, int | None, str]]] = {}
        self._marks: list[Mark] = []
        self._chunks: list[Chunk] = []
        self._chunk_starts: list[int] = []
        self._styles: dict[str, Style] = {}
        self._gutter: frozenset[int] = frozenset()  # 0-based lines some other record's label covers

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.border_title = "document"

    def _theme_changed(self, _theme) -> None:
        self._styles.clear()
        self._redraw()

    # -- content ------------------------------------------------------------------------

    def show_document(self, doc: Document, structure: Callable[[], dict[int, list[tuple[int, int | None, str]]]],
                      chunks: list[Chunk]) -> None:
        """Show ``doc`` now, and its Markdown styling when ``structure()`` (which maps a 0-based
        line to (col start, col end, style) ranges) has run in a thread worker: it parses the
        whole document, which must not hold up the highlight of a quote in a large one."""
        if self.doc is not None and self.doc.doc_id == doc.doc_id and self.doc.sha256 == doc.sha256:
            return
        self.doc = doc
        self._starts = line_starts(doc.text)
        self._structure = {}
        self._chunks = list(chunks)
        self._chunk_starts = [c.start for c in self._chunks]
        self._marks = []
        self.load_text(display_text(doc.text))
        self.border_title = Content(visible_line(doc.doc_id))
        self._update_subtitle()
        self.run_worker(partial(self._load_structure, doc, structure), thread=True, group="structure",
                        exclusive=True)

    # -- what TextArea recomputes per row drawn, kept per loaded text ---------------------------
    #
    # The view never edits its text, so the whole text and the wrapped rows change only
    # when a text is loaded (or the view is re-wrapped). TextArea's ``render_line`` reads
    # ``self.text`` (a join of every line) for each row, and a plain WrappedDocument sums
    # every line for its height: per keystroke in a 1 MB document that was most of the time.
    # Loading builds a SizedWrappedDocument (above) once, at the view's width.

    _text = ""

    def load_text(self, text: str) -> None:
        super().load_text(text)
        self._text = self.document.text

    def _set_document(self, text: str, language: str | None) -> None:
        # Textual's ``_set_document`` for plain text (the view has no language), but with the
        # text wrapped once, at the width it will be shown at: Textual's is wrapped at width 0
        # when it is made, again at the view's width right after, and a third time when the
        # vertical scrollbar appears for a long text and takes its columns.
        self._highlight_query = None
        self.document = TextDocument(text)
        self.wrapped_document = SizedWrappedDocument(self.document, self._settled_wrap_width(),
                                                     tab_width=self.indent_width)
        self.navigator = DocumentNavigator(self.wrapped_document)
        self._build_highlight_map()
        self.move_cursor((0, 0))
        # Textual's ``_rewrap_and_refresh_virtual_size`` without the wrap at today's width:
        # sizing shows the scrollbar, whose watcher re-wraps at the width wrapped at above (a
        # no-op), or at the right one if the guess was wrong (a short text whose lines wrap)
        self._line_cache.clear()
        self._refresh_size()

    def _settled_wrap_width(self) -> int:
        """The wrap width once the vertical scrollbar has come or gone for the loaded text: a
        text with more lines than the view has rows always scrolls, so it is wrapped beside a
        scrollbar even when the text before it had none."""
        width = self.wrap_width
        if (width and not self.show_vertical_scrollbar and self.styles.overflow_y == "auto"
                and self.document.line_count > self.scrollable_content_region.height):
            width = max(0, width - self.styles.scrollbar_size_vertical)
        return width

    @property
    def text(self) -> str:
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self.load_text(value)

    def _load_structure(self, doc: Document, structure: Callable[[], dict]) -> None:
        styles = structure()
        self.app.call_from_thread(self._set_structure, doc, styles)

    def _set_structure(self, doc: Document, styles: dict[int, list[tuple[int, int | None, str]]]) -> None:
        if self.doc is doc:  # not an answer for a document shown before this one
            self._structure = styles
            self._redraw()

    def set_marks(self, marks: list[Mark]) -> None:
        order = {k: n for n, k in enumerate(MARK_ORDER)}
        marks = sorted(marks, key=lambda m: order.get(m.kind, 0))
        if marks != self._marks:
            self._marks = marks
            self._redraw()

    @property
    def marks(self) -> list[Mark]:
        return list(self._marks)

    def set_gutter(self, lines: frozenset[int]) -> None:
        """Mark ``lines`` (0-based) in the gutter: where other records' labels lie."""
        if lines != self._gutter:
            self._gutter = lines
            self.refresh()

    def render_line(self, y: int) -> Strip:
        # the gutter mark is drawn over TextArea's line (its cache knows nothing of it): the
        # space right after the line number becomes GUTTER_MARK on each first row of a line
        strip = super().render_line(y)
        if not self._gutter or not self.show_line_numbers or self.doc is None:
            return strip
        scroll_y = self.scroll_offset.y
        # the wrapped height as TextArea last sized it (soft wrap is always on here):
        # WrappedDocument.height sums over every line, too slow per row of a 1 MB document
        if y + scroll_y >= self.virtual_size.height:
            return strip
        row, _ = self.wrapped_document.offset_to_location(Offset(0, y + scroll_y))
        if row not in self._gutter or self.wrapped_document.location_to_offset((row, 0)).y != y + scroll_y:
            return strip  # not labelled, or a wrapped continuation row
        at = self.gutter_width - 2
        return Strip.join([strip.crop(0, at), Strip([Segment(GUTTER_MARK, self._style("label"))], 1),
                           strip.crop(at + 1, strip.cell_length)])

    def _redraw(self) -> None:
        # TextArea caches rendered lines by cursor/scroll state only; our marks are not in its
        # key, so the cache must go when they change.
        self._line_cache.clear()
        self.refresh()

    # -- offsets <-> locations ----------------------------------------------------------------

    def offset_of(self, location: tuple[int, int]) -> int:
        row, col = location
        if row >= len(self._starts):
            return len(self.doc.text) if self.doc else 0
        return self._starts[row] + col

    def location_of(self, offset: int) -> tuple[int, int]:
        row = bisect.bisect_right(self._starts, offset) - 1
        return row, offset - self._starts[row]

    def selected_offsets(self) -> tuple[int, int] | None:
        sel = self.selection
        if sel.start == sel.end or self.doc is None:
            return None
        a, b = sorted((self.offset_of(sel.start), self.offset_of(sel.end)))
        return a, b

    def reveal(self, offset: int) -> None:
        """Put the cursor (not a selection) at ``offset`` and scroll it to the middle."""
        location = self.location_of(offset)
        if self.selection != Selection.cursor(location):
            self.move_cursor(location, center=True)

    def find(self, needle: str, forward: bool = True) -> tuple[int, int] | None:
        """Select the next (or previous) occurrence of ``needle`` after (before) the cursor,
        ignoring case, wrapping at the end; its offsets, or ``None`` when it is nowhere. The
        selection is the view's own (``quiet``): finding text is not choosing a quote."""
        if self.doc is None or not needle:
            return None
        sel = sorted((self.offset_of(self.selection.start), self.offset_of(self.selection.end)))
        found = find_in(self.doc.text, needle, sel[1] if forward else sel[0], forward)
        if found is None:
            return None
        with self.prevent(TextArea.SelectionChanged):
            self.move_cursor(self.location_of(found), center=True)
            self.selection = Selection(self.location_of(found), self.location_of(found + len(needle)))
        self._update_subtitle()
        return found, found + len(needle)

    def go_to_line(self, line: int) -> bool:
        """Put the cursor at the start of 1-based ``line`` (clamped); False when there is no document."""
        if self.doc is None:
            return False
        row = max(0, min(line - 1, len(self._starts) - 1))
        self.move_cursor((row, 0), center=True)
        return True

    def select_offsets(self, start: int, end: int) -> None:
        """Select ``[start, end)`` as if the author had dragged over it."""
        self.selection = Selection(self.location_of(start), self.location_of(end))

    # -- drawing ------------------------------------------------------------------------

    def _style(self, kind: str) -> Style:
        style = self._styles.get(kind)
        if style is None:
            style = self._styles[kind] = self.get_component_rich_style(f"document-view--{kind}", partial=True)
        return style

    def get_line(self, line_index: int) -> Text:
        line = super().get_line(line_index)
        if self.doc is None or line_index >= len(self._starts):
            return line
        n = len(line.plain)
        for c0, c1, kind in self._structure.get(line_index, ()):
            line.stylize(self._style(kind), c0, n if c1 is None else c1)
        lo = self._starts[line_index]
        hi = lo + n
        for m in self._marks:
            if m.start <= hi and m.end > lo:
                line.stylize(self._style(m.kind), max(0, m.start - lo), min(n, m.end - lo))
        return line

    # -- selection -> anchor ------------------------------------------------------------------

    def on_text_area_selection_changed(self, event: TextArea.SelectionChanged) -> None:
        self._update_subtitle()
        offsets = self.selected_offsets()
        if offsets is not None and self.doc is not None and self.doc.text[offsets[0]:offsets[1]].strip():
            self.post_message(self.Selected(self.doc.doc_id, *offsets))

    def _update_subtitle(self) -> None:
        if self.doc is None:
            self.border_subtitle = ""
            return
        offset = self.offset_of(self.selection.end)
        row, col = self.location_of(offset)
        where = f"{row + 1}:{col + 1}"
        i = bisect.bisect_right(self._chunk_starts, offset) - 1
        if i >= 0 and offset < self._chunks[i].end:
            c = self._chunks[i]
            where += f" · chunk {c.ordinal + 1}/{len(self._chunks)} [{c.start}, {c.end})"
        else:
            where += " · in no chunk"
        self.border_subtitle = Content(where)
