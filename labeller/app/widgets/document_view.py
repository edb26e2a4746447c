"""The document view: a document's canonical text, read-only, where a selection is an anchor.

Offsets are the core's: code-point indices into the canonical text. The view shows a display
copy (``display_text``) in which U+2028, U+2029, form feeds and every other control character
but LF and tab are replaced by one visible stand-in of the same length: its lines are then
exactly the canonical text's LF-separated lines and its columns are code points, so a
(line, column) location maps to an offset through the line starts, and escape sequences in a
document cannot act on the terminal.

It is a ``ScrollView`` drawing its own rows (Toolong's model, public Textual API only): a
``LineTable`` wraps the lines once per width, ``render_line`` styles one row, and an LRU keeps
drawn rows, keyed by what can change them (marks, selection, cursor, focus), so scrolling a
5 MB document draws only the rows that come into view. Keys and mouse behave as Textual's
read-only TextArea, which the view was before.

The widget only shows: structure styles and marks arrive as ranges computed elsewhere, and a
selection leaves as a ``Selected`` message with canonical offsets.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from itertools import accumulate
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.cache import LRUCache
from textual.content import Content
from textual.expand_tabs import expand_text_tabs_from_widths
from textual.geometry import Offset, Region, Size, Spacing
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from labeller.app.widgets.chunk_names import chunk_name
from labeller.core.chunkers import Chunk
from labeller.core.corpus import Document
from labeller.app.widgets.line_table import LineTable, Location
from labeller.app.widgets.markup import display_text, visible_line

TAB_SIZE = 4


def line_starts(text: str) -> list[int]:
    """Offsets where each line starts, splitting on LF only (the view's lines, given
    ``display_text``), including the empty line after a final LF."""
    return list(accumulate(map((1).__add__, map(len, text.split("\n")[:-1])), initial=0))


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


class Selection(NamedTuple):
    """From ``start`` to ``end`` (the cursor), both (line, column) locations."""

    start: Location = (0, 0)
    end: Location = (0, 0)

    @classmethod
    def cursor(cls, location: Location) -> Selection:
        return cls(location, location)

    @property
    def is_empty(self) -> bool:
        return self.start == self.end


GUTTER_MARK = "▐"  # in the gutter: another record's label covers this line

# Later marks are drawn over earlier ones.
MARK_ORDER = ("chunk", "other", "hit", "span", "occurrence", "match")

# key -> (move, extends the selection): TextArea's keys for a read-only text. Handled in
# ``on_key`` like TextArea's own bindings were (before any screen's), and like them neither in
# the help screen nor in a keymap.
KEYS: dict[str, tuple[str, bool]] = {
    **{k: ("up", s) for k, s in (("up", False), ("shift+up", True))},
    **{k: ("down", s) for k, s in (("down", False), ("shift+down", True))},
    **{k: ("left", s) for k, s in (("left", False), ("shift+left", True))},
    **{k: ("right", s) for k, s in (("right", False), ("shift+right", True))},
    **{k: ("word_left", s) for k, s in (("ctrl+left", False), ("ctrl+shift+left", True))},
    **{k: ("word_right", s) for k, s in (("ctrl+right", False), ("ctrl+shift+right", True))},
    **{k: ("home", s) for k, s in (("home", False), ("ctrl+a", False), ("shift+home", True))},
    **{k: ("end", s) for k, s in (("end", False), ("ctrl+e", False), ("shift+end", True))},
    "pageup": ("page_up", False), "pagedown": ("page_down", False),
    "f6": ("select_line", False), "f7": ("select_all", False),
    "ctrl+c": ("copy", False), "super+c": ("copy", False),
}


class DocumentView(ScrollView):
    """Read-only canonical text with line numbers, Markdown structure and live marks."""

    COMPONENT_CLASSES = {f"document-view--{k}" for k in (
        *MARK_ORDER, "heading", "code", "table", "front-matter", "html", "marker", "label",
        "cursor", "gutter", "selection")}
    # The look of Textual's read-only TextArea, which the view was: its box, gutter, cursor
    # and selection colours (document_view.tcss adds the border and the marks).
    DEFAULT_CSS = """
    DocumentView {
        width: 1fr;
        height: 1fr;
        border: tall $border-blurred;
        padding: 0 1;
        color: $foreground;
        background: $surface;
        pointer: text;
        & > .document-view--label {
            color: $secondary;
            text-style: bold;
        }
        & > .document-view--gutter {
            color: $foreground 40%;
        }
        & > .document-view--selection {
            background: $input-selection-background;
            color: $input-selection-foreground;
        }
        & > .document-view--cursor {
            text-style: $input-cursor-text-style;
        }
        &:focus {
            border: tall $border;
            background-tint: $accent 25%;
        }
        &:ansi {
            & > .document-view--cursor {
                color: $input-cursor-foreground;
                background: $input-cursor-background;
                text-style: reverse;
            }
            & > .document-view--selection {
                background: transparent;
                text-style: reverse;
            }
        }
        &:dark > .document-view--cursor {
            color: $input-cursor-foreground;
            background: $warning-darken-1;
        }
        &:light > .document-view--cursor {
            color: $text 90%;
            background: $warning-darken-1;
        }
    }
    """

    selection: reactive[Selection] = reactive(Selection(), init=False, always_update=True)
    """The selection; its ``end`` is the cursor."""

    class Selected(Message):
        """The author selected ``[start, end)`` of ``doc_id`` (canonical offsets)."""

        def __init__(self, doc_id: str, start: int, end: int) -> None:
            super().__init__()
            self.doc_id = doc_id
            self.start = start
            self.end = end

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.doc: Document | None = None
        self.text = ""  # the display copy of the document's text
        self._lines = [""]
        self._starts: list[int] = [0]
        self.wrapped_document = LineTable(self._lines, 0, TAB_SIZE)
        self._structure: dict[int, list[tuple[int, int | None, str]]] = {}
        self._marks: list[Mark] = []
        self._chunks: list[Chunk] = []
        self._chunk_starts: list[int] = []
        self._gutter: frozenset[int] = frozenset()  # 0-based lines some other record's label covers
        self._rows: LRUCache[tuple, Strip] = LRUCache(1024)  # drawn rows, keyed by what draws them
        self._drawn = 0  # bumped when what every row shows changes (text, width, marks, styles)
        self._remembered_x = 0  # the cell the cursor was last put in: up/down keep to it
        self._quiet = False  # a selection the view makes itself (find) is not the author's
        self._mouse_selecting = False
        self._base: Style | None = None  # the view's own style, as the drawing of the rows began

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self.screen.text_selection_started_signal.subscribe(
            self, lambda _screen: setattr(self, "selection", Selection.cursor(self.cursor_location)), immediate=True)
        self.border_title = "document"

    def _theme_changed(self, _theme) -> None:
        self._redraw()

    def notify_style_update(self) -> None:
        self._drawn += 1
        self._base = None
        super().notify_style_update()

    # -- content ------------------------------------------------------------------------

    def show_document(self, doc: Document, structure: Callable[[], dict[int, list[tuple[int, int | None, str]]]],
                      chunks: list[Chunk]) -> None:
        """Show ``doc`` now, and its Markdown styling when ``structure()`` (which maps a 0-based
        line to (col start, col end, style) ranges) has run in a thread worker: it parses the
        whole document, which must not hold up the highlight of a quote in a large one."""
        if self.doc is not None and self.doc.doc_id == doc.doc_id and self.doc.sha256 == doc.sha256:
            return
        self.doc = doc
        self.text = display_text(doc.text)
        self._lines = self.text.split("\n")
        self._starts = list(accumulate(map((1).__add__, map(len, self._lines[:-1])), initial=0))  # line_starts
        self._structure = {}
        self._chunks = list(chunks)
        self._chunk_starts = [c.start for c in self._chunks]
        self._marks = []
        self._wrap(self._settled_wrap_width())
        self.move_cursor((0, 0))
        self.border_title = Content(visible_line(doc.doc_id))
        self._update_subtitle()
        self.run_worker(partial(self._load_structure, doc, structure), thread=True, group="structure",
                        exclusive=True)

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

    def _redraw(self) -> None:
        self._drawn += 1
        self.refresh()

    # -- wrapping -------------------------------------------------------------------------

    @property
    def gutter_width(self) -> int:
        """The line numbers' column: the widest number and two cells (the mark and a blank)."""
        return len(str(len(self._lines))) + 2

    @property
    def wrap_width(self) -> int:
        """Cells a row of text may take: the view's width less the gutter and one cell for a
        cursor resting after a row's last character."""
        return max(0, self.scrollable_content_region.width - self.gutter_width - 1)

    def _settled_wrap_width(self) -> int:
        """The wrap width once the vertical scrollbar has come for a text with more lines than
        the view has rows (so a long text is wrapped once, beside it, not once without)."""
        width = self.wrap_width
        if (width and not self.show_vertical_scrollbar and self.styles.overflow_y == "auto"
                and len(self._lines) > self.scrollable_content_region.height):
            width = max(0, width - self.styles.scrollbar_size_vertical)
        return width

    def _wrap(self, width: int) -> None:
        if width != self.wrapped_document.width or self.wrapped_document.lines is not self._lines:
            self.wrapped_document = LineTable(self._lines, width, TAB_SIZE, has_tabs="\t" in self.text)
            self._drawn += 1
            self.virtual_size = Size(0, self.wrapped_document.height)

    def on_resize(self) -> None:
        self._wrap(self.wrap_width)

    def watch_show_vertical_scrollbar(self) -> None:
        self._wrap(self.wrap_width)

    # -- offsets <-> locations ----------------------------------------------------------------

    def offset_of(self, location: Location) -> int:
        row, col = location
        if row >= len(self._starts):
            return len(self.doc.text) if self.doc else 0
        return self._starts[row] + col

    def location_of(self, offset: int) -> Location:
        row = bisect.bisect_right(self._starts, offset) - 1
        return row, offset - self._starts[row]

    def selected_offsets(self) -> tuple[int, int] | None:
        sel = self.selection
        if sel.start == sel.end or self.doc is None:
            return None
        a, b = sorted((self.offset_of(sel.start), self.offset_of(sel.end)))
        return a, b

    @property
    def selected_text(self) -> str:
        a, b = sorted((self.offset_of(self.selection.start), self.offset_of(self.selection.end)))
        return self.text[a:b]

    # -- the cursor and the selection ------------------------------------------------------

    @property
    def cursor_location(self) -> Location:
        return self.selection.end

    def validate_selection(self, selection: Selection) -> Selection:
        clamp = self.wrapped_document.clamp
        return Selection(clamp(selection.start), clamp(selection.end))

    def watch_selection(self, previous: Selection, selection: Selection) -> None:
        if not self.is_mounted:
            return
        self.app.clear_selection()
        self.scroll_cursor_visible()
        self.app.cursor_position = self.cursor_screen_offset
        if previous != selection:
            self._update_subtitle()
            offsets = self.selected_offsets()
            if (not self._quiet and offsets is not None and self.doc is not None
                    and self.doc.text[offsets[0]:offsets[1]].strip()):
                self.post_message(self.Selected(self.doc.doc_id, *offsets))

    @contextmanager
    def _quietly(self) -> Iterator[None]:
        self._quiet = True
        try:
            yield
        finally:
            self._quiet = False

    def move_cursor(self, location: Location, select: bool = False, center: bool = False,
                    record_width: bool = True) -> None:
        """Put the cursor at ``location`` (with ``select``, keep the selection's start)."""
        self.selection = Selection(self.selection.start, location) if select else Selection.cursor(location)
        if record_width:
            self._remembered_x = self.wrapped_document.location_to_offset(self.cursor_location).x
        if center:
            self.scroll_cursor_visible(center=True)

    def scroll_cursor_visible(self, center: bool = False, animate: bool = False) -> None:
        x, y = self.wrapped_document.location_to_offset(self.cursor_location)
        self.scroll_to_region(Region(x, y, width=3, height=1), spacing=Spacing(right=self.gutter_width),
                              animate=animate, force=True, center=center)

    @property
    def cursor_screen_offset(self) -> Offset:
        x, y = self.wrapped_document.location_to_offset(self.cursor_location)
        region = self.content_region
        return Offset(region.x + x - self.scroll_offset.x + self.gutter_width, region.y + y - self.scroll_offset.y)

    def reveal(self, offset: int) -> None:
        """Put the cursor (not a selection) at ``offset`` and scroll it to the middle."""
        location = self.location_of(offset)
        if self.selection != Selection.cursor(location):
            self.move_cursor(location, center=True)

    def find(self, needle: str, forward: bool = True) -> tuple[int, int] | None:
        """Select the next (or previous) occurrence of ``needle`` after (before) the cursor,
        ignoring case, wrapping at the end; its offsets, or ``None`` when it is nowhere. The
        selection is the view's own (quiet): finding text is not choosing a quote."""
        if self.doc is None or not needle:
            return None
        sel = sorted((self.offset_of(self.selection.start), self.offset_of(self.selection.end)))
        found = find_in(self.doc.text, needle, sel[1] if forward else sel[0], forward)
        if found is None:
            return None
        with self._quietly():
            self.move_cursor(self.location_of(found), center=True)
            self.selection = Selection(self.location_of(found), self.location_of(found + len(needle)))
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

    # -- keys and mouse (as the read-only TextArea) ----------------------------------------

    def on_key(self, event: events.Key) -> None:
        move = KEYS.get(event.key)
        if move is not None and getattr(self, f"_key_{move[0]}")(move[1]) is not False:
            event.stop()
            event.prevent_default()

    def _key_up(self, select: bool) -> None:
        table = self.wrapped_document
        self.move_cursor(table.vertical(self.cursor_location, -1, self._remembered_x), select, record_width=False)

    def _key_down(self, select: bool) -> None:
        table = self.wrapped_document
        self.move_cursor(table.vertical(self.cursor_location, 1, self._remembered_x), select, record_width=False)

    def _key_left(self, select: bool) -> None:
        sel = self.selection
        self.move_cursor(self.wrapped_document.left(sel.end) if select or sel.is_empty else min(sel), select)

    def _key_right(self, select: bool) -> None:
        sel = self.selection
        self.move_cursor(self.wrapped_document.right(sel.end) if select or sel.is_empty else max(sel), select)

    def _key_word_left(self, select: bool) -> None:
        if self.cursor_location != (0, 0):
            self.move_cursor(self.wrapped_document.word_left(self.cursor_location), select)

    def _key_word_right(self, select: bool) -> None:
        if self.cursor_location != (len(self._lines) - 1, len(self._lines[-1])):
            self.move_cursor(self.wrapped_document.word_right(self.cursor_location), select)

    def _key_home(self, select: bool) -> None:
        self.move_cursor(self.wrapped_document.home(self.cursor_location), select)

    def _key_end(self, select: bool) -> None:
        self.move_cursor(self.wrapped_document.end(self.cursor_location), select)

    def _page(self, rows: int) -> None:
        x, y = self.wrapped_document.location_to_offset(self.cursor_location)
        target = self.wrapped_document.offset_to_location(Offset(x, y + rows))
        self.scroll_relative(y=rows, animate=False)
        self.move_cursor(target)

    def _key_page_up(self, _select: bool) -> None:
        self._page(-self.content_size.height)

    def _key_page_down(self, _select: bool) -> None:
        self._page(self.content_size.height)

    def _key_select_line(self, _select: bool) -> None:
        line = self.cursor_location[0]
        self.selection = Selection((line, 0), (line, len(self._lines[line])))

    def _key_select_all(self, _select: bool) -> None:
        self.selection = Selection((0, 0), (len(self._lines) - 1, len(self._lines[-1])))

    def _key_copy(self, _select: bool) -> bool:
        if not self.selected_text:
            return False  # the key goes on to whoever else binds it
        self.app.copy_to_clipboard(self.selected_text)
        return True

    def _mouse_location(self, event: events.MouseEvent) -> Location:
        x = event.x - self.gutter_width + self.scroll_offset.x - self.gutter.left
        y = event.y + self.scroll_offset.y - self.gutter.top
        return self.wrapped_document.offset_to_location(Offset(x, y))

    def on_mouse_down(self, event: events.MouseDown) -> None:
        self.selection = Selection.cursor(self._mouse_location(event))
        self._mouse_selecting = True
        self.capture_mouse()  # a drag past the view's edge still selects (and scrolls)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._mouse_selecting:
            self.selection = Selection(self.selection.start, self._mouse_location(event))

    def _end_mouse_selection(self) -> None:
        if self._mouse_selecting:
            self._mouse_selecting = False
            self.release_mouse()
            self._remembered_x = self.wrapped_document.location_to_offset(self.cursor_location).x

    def on_mouse_up(self) -> None:
        self._end_mouse_selection()

    def on_hide(self) -> None:
        self._end_mouse_selection()

    def on_focus(self) -> None:
        self.app.cursor_position = self.cursor_screen_offset

    # -- drawing ------------------------------------------------------------------------

    def _style(self, kind: str) -> Style:
        return self.get_component_rich_style(f"document-view--{kind}", partial=True)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._wrap(self.wrap_width)  # the width may have changed since the last resize (a scrollbar came)
        self._base = self.rich_style  # per row it would walk the ancestors' styles each time
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        table = self.wrapped_document
        row = self.scroll_offset.y + y
        base = self._base or self.rich_style
        if row >= table.height:
            return Strip.blank(self.size.width, base)
        line, section = table.row_info(row)
        sel = self.selection
        top, bottom = sorted(sel)
        cursor = sel.end if sel.end[0] == line and self.has_focus else None
        width = self.scrollable_content_region.width - self.gutter_width
        key = (line, section, width, self._drawn, sel if top[0] <= line <= bottom[0] else None, cursor,
               section == 0 and line in self._gutter)
        strip = self._rows.get(key)
        if strip is None:
            strip = self._rows[key] = self._draw_row(line, section, width, sel, cursor, base)
        return strip

    def _draw_row(self, line: int, section: int, width: int, sel: Selection, cursor: Location | None,
                  base: Style) -> Strip:
        table = self.wrapped_document
        text = self._styled_line(line, sel, cursor)
        start, end = table.section_span(line, section)
        if section == table.last_section(line):
            end = len(text)  # the blank a cursor rests on after the last character
        part = text[start:end] if start or end < len(text) else text  # a slice divides the Text
        tabs = table.tabs(line)
        if tabs:
            before = self._lines[line][:start].count("\t")
            part = expand_text_tabs_from_widths(part, tabs[before:before + part.plain.count("\t")])
        # one Strip from a list of segments (each Strip made and joined costs its caches):
        # the line number, the blank that may carry the mark, a blank, the text, padding
        gutter = self.get_component_rich_style("document-view--gutter")
        number = str(line + 1) if section == 0 else ""
        segments = [Segment(f"{number:>{self.gutter_width - 2}}", gutter), Segment(" ", gutter), Segment(" ", gutter),
                    *part.render(self.app.console)]
        if (pad := width - part.cell_len) > 0:
            segments.append(Segment(" " * pad, base))
        segments = list(Segment.apply_style(segments, base))
        if section == 0 and line in self._gutter:  # the mark in its own colours, over the view's
            segments[1] = Segment(GUTTER_MARK, self._style("label"))
        return Strip(segments, self.gutter_width + max(width, part.cell_len))

    def _styled_line(self, line: int, sel: Selection, cursor: Location | None) -> Text:
        """Line ``line`` with its structure, marks, selection and cursor styled, and one blank
        after its last character for the cursor to rest on."""
        plain = self._lines[line]
        n = len(plain)
        text = Text(plain, end="", no_wrap=True)
        for c0, c1, kind in self._structure.get(line, ()):
            text.stylize(self._style(kind), c0, n if c1 is None else c1)
        lo = self._starts[line] if line < len(self._starts) else 0
        hi = lo + n
        for m in self._marks:
            if m.start <= hi and m.end > lo:
                text.stylize(self._style(m.kind), max(0, m.start - lo), min(n, m.end - lo))
        text.set_length(n + 1)
        (top_line, top_col), (bottom_line, bottom_col) = sorted(sel)
        if not sel.is_empty and top_line <= line <= bottom_line:
            selected = self.get_component_rich_style("document-view--selection")
            if n == 0 and line != sel.end[0]:  # an empty line inside the selection shows a bar
                text = Text("▌", style=Style(color=selected.bgcolor), end="", no_wrap=True)
            else:
                text.stylize(selected, top_col if line == top_line else 0, bottom_col if line == bottom_line else n)
        if cursor is not None:
            text.stylize(self.get_component_rich_style("document-view--cursor"), cursor[1], cursor[1] + 1)
        return text

    # -- the subtitle: where the cursor is --------------------------------------------------

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
            where += f" · {chunk_name(c.ordinal, len(self._chunks))} [{c.start}, {c.end})"
        else:
            where += " · in no chunk"
        self.border_subtitle = Content(where)
