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
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.content import Content
from textual.geometry import Offset
from textual.strip import Strip
from textual.message import Message
from textual.widgets import TextArea
from textual.widgets.text_area import Selection

from labeller.core.chunkers import Chunk
from labeller.core.corpus import Document
from labeller.app.widgets.markup import display_text, visible_line
from labeller.app.widgets.textual_adapter import clear_line_cache, load_read_only_text

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


GUTTER_MARK = "▐"  # in the gutter: another record's label covers this line

# Later marks are drawn over earlier ones.
MARK_ORDER = ("chunk", "other", "hit", "span", "occurrence", "match")


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
    # Loading builds a SizedWrappedDocument (textual_adapter) once, at the view's width.

    _text = ""

    def load_text(self, text: str) -> None:
        load_read_only_text(self, text)
        self._text = self.document.text

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
        clear_line_cache(self)
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
