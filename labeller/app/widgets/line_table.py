"""The document view's rows: its lines wrapped to a width in terminal cells, and the moves of a
cursor over them.

A ``LineTable`` is built once per text and width (the view never edits its text) and keeps only
what is special: the break columns of the lines that wrap and the tab widths of the lines with
tabs, plus the first row of every line. Every question the view asks — which line and section a
row shows, where a (line, column) location is drawn, which location a mouse cell is over, where
the cursor goes on up/down/home/end — is answered from those, one line at a time.

The wrap rule is the one the view has always had (Textual 8's TextArea):
``tests/test_app_document_wrap.py`` holds it equal to Textual's on hostile lines. A row is
filled with chunks, a chunk being a word and the blanks after it; a chunk that does not fit
starts the next row; one wider than a row is cut into rows by characters. Widths are cells
(a CJK character is two), a tab reaches the next multiple of the tab size from the line's
start. Lines are the canonical text's LF-separated lines (``display_text`` keeps U+2028 and
the other separators inside a line), columns are code points.
"""

from __future__ import annotations

import bisect
import re
from itertools import accumulate, compress, count, repeat

from rich.cells import cell_len, get_character_cell_size
from textual.expand_tabs import get_tab_widths
from textual.geometry import Offset

Location = tuple[int, int]  # (line, column): 0-based, columns in code points

# Characters one cell wide that the wrap treats like any printable ASCII letter (or, the space,
# as the one blank): Latin with its accents, Greek and Cyrillic. A line made of these alone is
# wrapped by ``one_cell_wrap_offsets``; tests/test_app_document_wrap.py holds that equal to the
# general rule on such lines.
ONE_CELL = frozenset(c for c in map(chr, range(0x20, 0x530))
                     if c.isprintable() and (c == " " or not c.isspace()) and get_character_cell_size(c) == 1)

CHUNK = re.compile(r"\S+\s*|\s+")  # a word and the blanks after it, or leading blanks
WORD_EDGE = re.compile(r"(?<=\W)(?=\w)|(?<=\w)(?=\W)")  # where ctrl+left/right stop


def one_cell_wrap_offsets(line: str, width: int) -> list[int]:
    """``wrap_offsets`` for a line of ``ONE_CELL`` characters (``width`` >= 1), many times
    faster: widths are then character counts and the only blank is the space, so a row is
    found with two ``rfind`` calls instead of a loop over its words. Each row ends where the
    last chunk that fits ends, a position after a space and before a non-space; with no such
    position in the row, a chunk is cut there."""
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


def tab_widths(line: str, tab_size: int) -> list[int]:
    """The cells each tab of ``line`` takes, in order (tab stops counted from the line's start)."""
    tabs = line.count("\t")  # one section per tab, each with the tab's width, then the rest (if any)
    return [w for _, w in get_tab_widths(line, tab_size)[:tabs]] if tabs else []


def char_widths(line: str, tabs: list[int]) -> list[int]:
    """Cells per character of ``line``, tabs as ``tabs`` gives them."""
    widths = [get_character_cell_size(c) for c in line]
    if tabs:
        for tab, pos in zip(tabs, (i for i, c in enumerate(line) if c == "\t")):
            widths[pos] = tab
    return widths


def wrap_offsets(line: str, width: int, tabs: list[int]) -> list[int]:
    """The columns where ``line`` breaks into rows of at most ``width`` cells (none when
    ``width`` is 0: no wrap). ``tabs``: ``tab_widths`` of the line."""
    if width <= 0:
        return []
    if not tabs and ONE_CELL.issuperset(line):
        return one_cell_wrap_offsets(line, width)
    widths = char_widths(line, tabs)
    tab_cells = list(accumulate((w if c == "\t" else 0 for c, w in zip(line, widths)), initial=0))
    breaks: list[int] = []
    used = 0  # cells taken in the current row
    for m in CHUNK.finditer(line):
        start, end = m.span()
        chunk = m.group()
        # a chunk's width as a whole (cell_len joins emoji sequences), tabs as the line places them
        w = cell_len(chunk.replace("\t", "")) + tab_cells[end] - tab_cells[start]
        if w <= width - used:
            used += w
        elif w > width:  # wider than any row: cut by characters, the first piece on a row of its own
            pieces = [0]  # cells of each piece; a character that does not fit starts the next
            starts = [start]
            for pos in range(start, end):
                if pieces[-1] + widths[pos] > width:
                    pieces.append(0)
                    starts.append(pos)
                pieces[-1] += widths[pos]
            breaks += [s for s in starts if s]
            used = pieces[-1]
        elif used and start:
            breaks.append(start)
            used = w
    return breaks


