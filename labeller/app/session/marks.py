"""What the author screen's document view shows for the open locator: which document and
where (the resolved span, the occurrence the author selected, a suggested passage), the
coloured ranges, and the gutter of lines other questions' labels cover.

Plain functions of the live preview and the session's results, apart from the screen so the
rules are read (and tested) without a terminal; each range is ``(start, end, kind)`` with a
kind the document view draws (``chunk``, ``other``, ``span``, ``match``, ``occurrence``, ``hit``).
"""

from __future__ import annotations

from collections.abc import Mapping

from labeller.app.session.preview import Preview
from labeller.core.anchors import fold_quote
from labeller.core.corpus import Corpus, Document
from labeller.core.nudge import nudge_range, nudge_refusal, quote_from_range, trimmed_start

Range = tuple[str, int, int]  # (doc_id, start, end)


def locator_place(p: Preview | None, corpus: Corpus, selected_start: int | None) -> tuple[str | None, int | None]:
    """The document the active locator points at and where to scroll in it (None: nowhere):
    its span, else the occurrence the author selected (or the first), else a suggestion."""
    if p is None:
        return None, None
    if p.span is not None:
        return p.span.doc_id, p.span.quote_start
    if p.refusal is not None and p.refusal.occurrences:
        occs = p.refusal.occurrences
        mine = next((o for o in occs if o["char_start"] == selected_start), occs[0])
        return mine["doc"], mine["char_start"]
    if p.occurrences:
        here = next((o for o in p.occurrences if o.start == selected_start), p.occurrences[0])
        return here.doc, here.start
    if p.places:
        return p.places[0][0], p.places[0][1]
    return (p.locator.doc, None) if p.locator.doc in corpus else (None, None)


def anchor_position(p: Preview | None, selected_start: int | None, hint: Range | None) -> Range | None:
    """Where the active quote is in the corpus, for a nudge to start from: the resolved match
    (not a whole section), the selected (or first) occurrence, else the last selection."""
    if p is not None and p.span is not None and p.span.block != "section":
        return p.span.doc_id, p.span.quote_start, p.span.quote_end
    if p is not None and p.refusal is not None and p.refusal.occurrences:
        occs = p.refusal.occurrences
        mine = next((o for o in occs if o["char_start"] == selected_start), occs[0])
        return mine["doc"], mine["char_start"], mine["char_end"]
    if p is not None and p.occurrences:
        return next((o for o in p.occurrences if o[1] == selected_start), p.occurrences[0])
    return hint


def marks_in(doc_id: str, p: Preview | None, other_spans, search_mark: Range | None) -> list[tuple[int, int, str]]:
    """The coloured ranges of ``doc_id``: a search hit, the record's other spans
    (``other_spans``: the record's resolved spans), then the active locator's chunks, span and
    match, its occurrences and suggested passages (drawn in this order, later on top)."""
    marks: list[tuple[int, int, str]] = []
    if search_mark and search_mark[0] == doc_id:
        marks.append((search_mark[1], search_mark[2], "hit"))
    own = (p.span.start, p.span.end) if p is not None and p.span is not None else None
    marks += [(s.start, s.end, "other") for s in other_spans if s.doc_id == doc_id and (s.start, s.end) != own]
    if p is not None and p.span is not None and p.span.doc_id == doc_id:
        marks += [(c.start, c.end, "chunk") for c in p.chunks]
        marks.append((p.span.start, p.span.end, "span"))
        marks.append((p.span.quote_start, p.span.quote_end, "match"))
    if p is not None and p.pending:
        marks += [(s, e, "occurrence") for d, s, e in p.occurrences if d == doc_id]
    if p is not None and p.refusal is not None:
        marks += [(o["char_start"], o["char_end"], "occurrence") for o in p.refusal.occurrences if o["doc"] == doc_id]
        marks += [(s, e, "hit") for d, s, e in p.places if d == doc_id]
    return marks


def labelled_lines(doc: Document, results: Mapping, drafts: Mapping, record_id: str | None) -> frozenset[int]:
    """The lines of ``doc`` that other records' labels (as last resolved) cover."""
    lines: set[int] = set()
    for rid, result in results.items():
        if rid == record_id or rid not in drafts:
            continue
        for sp in result.spans:
            if sp.doc_id == doc.doc_id:
                lines.update(range(doc.line_of(sp.start), doc.line_of(max(sp.start, sp.end - 1)) + 1))
    return frozenset(lines)


def nudged(corpus: Corpus, pos: Range, how: str) -> tuple[Range, Range] | str:
    """The quote at ``pos`` moved by a word (``nudge_range``'s ``how``): its new range and the
    anchor hint that keeps the author's place (its first word, not the space before); when it
    cannot move that way, the sentence saying why (``nudge_refusal``)."""
    doc_id, start, end = pos
    doc = corpus[doc_id]
    moved = nudge_range(doc.text, start, end, how)
    if moved is None:
        return nudge_refusal(doc.text, start, end, how)
    s, e = moved
    return (doc_id, s, e), anchor_hint(corpus, doc_id, s, e)


def anchor_hint(corpus: Corpus, doc_id: str, start: int, end: int) -> Range:
    """Where the author put a quote (a selection, a nudge), to tell which of several occurrences
    they meant: from its first word, not the space a selection may begin with."""
    return doc_id, trimmed_start(corpus[doc_id], start, end), end


def hint_holds(corpus: Corpus, hint: Range, quote: str | None) -> bool:
    """The quote as typed is still the text at ``hint`` (compared as the core compares quotes)."""
    doc_id, start, end = hint
    return quote is not None and fold_quote(quote) == quote_from_range(corpus[doc_id], start, end)
