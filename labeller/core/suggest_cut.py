"""Cut a nearest-passage suggestion to one block (or one table cell) at word edges.

``nearest_passages`` aligns the refused quote with a chunk's text, whose whitespace is
folded: the best stretch it finds may run from the end of one paragraph into a list item,
or across the ``|`` of two table cells. A quote like that is no one's answer and reads
as noise, so each passage is cut back to the one block piece that matches the quote best:
pieces end at blank lines, at the lines of headings, list items, block quotes, fences and
table rows, and at a table row's cell separators. Each piece is then cut at word edges
and loses its leading Markdown marker (``- ``, ``1. ``, ``# ``, ``> ``). The best piece is then
snapped to the quote (``snap_to_quote``): a word at either edge that the quote has no counterpart
for is dropped, and so is punctuation at either edge the quote did not have — an accepted
``malformed JSON,`` would carry a comma into the label that its author never chose (issue 35).

The rule only narrows a suggestion; it never widens it and never applies it. Every
passage with a place is scored on one scale (``piece_score``), so that ``suggest`` can
order cut and uncut passages together.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from rapidfuzz import fuzz

from labeller.core.anchors import fold_quote
from labeller.core.resolve import Resolver
from labeller.core.vocab import Place

# a line that is a block of its own (or starts one): blank, heading, list item, quote, fence, table row
_OWN_LINE = re.compile(r"^\s*(?:$|#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>|```|~~~|\|)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s")  # a list item's first line
_MARKER = re.compile(r"(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d{1,9}[.)]\s+|>\s*)+")
_WS_RUN = re.compile(r"\s+")
MAX_SNAP_WORDS = 4  # words ``snap_to_quote`` drops from a passage's edges, at most


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


def items_only(text: str, start: int, end: int) -> bool:
    """Whether ``[start, end)`` runs over paragraphs and list items only: no heading, fence,
    table row or block quote among its lines (a sentence split into list items, not into
    sections or tables)."""
    first = text.rfind("\n", 0, start) + 1
    return not any(line.strip() and _OWN_LINE.match(line) and not _LIST_ITEM.match(line)
                   for line in text[first:end].split("\n"))


def paragraphs_only(text: str, start: int, end: int) -> bool:
    """Whether ``[start, end)`` is one block piece, or paragraphs parted by blank lines alone: a
    paragraph split in two (a line inserted into it, or a blank line) keeps its words across
    the break, while a heading, list item, block quote, fence or table row among its lines makes
    it text of other blocks. One list item's text over several lines is one block: a line
    that starts with a list marker runs on over the lines after it, up to a blank line or a
    line of a block of its own ("* Do not take the average of a ratio or average of an" /
    "average, as that is not statistically valid.")."""
    if len(pieces(text, start, end)) == 1:
        return True
    first = text.rfind("\n", 0, start) + 1
    head, *rest = text[first:end].split("\n")
    if _LIST_ITEM.match(head):
        return all(line.strip() and not _OWN_LINE.match(line) for line in rest)
    return not any(line.strip() and _OWN_LINE.match(line) for line in [head, *rest])


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
    start, end = _strip_space(text, start, end)
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
    best = best_piece(text, place.start, place.end, lambda piece: piece_score(folded, piece))
    if best is None:
        return None
    s, e = snap_to_quote(text, best[1], best[2], folded)
    score = piece_score(folded, _WS_RUN.sub(" ", text[s:e]))
    if (s, e) == (place.start, place.end):  # already one piece: only its score is on this scale
        return {**suggestion, "score": round(score, 1)}, place
    quote = _WS_RUN.sub(" ", text[s:e])
    doc = resolver.corpus[place.doc]
    cut = {**suggestion, "quote": quote, "where": doc.where(s), "score": round(score, 1),
           "unique": resolver.index.count(fold_quote(quote), scope_doc) == 1}
    return cut, Place(place.doc, s, e)


def best_piece(text: str, start: int, end: int, score: Callable[[str], float]) -> tuple[float, int, int] | None:
    """The block piece of ``[start, end)``, cut at word edges (``trim_piece``), that ``score``
    rates highest (the first on a tie), as (its score, its start, its end); ``score`` is given
    the piece's text with its whitespace folded. ``None`` when no piece has any words."""
    best: tuple[float, int, int] | None = None
    for s, e in pieces(text, start, end):
        trimmed = trim_piece(text, s, e)
        if trimmed is None:
            continue
        rated = score(_WS_RUN.sub(" ", text[trimmed[0]:trimmed[1]]))
        if best is None or rated > best[0]:
            best = (rated, *trimmed)
    return best


