"""blocks-v1: widen a quote to the whole Markdown blocks that hold it.

An anchor is a few words; the label is the structural unit around them, chosen by a
written rule (table rows, then list item, then the enclosing block) so that every
coverage number computed later is reproducible. Blocks come from markdown-it, and a
span always runs from the start of its first line to the end of its last line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from labeller.core.cache import Codec, as_int, check, from_columns, to_columns
from labeller.core.corpus import Document
from labeller.core.markdown import front_matter, parse_structure
from labeller.core.vocab import BlockKind, RefusalKind

EXPANSION_VERSION = "blocks-v1"

_RULE = "hr"  # a thematic break: a leaf of its own, never a span's kind
_LEAF_KINDS = {"paragraph_open": BlockKind.PARAGRAPH, "heading_open": BlockKind.HEADING, "fence": BlockKind.CODE,
               "code_block": BlockKind.CODE, "html_block": BlockKind.HTML, "hr": _RULE}


class ExpansionRefused(Exception):
    """The quote sits where no label may be: front matter, a delimiter row, a rule line."""

    def __init__(self, kind: RefusalKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True, slots=True)
class Unit:
    """A run of whole lines ``[first, last]`` (0-based, inclusive) and its block kind."""

    first: int
    last: int
    kind: str  # a ``BlockKind``, or ``_RULE`` for a thematic break


@dataclass(frozen=True, slots=True)
class _Item:
    first: int
    last: int  # last non-blank line of the item
    parent: int  # index of the list it belongs to
    depth: int


@dataclass(frozen=True, slots=True)
class _Table:
    first: int
    last: int
    delimiter: int


@dataclass(frozen=True, slots=True)
class Heading:
    first: int
    last: int
    level: int
    text: str


@dataclass
class DocBlocks:
    """The block structure of one document, parsed once and cached by its digest."""

    front_matter_lines: int
    leaves: list[Unit]
    items: list[_Item]
    tables: list[_Table]
    headings: list[Heading]

    def to_data(self) -> dict:
        return {"front_matter_lines": self.front_matter_lines, **{
            name: to_columns(getattr(self, name), kind) for name, kind in _BLOCK_LISTS.items()}}

    @classmethod
    def from_data(cls, data) -> "DocBlocks":
        """What ``to_data`` wrote, every field's type checked (a cache miss otherwise)."""
        check(type(data) is dict and data.keys() == {"front_matter_lines", *_BLOCK_LISTS})
        return cls(as_int(data["front_matter_lines"]),
                   *(from_columns(data[name], kind) for name, kind in _BLOCK_LISTS.items()))


_BLOCK_LISTS = {"leaves": Unit, "items": _Item, "tables": _Table, "headings": Heading}  # DocBlocks' field order
BLOCKS_CODEC = Codec.of(DocBlocks)


def parse_blocks(doc: Document, start: int = 0, stop: int | None = None) -> DocBlocks:
    """The blocks of lines ``[start, stop)`` (the whole document by default), in the
    document's line numbers. A window must run between restart lines
    (``labeller.core.windows``), where the parse of the piece equals the full parse."""
    text = doc.text
    starts = doc.line_starts
    stop = len(starts) if stop is None else stop

    def blank(line: int) -> bool:
        return not text[starts[line]:doc.line_end(line)].strip()

    leaves: list[Unit] = []
    items: list[_Item] = []
    tables: list[_Table] = []
    headings: list[Heading] = []
    lists: list[int] = []  # stack of open list ids
    n_lists = 0
    piece = text if start == 0 and stop == len(starts) else text[starts[start]:doc.line_end(stop - 1)]
    tokens = parse_structure(piece)
    if start:
        for tok in tokens:
            if tok.map:
                tok.map = [tok.map[0] + start, tok.map[1] + start]
    for i, tok in enumerate(tokens):
        t = tok.type
        if t in ("bullet_list_open", "ordered_list_open"):
            lists.append(n_lists)
            n_lists += 1
        elif t in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t == "list_item_open" and tok.map:
            last = tok.map[1] - 1
            while last > tok.map[0] and blank(last):
                last -= 1
            items.append(_Item(tok.map[0], last, lists[-1], len(lists)))
        elif t == "table_open" and tok.map:
            tables.append(_Table(tok.map[0], tok.map[1] - 1, tok.map[0] + 1))
        elif t in _LEAF_KINDS and tok.map:
            last = tok.map[1] - 1
            while last > tok.map[0] and blank(last):
                last -= 1
            leaves.append(Unit(tok.map[0], last, _LEAF_KINDS[t]))
            if t == "heading_open":
                headings.append(Heading(tok.map[0], tok.map[1] - 1, int(tok.tag[1:]),
                                        tokens[i + 1].content.strip()))
    fm_lines, _ = front_matter(text)
    return DocBlocks(fm_lines, leaves, items, tables, headings)


def _innermost(candidates, line: int):
    best = None
    for c in candidates:
        if c.first <= line <= c.last and (best is None or c.last - c.first <= best.last - best.first):
            best = c
    return best


def _unit_at(blocks: DocBlocks, line: int) -> Unit:
    table = _innermost(blocks.tables, line)
    if table is not None:
        return Unit(line, line, BlockKind.TABLE_ROW)
    item = _innermost(blocks.items, line)
    if item is not None:
        return Unit(item.first, item.last, BlockKind.LIST_ITEM)
    leaf = _innermost(blocks.leaves, line)
    if leaf is None:
        raise ExpansionRefused(RefusalKind.INVALID, "the quote starts outside any Markdown block")
    if leaf.kind == _RULE:
        raise ExpansionRefused(RefusalKind.INVALID, "the quote lies on a thematic break, which holds no answer text")
    return leaf


