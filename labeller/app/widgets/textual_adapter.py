"""Every use of a private part of Textual, in one place (issue 26).

Textual's private modules and attributes may change in any release, patch releases included,
so the rest of labeller reaches none of them: tests/test_architecture.py fails on a private
Textual import, a ``x._name`` on a Textual object, or an override of a Textual private, in any
other module. Each use below says why no public way exists and which upstream issue would
give one; when Textual makes it public, the shim goes and its callers stay.

Uses (Textual 8, pinned ``<9``):

* ``FooterKey`` (``textual.widgets._footer``): not exported by ``textual.widgets``; the key
  bar measures and styles the keys the Footer composes. No upstream issue found; to file.
* ``Footer._bindings_ready``: whether the footer may read the screen's bindings yet; no
  public flag. No upstream issue found; to file.
* ``App._init_mode``: building a mode's screen before it is first shown (issue 17.7). No
  public API; no upstream issue found.
* ``Screen._css_update_count``: a new screen's CSS version, so that showing it does not
  refresh the whole app's CSS twice. No public API; no upstream issue found.
* ``DataTable._update_dimensions``/``_update_count``: rows cached before they are measured
  (Textual issue #4470).
* ``TextArea._set_document``, ``_highlight_query``, ``_build_highlight_map``, ``_line_cache``,
  ``_refresh_size`` and ``textual.document._*``/``textual._wrap``: a read-only TextArea whose
  text is wrapped once, with tables sized for a 1 MB document. The document view's own
  ``ScrollView`` (issue 26.1, Toolong's model) would need none of these; until then they
  are here. No upstream issue found for a pluggable wrapped document; to file.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from itertools import accumulate
from typing import TYPE_CHECKING, Any, TypeVar, overload

from rich.cells import cell_len, get_character_cell_size
from textual.app import App
from textual.expand_tabs import get_tab_widths
from textual.screen import Screen
from textual.widgets import DataTable, Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:  # the TextArea and its documents load with the document view, not at start
    from textual.widgets import TextArea

__all__ = ["FooterKey", "ONE_CELL", "MeasuredDataTable", "SizedWrappedDocument", "adopt_app_css", "bindings_ready",
           "build_mode", "clear_line_cache", "load_read_only_text", "one_cell_wrap_offsets"]

T = TypeVar("T")


def bindings_ready(footer: Footer) -> bool:
    """Whether ``footer`` may read its screen's bindings (Textual sets it once mounted)."""
    return footer._bindings_ready


def build_mode(app: App, mode: str) -> None:
    """Build ``mode``'s screen now, as Textual does when the mode is first shown."""
    app._init_mode(mode)


def adopt_app_css(screen: Screen) -> None:
    """Give a new screen the app's CSS version, so that showing it does not refresh the whole
    app's CSS (a new screen's is -1). Safe where the screen's widgets are styled from the
    current stylesheet as they mount (tests/test_app_first_open.py holds that)."""
    screen._css_update_count = screen.app._css_update_count


class MeasuredDataTable(DataTable):
    """A DataTable that redraws its rows once they are measured (Textual issue #4470: a row
    drawn before the idle measurement is cached at the header's widths, under a key the
    measurement does not change). tests/test_app_table.py fails if Textual changes this."""

    def _update_dimensions(self, new_rows: Iterable) -> None:
        super()._update_dimensions(new_rows)
        self._update_count += 1
        self.refresh()


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


@cache
def _sized_wrapped_document() -> type:
    """``SizedWrappedDocument``, made when first used: Textual's document modules load with
    the document view, not at the app's start (tests/test_app_start.py)."""
    from textual._wrap import compute_wrap_offsets
    from textual.document._wrapped_document import WrappedDocument

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
    return SizedWrappedDocument


def __getattr__(name: str) -> Any:
    if name == "SizedWrappedDocument":
        return _sized_wrapped_document()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _no_breaks(line: str) -> list[int]:
    return []


def _untabbed(line: str) -> list[int]:
    return [0] if line else []  # Textual's ``get_tab_widths``: one section of a tab-less line, none of ""


def load_read_only_text(area: TextArea, text: str) -> None:
    """``area.load_text(text)`` for a TextArea that never edits its text: as Textual's for plain
    text (no language), but with the text wrapped once, at the width it will be shown at, into a
    ``SizedWrappedDocument``: Textual's is wrapped at width 0 when it is made, again at the
    view's width right after, and a third time when the vertical scrollbar appears for a long
    text and takes its columns."""
    from textual.document._document import Document as TextDocument
    from textual.document._document_navigator import DocumentNavigator

    area.history.clear()
    area._highlight_query = None
    area.document = TextDocument(text)
    area.wrapped_document = _sized_wrapped_document()(area.document, settled_wrap_width(area),
                                                       tab_width=area.indent_width)
    area.navigator = DocumentNavigator(area.wrapped_document)
    area._build_highlight_map()
    area.move_cursor((0, 0))
    # Textual's ``_rewrap_and_refresh_virtual_size`` without the wrap at today's width:
    # sizing shows the scrollbar, whose watcher re-wraps at the width wrapped at above (a
    # no-op), or at the right one if the guess was wrong (a short text whose lines wrap)
    area._line_cache.clear()
    area._refresh_size()
    area.post_message(area.Changed(area).set_sender(area))
    area.update_suggestion()


def settled_wrap_width(area: TextArea) -> int:
    """The wrap width once the vertical scrollbar has come or gone for the loaded text: a
    text with more lines than the view has rows always scrolls, so it is wrapped beside a
    scrollbar even when the text before it had none."""
    width = area.wrap_width
    if (width and not area.show_vertical_scrollbar and area.styles.overflow_y == "auto"
            and area.document.line_count > area.scrollable_content_region.height):
        width = max(0, width - area.styles.scrollbar_size_vertical)
    return width


def clear_line_cache(area: TextArea) -> None:
    """Forget ``area``'s rendered lines: TextArea keys them by cursor and scroll state only, so
    styles it does not know of (the document view's marks) must clear them when they change."""
    area._line_cache.clear()
