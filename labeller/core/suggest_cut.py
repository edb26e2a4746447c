"""Cut a nearest-passage suggestion to one block (or one table cell) at word edges.

``nearest_passages`` aligns the refused quote with a chunk's text, whose whitespace is
folded: the best stretch it finds may run from the end of one paragraph into a list item,
or across the ``|`` of two table cells. A quote like that is no one's answer and reads
as noise, so each passage is cut back to the one block piece that matches the quote best:
pieces end at blank lines, at the lines of headings, list items, block quotes, fences and
table rows, and at a table row's cell separators. Each piece is then cut at word edges
and loses its leading Markdown marker (``- ``, ``1. ``, ``# ``, ``> ``).

The rule only narrows a suggestion; it never widens it and never applies it. Every
passage with a place is scored on one scale (``piece_score``), so that ``suggest`` can
order cut and uncut passages together.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from labeller.core.anchors import fold_quote
from labeller.core.resolve import Resolver
from labeller.core.vocab import Place

# a line that is a block of its own (or starts one): blank, heading, list item, quote, fence, table row
_OWN_LINE = re.compile(r"^\s*(?:$|#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>|```|~~~|\|)")
_MARKER = re.compile(r"(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+|>\s*)+")
_WS_RUN = re.compile(r"\s+")


def pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``[start, end)`` of ``text`` split at block and table-cell boundaries (canonical offsets)."""
    out: list[tuple[int, int]] = []
    line_start = text.rfind("\n", 0, start) + 1
    piece_start = start
    pos = line_start
    while pos < end:
        nl = text.find("\n", pos)
        line_end = len(text) if nl == -1 else nl
        line = text[pos:line_end]
        own = bool(_OWN_LINE.match(line))
        if own and pos > piece_start:  # this line starts a new block
            out.append((piece_start, pos))
            piece_start = max(pos, start)
        if line.lstrip().startswith("|"):  # one piece per cell
            for m in re.finditer(r"\|", line):
                bar = pos + m.start()
                if piece_start <= bar < end:
                    out.append((piece_start, bar))
                    piece_start = bar + 1
        next_line = line_end + 1
        if own and next_line < end:  # nothing continues a line that is a block of its own
            out.append((piece_start, min(next_line, end)))
            piece_start = next_line
        pos = next_line
    if piece_start < end:
        out.append((piece_start, end))
    return [(s, e) for s, e in out if s < e]


def trim_piece(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The piece without its surrounding space, its leading Markdown marker, or a word cut
    in half at either edge (the piece's own edges are word edges only where they are the
    block's); ``None`` when nothing is left."""
    if start > 0 and not text[start - 1].isspace() and text[start - 1] not in "|" and not text[start].isspace():
        while start < end and not text[start].isspace():
            start += 1  # the piece starts inside a word: drop that word's tail
    if end < len(text) and not text[end].isspace() and text[end] not in "|" and not text[end - 1].isspace():
        while end > start and not text[end - 1].isspace():
            end -= 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    m = _MARKER.match(text, start, end)
    if m:
        start = m.end()
    return (start, end) if start < end else None


def piece_score(folded: str, piece: str) -> float:
    """How well ``piece`` stands for the quote, 0-100: rapidfuzz's partial ratio (the best
    alignment of the shorter with the longer), scaled down by the share of the quote's
    length a shorter piece can cover, so that one word the quote contains (a table cell
    ``eu`` for "eu Tuesdays") does not outscore the cell that holds most of it."""
    return fuzz.partial_ratio(folded, piece) * min(1.0, len(piece) / max(1, len(folded)))


def within_one_block(resolver: Resolver, folded: str, suggestion: dict, place: Place | None,
                     scope_doc: str | None) -> tuple[dict, Place | None] | None:
    """``suggestion`` cut to its best-matching block piece (see the module docstring), with
    where that piece is; as it was when it has no place or is already one piece; ``None``
    when no piece has any words."""
    if place is None or "quote" not in suggestion:
        return suggestion, place
    text = resolver.corpus[place.doc].text
    best: tuple[float, int, int] | None = None
    for s, e in pieces(text, place.start, place.end):
        trimmed = trim_piece(text, s, e)
        if trimmed is None:
            continue
        score = piece_score(folded, _WS_RUN.sub(" ", text[trimmed[0]:trimmed[1]]))
        if best is None or score > best[0]:
            best = (score, *trimmed)
    if best is None:
        return None
    score, s, e = best
    if (s, e) == (place.start, place.end):  # already one piece: only its score is on this scale
        return {**suggestion, "score": round(score, 1)}, place
    quote = _WS_RUN.sub(" ", text[s:e])
    doc = resolver.corpus[place.doc]
    cut = {**suggestion, "quote": quote, "where": doc.where(s), "score": round(score, 1),
           "unique": resolver.index.count(fold_quote(quote), scope_doc) == 1}
    return cut, Place(place.doc, s, e)