def _sibling_end(blocks: DocBlocks, item_line: int, end_line: int) -> int | None:
    """End of the later sibling of the item holding ``item_line`` that contains ``end_line``."""
    item = _innermost(blocks.items, item_line)
    for other in blocks.items:
        if other.parent == item.parent and other.first > item.last and other.first <= end_line <= other.last:
            return other.last
    return None


def expand(doc: Document, blocks: DocBlocks, start: int, end: int) -> tuple[int, int, BlockKind]:
    """Widen the quote ``[start, end)`` to whole blocks; returns ``(span_start, span_end, kind)``."""
    first = doc.line_of(start)
    last = doc.line_of(end - 1)
    if first < blocks.front_matter_lines:
        raise ExpansionRefused(RefusalKind.FRONT_MATTER, "the quote lies in YAML front matter, which is metadata, not answer text")
    table = _innermost(blocks.tables, first)
    if table is not None and first == last == table.delimiter:
        raise ExpansionRefused(RefusalKind.INVALID, "the quote lies in a table's delimiter row")
    head = _unit_at(blocks, first)
    tail_line = head.last
    if last > head.last:
        sibling = _sibling_end(blocks, first, last) if head.kind == BlockKind.LIST_ITEM else None
        tail_line = sibling if sibling is not None else max(head.last, _unit_at(blocks, last).last)
    return doc.line_starts[head.first], doc.line_end(tail_line), BlockKind(head.kind)


# Every line where a heading can start (ATX, in any container) or a setext heading ends.
HEADING_LINE = re.compile(r"^[ \t>*+\-0-9.)]*#{1,6}(?:[ \t]|$)|^[ \t>]*(?:=+|-+)[ \t]*$", re.MULTILINE)


def section_span(doc: Document, blocks_at: Callable[[int, int], DocBlocks], heading: str) -> tuple[int, int]:
    """The section named by ``heading``: its heading line through the line before the next
    heading of the same or higher level, trailing blank lines excluded.

    ``blocks_at(first, last)`` gives blocks exact for those lines, so only the windows
    that can hold a heading are parsed: a heading whose text is ``heading`` has that text
    on its first line, and any heading has a line that ``HEADING_LINE`` matches.
    """
    wanted = heading.strip()
    text, starts = doc.text, doc.line_starts
    if not wanted or "\n" in wanted or "\ufffd" in wanted:
        # a multi-line setext title, or markdown-it's stand-in for NUL: the whole document
        return _section_in(doc, blocks_at(0, len(starts) - 1).headings, wanted)
    found: dict[int, Heading] = {}
    searched: dict[int, DocBlocks] = {}  # windows already searched, held so that no id is reused
    pos = text.find(wanted)
    while pos != -1:
        line = doc.line_of(pos)
        blocks = blocks_at(line, line)
        if id(blocks) not in searched:  # once per window, not once per line holding the text
            searched[id(blocks)] = blocks
            found.update((h.first, h) for h in blocks.headings if h.text == wanted)
        pos = text.find(wanted, doc.line_end(line))
    matches = sorted(found.values(), key=lambda h: h.first)
    if len(matches) != 1:
        return _section_in(doc, matches, wanted)
    h = matches[0]
    later: list[Heading] = []
    searched.clear()
    for m in HEADING_LINE.finditer(text, doc.line_end(h.last)):
        line = doc.line_of(m.start())
        blocks = blocks_at(line, line)
        if id(blocks) in searched:
            continue  # a window gives every line in it the same answer
        searched[id(blocks)] = blocks
        later = [o for o in blocks.headings if o.first > h.first and o.level <= h.level]
        if later:
            break
    return _section_in(doc, [h, *later], wanted)


def _section_in(doc: Document, headings: list[Heading], wanted: str) -> tuple[int, int]:
    """The section of the one heading titled ``wanted`` among ``headings`` (every heading
    of the document from it to the first later one of the same or higher level)."""
    matches = [h for h in headings if h.text == wanted]
    if not matches:
        raise ExpansionRefused(RefusalKind.NOT_FOUND, f"no heading {wanted!r} in {doc.doc_id}")
    if len(matches) > 1:
        lines = ", ".join(str(h.first + 1) for h in matches)
        raise ExpansionRefused(RefusalKind.AMBIGUOUS, f"{len(matches)} headings {wanted!r} in {doc.doc_id} (lines {lines})")
    h = matches[0]
    stop = len(doc.line_starts)
    for other in sorted(headings, key=lambda o: o.first):
        if other.first > h.first and other.level <= h.level:
            stop = other.first
            break
    last = stop - 1
    text = doc.text
    while last > h.first and not text[doc.line_starts[last]:doc.line_end(last)].strip():
        last -= 1
    return doc.line_starts[h.first], doc.line_end(last)


def document_span(doc: Document) -> tuple[int, int]:
    """The whole document as a label (SPEC §2.1): the first line after YAML front matter
    through the end, leading and trailing blank lines excluded; a document with nothing
    left is refused, since an empty span can be no answer."""
    fm_lines, _ = front_matter(doc.text)
    text, starts = doc.text, doc.line_starts
    first, last = fm_lines, len(starts) - 1
    while first <= last and not text[starts[first]:doc.line_end(first)].strip():
        first += 1
    while last >= first and not text[starts[last]:doc.line_end(last)].strip():
        last -= 1
    if first > last:
        what = "front matter only" if fm_lines else "empty"
        raise ExpansionRefused(RefusalKind.INVALID, f"{doc.doc_id} is {what}: there is no text to label")
    return starts[first], doc.line_end(last)
