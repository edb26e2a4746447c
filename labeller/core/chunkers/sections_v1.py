"""sections-v1: the largest whole Markdown section that fits in ``size``, else its paragraphs.

Why a second structure-aware rule beside md-struct-v1: md-struct-v1 cuts at *every* heading,
however short the section, and leaves heading lines out of every chunk. On documentation
corpora many sections are a heading and two lines, so an answer that reads across a short
section and its sub-sections is split into slivers, and a chunk exported to another system
(a chunk file, SPEC §10) has lost the heading that says what it is about. sections-v1 cuts
by the document's outline instead: a section *with all its sub-sections* is one chunk when it
fits, which is the unit authors write and section locators label (SPEC §2), and only a
section too large for one chunk is taken apart — its own text (heading line and the
paragraphs before its first sub-section) packed into chunks, each sub-section then handled
the same way. It reads the same structure md-struct-v1 does (``layout`` of the body: ATX headings
outside fences, the heading stack, paragraph blocks, indivisible fences) and packs with
md-struct-v1's ``pack``, so the two differ only in where they cut, which is the comparison
worth making.

The rule, over the document's body (the canonical text after YAML front matter):

- A section is a heading line through the line before the next heading of the same or a
  higher level (or the end); the document itself is the root section, starting at the body.
  A section's extent excludes its trailing blank lines (the root's leading ones too).
- If the extent is at most ``size`` code points, it is one chunk.
- Otherwise its own part — the heading line and the blocks before its first sub-section —
  is packed greedily into chunks of at most ``size`` (md-struct-v1's packing: blank lines
  between blocks inside a chunk belong to it, a block too long alone is cut at line
  boundaries), the heading line joining the first block; then each sub-section follows.

Every non-blank line of the body lies in exactly one chunk, heading lines included.
"""

from __future__ import annotations

from collections.abc import Iterator

from labeller.core.chunkers.md_struct_v1 import THEMATIC_BREAK, Layout, pack
from labeller.core.chunkers.slices import SpanChunker, body_layout


class SectionsV1(SpanChunker):
    name = version = "sections-v1"

    def __init__(self, size: int = 1800) -> None:
        if size < 1:
            raise ValueError(f"size must be at least 1 (code points), got {size}")
        self.settings = {"size": size}

    def spans(self, text: str, start: int) -> Iterator[tuple[int, int]]:
        return _Outline(text, start, self.settings["size"]).chunks()

    @staticmethod
    def is_blank(line: str) -> bool:
        """md-struct-v1's blank line: whitespace only, or a thematic break (which packing
        may leave between two chunks)."""
        return not line.strip() or THEMATIC_BREAK.match(line) is not None


class _Outline:
    """The document's heading tree, read from md-struct-v1's layout."""

    def __init__(self, text: str, body: int, size: int) -> None:
        self.text, self.body, self.size = text, body, size
        self.lay: Layout = body_layout(text)
        lay = self.lay
        self.levels = [lay.sections[k + 1].levels[-1] for k in range(len(lay.headings))]
        # ends[k]: the heading after k's subtree (len(headings) when it runs to the end)
        self.ends = [len(lay.headings)] * len(lay.headings)
        open_: list[int] = []
        for k, level in enumerate(self.levels):
            while open_ and self.levels[open_[-1]] >= level:
                self.ends[open_.pop()] = k
            open_.append(k)

    def line_start(self, heading: int) -> int:
        lay = self.lay
        return lay.starts[lay.headings[heading]] if heading < len(lay.headings) else len(self.text)

    def chunks(self) -> Iterator[tuple[int, int]]:
        yield from self.section(-1, 0, len(self.lay.headings))

    def section(self, k: int, first_child: int, end: int) -> Iterator[tuple[int, int]]:
        """Section ``k`` (-1: the root) whose sub-sections are the headings ``first_child..end-1``."""
        text, lay = self.text, self.lay
        lo = self.body if k < 0 else self.line_start(k)
        hi = self.line_start(end)
        start, stop = _trimmed(text, lo, hi, lead=k < 0)
        if stop - start <= self.size:
            yield start, stop
            return
        blocks = list(lay.sections[k + 1].blocks)
        if k >= 0:
            line = lay.headings[k]
            blocks = [(line, blocks[0][1]), *blocks[1:]] if blocks else [(line, line)]
        yield from pack(tuple(blocks), lay.starts, self.size)
        child = first_child
        while child < end:
            yield from self.section(child, child + 1, self.ends[child])
            child = self.ends[child]


def _trimmed(text: str, lo: int, hi: int, lead: bool) -> tuple[int, int]:
    """``[lo, hi)`` without its trailing blank lines (and leading ones with ``lead``)."""
    end = hi
    while end > lo and text[end - 1].isspace():
        end -= 1
    nl = text.find("\n", end, hi)
    end = hi if nl == -1 else nl + 1
    start = lo
    if lead:
        while start < end and text[start].isspace():
            start += 1
        start = text.rfind("\n", lo, start) + 1 if start > lo else lo
        start = max(start, lo)
    return start, end