def snap_to_quote(text: str, start: int, end: int, folded: str) -> tuple[int, int]:
    """``[start, end)`` (a piece cut at word edges) fitted to the quote: whole words dropped
    from either edge while that brings the passage closer to the quote as a whole (rapidfuzz's
    ratio, up to ``MAX_SNAP_WORDS``; never below the quote's length, never half a code span),
    then the punctuation at either edge the quote does not have there (``edge_punctuation``).
    Never empty: a piece that would be stays as it is."""
    def fit(span: tuple[int, int]) -> float:
        return fuzz.ratio(folded, _WS_RUN.sub(" ", text[span[0]:span[1]]))

    def droppable(span: tuple[int, int], shorter: tuple[int, int]) -> bool:
        """Only surplus goes: the passage stays as long as the quote, and no code span is cut
        in two (the dropped text holds an even number of backticks)."""
        dropped = text[span[0]:shorter[0]] + text[shorter[1]:span[1]]
        return len(_WS_RUN.sub(" ", text[shorter[0]:shorter[1]])) >= len(folded) and dropped.count("`") % 2 == 0

    span, best = (start, end), fit((start, end))
    for _ in range(MAX_SNAP_WORDS):
        shorter = [c for c in (_without_last_word(text, *span), _without_first_word(text, *span))
                   if c is not None and droppable(span, c)]
        scored = max(((fit(c), c) for c in shorter), default=None)
        if scored is None or scored[0] <= best:
            break
        best, span = scored
    return edge_punctuation(text, *span, folded)


def _without_last_word(text: str, start: int, end: int) -> tuple[int, int] | None:
    cut = end
    while cut > start and not text[cut - 1].isspace():
        cut -= 1
    while cut > start and text[cut - 1].isspace():
        cut -= 1
    return (start, cut) if cut > start else None


def _without_first_word(text: str, start: int, end: int) -> tuple[int, int] | None:
    cut = start
    while cut < end and not text[cut].isspace():
        cut += 1
    while cut < end and text[cut].isspace():
        cut += 1
    return (cut, end) if cut < end else None


def _is_punctuation(ch: str) -> bool:
    return unicodedata.category(ch).startswith("P")


def edge_punctuation(text: str, start: int, end: int, folded: str) -> tuple[int, int]:
    """Without the punctuation at its end (and start) that the quote's end (start) does not
    have: a run the quote's own run begins (ends) is kept as far as the quote's goes, any
    other run goes whole (``JSON,`` for ``JSON`` → ``JSON``; ``model.)`` for ``model.`` →
    ``model.``; ``(see`` for ``see`` → ``see``), and so on past the whitespace a run leaves at
    the edge (``so.⏎:::`` for ``so`` → ``so``: a container's closing marker on the next line
    left "if you do so. ", space and all, on Vue's event-handling page)."""
    while True:
        s, e = _strip_space(text, *_edge_runs(text, start, end, folded))
        if (s, e) == (start, end) or s == e:
            return start, end
        start, end = s, e


def _strip_space(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the whitespace at either edge."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _edge_runs(text: str, start: int, end: int, folded: str) -> tuple[int, int]:
    """One pass of ``edge_punctuation``: the punctuation run at each edge."""
    def run(s: str, from_end: bool) -> str:
        chars = reversed(s) if from_end else iter(s)
        n = 0
        for ch in chars:
            if not _is_punctuation(ch):
                break
            n += 1
        return s[len(s) - n:] if from_end else s[:n]

    piece = text[start:end]
    tail, quote_tail = run(piece, True), run(folded, True)
    keep_tail = len(quote_tail) if tail.startswith(quote_tail) else 0
    new_end = end - (len(tail) - keep_tail)
    head, quote_head = run(text[start:new_end], False), run(folded, False)
    keep_head = len(quote_head) if head.endswith(quote_head) else 0
    new_start = start + (len(head) - keep_head)
    return (new_start, new_end) if text[new_start:new_end].strip() else (start, end)