class LineTable:
    """``lines`` wrapped at ``width`` cells (0: not wrapped) with tabs of ``tab_size``."""

    def __init__(self, lines: list[str], width: int, tab_size: int, has_tabs: bool = True) -> None:
        """``has_tabs=False`` (the caller knows no line holds a tab) skips looking for them."""
        self.lines, self.width, self.tab_size = lines, width, tab_size
        self._breaks: dict[int, list[int]] = {}
        self._tabs: dict[int, list[int]] = {}
        # a line wraps only if it is longer than a row, or (a character takes at most two cells)
        # has over half a row of characters and is wider than a row; lines with tabs are special
        # too. Both are found by loops that run in C: a 5 MB text has some 130,000 lines.
        special = set(compress(count(), map((width // 2).__lt__, map(len, lines)))) if width else set()
        special = {i for i in special if len(lines[i]) > width or not lines[i].isascii() and cell_len(lines[i]) > width}
        if has_tabs:
            special |= set(compress(count(), map(str.__contains__, lines, repeat("\t"))))
        for i in sorted(special):
            tabs = tab_widths(lines[i], tab_size)
            if tabs:
                self._tabs[i] = tabs
            if offsets := wrap_offsets(lines[i], width, tabs):
                self._breaks[i] = offsets
        rows = [1] * len(lines)
        for i, offsets in self._breaks.items():
            rows[i] += len(offsets)
        self._first = list(accumulate(rows, initial=0))  # each line's first row, then the height
        self.height = self._first[-1]

    # -- rows ---------------------------------------------------------------------------

    def breaks(self, line: int) -> list[int]:
        return self._breaks.get(line, [])

    def tabs(self, line: int) -> list[int]:
        return self._tabs.get(line, [])

    def first_row(self, line: int) -> int:
        return self._first[line]

    def row_info(self, y: int) -> tuple[int, int]:
        """(line, section) drawn on row ``y`` (clamped to the rows there are)."""
        y = max(0, min(y, self.height - 1))
        line = bisect.bisect_right(self._first, y) - 1
        return line, y - self._first[line]

    def section_span(self, line: int, section: int) -> tuple[int, int]:
        """The columns ``[start, end)`` of ``line`` that row ``section`` of it shows."""
        cuts = [0, *self.breaks(line), len(self.lines[line])]
        return cuts[section], cuts[section + 1]

    def section_of(self, location: Location) -> int:
        return bisect.bisect_right(self.breaks(location[0]), location[1])

    def last_section(self, line: int) -> int:
        return len(self.breaks(line))

    # -- locations <-> cells ------------------------------------------------------------------

    def _x(self, line: int, start: int, col: int) -> int:
        """Cells from column ``start`` to ``col`` of ``line`` (on one row)."""
        text = self.lines[line][start:col]
        tabs = self.tabs(line)
        if not tabs or "\t" not in text:
            return cell_len(text)
        before = self.lines[line][:start].count("\t")
        return cell_len(text.replace("\t", "")) + sum(tabs[before:before + text.count("\t")])

    def location_to_offset(self, location: Location) -> Offset:
        """Where ``location`` is drawn: (cells into its row, row)."""
        line, col = location
        line = max(0, min(line, len(self.lines) - 1))
        section = self.section_of((line, col))
        start, _ = self.section_span(line, section)
        return Offset(self._x(line, start, col), self._first[line] + section)

    def column_at(self, line: int, section: int, x: int) -> int:
        """The column under cell ``x`` of ``line``'s row ``section``. Only the last row of a line
        lets the cursor rest one past its last character."""
        start, end = self.section_span(line, section)
        text = self.lines[line]
        widths = char_widths(text[start:end], self.tabs(line)[text[:start].count("\t"):])
        col, used = start, 0
        for w in widths:
            used += w
            if used > x:
                break
            col += 1
        if section != self.last_section(line):
            col = max(0, min(col, end - 1))  # an empty row (a wide character at width 1): the one before
        return col

    def offset_to_location(self, offset: Offset) -> Location:
        """The location under cell ``offset`` (x into a row, y the row)."""
        line, section = self.row_info(offset.y)
        return line, self.column_at(line, section, max(0, offset.x))

    # -- cursor moves (Textual's TextArea keys, over these rows) -------------------------------

    def clamp(self, location: Location) -> Location:
        line = max(0, min(location[0], len(self.lines) - 1))
        return line, max(0, min(location[1], len(self.lines[line])))

    def left(self, location: Location) -> Location:
        line, col = location
        if col:
            return line, col - 1
        return (line - 1, len(self.lines[line - 1])) if line else (0, 0)

    def right(self, location: Location) -> Location:
        line, col = location
        if col < len(self.lines[line]):
            return line, col + 1
        return (line + 1, 0) if line + 1 < len(self.lines) else location

    def vertical(self, location: Location, rows: int, remembered_x: int) -> Location:
        """The location ``rows`` rows below (above, if negative) at the larger of its own
        cell and ``remembered_x`` (the column the cursor was last put in, kept across short
        rows); past the first row it is the start, past the last the end of the text."""
        here = self.location_to_offset(location)
        y = here.y + rows
        if y < 0:
            return 0, 0
        if y >= self.height:
            last = len(self.lines) - 1
            return last, len(self.lines[last])
        return self.offset_to_location(Offset(max(here.x, remembered_x), y))

    def home(self, location: Location) -> Location:
        """The start of the cursor's row; on a line that does not wrap, its first non-blank
        (and from there, or from before it, column 0)."""
        line, col = location
        if self.breaks(line):
            return line, self.section_span(line, self.section_of(location))[0]
        text = self.lines[line]
        first = len(text) - len(text.lstrip())
        first = first if first < len(text) else 0
        return (line, first) if col == 0 or col > first else (line, 0)

    def end(self, location: Location) -> Location:
        """The end of the cursor's row: its last character on a wrapped row, else the line's end."""
        line, _ = location
        section = self.section_of(location)
        if section < self.last_section(line):
            return line, self.breaks(line)[section] - 1
        return line, len(self.lines[line])

    def word_left(self, location: Location) -> Location:
        line, col = location
        if line and not col:
            return line - 1, len(self.lines[line - 1])
        edges = [m.start() for m in WORD_EDGE.finditer(self.lines[line][:col].rstrip())]
        return line, edges[-1] if edges else 0

    def word_right(self, location: Location) -> Location:
        line, col = location
        text = self.lines[line]
        if line + 1 < len(self.lines) and col == len(text):
            return line + 1, 0
        rest = text[col:]
        skipped = len(rest) - len(rest.lstrip())
        m = WORD_EDGE.search(rest.lstrip())
        return line, col + skipped + m.start() if m else len(text)
