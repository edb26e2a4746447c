"""Character offsets from another tool as exact quotes: the conversion every offset importer shares.

A tool's offsets count in its own text (a task's text, or a corpus document) and in its own
units (code points, UTF-16 code units as JavaScript counts, UTF-8 bytes). Each span is
converted to canonical code-point offsets of one corpus document, checked against the text
the tool recorded for it, and written as an ``exact`` quote pinned to that document with
the least context (SPEC §2.2) that makes it unique — so the record builds to exactly the
offsets the tool gave, and still reads as text a person can check.

Nothing is guessed: an offset that splits a character, a span whose text differs from what
the tool recorded, a task text found in no document or in several, each keeps its record
out with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.canon import canonical_fragment
from labeller.core.context import pick_occurrence, why_no_context
from labeller.core.models import Locator
from labeller.core.project import Project
from labeller.core.resolve import Span
from labeller.core.vocab import Place

UNITS = ("codepoints", "utf16", "utf8")


class SpanProblem(Exception):
    """Why one span cannot be imported: ``kind`` for the summary, ``message`` for the person."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


def _unit_len(ch: str, units: str) -> int:
    if units == "utf16":
        return 2 if ord(ch) > 0xFFFF else 1
    if units == "utf8":
        return len(ch.encode("utf-8", "surrogatepass"))
    return 1


def to_codepoints(text: str, offsets: list[int], units: str) -> list[int]:
    """Code-point indices of ``offsets`` counted in ``units`` over ``text``; an offset past
    the end or inside one character (half a surrogate pair, inside a UTF-8 sequence) is a
    ``SpanProblem``: that is exactly the naive-offset bug the units exist to catch."""
    for off in offsets:
        if isinstance(off, bool) or not isinstance(off, int) or off < 0:
            raise SpanProblem("bad_offset", f"offset {off!r} is not a non-negative integer")
    if units == "codepoints":
        for off in offsets:
            if off > len(text):
                raise SpanProblem("bad_offset", f"offset {off} is past the end of the text ({len(text)} code points)")
        return list(offsets)
    wanted = sorted(set(offsets))
    found: dict[int, int] = {}
    pos, k = 0, 0
    for i, ch in enumerate(text):
        while k < len(wanted) and wanted[k] <= pos:
            if wanted[k] == pos:
                found[pos] = i
            k += 1
        pos += _unit_len(ch, units)
    while k < len(wanted) and wanted[k] <= pos:
        if wanted[k] == pos:
            found[pos] = len(text)
        k += 1
    for off in offsets:
        if off not in found:
            if off > pos:
                raise SpanProblem("bad_offset", f"offset {off} is past the end of the text ({pos} {units} units)")
            raise SpanProblem("bad_offset", f"offset {off} falls inside a character counted in {units} "
                              "(check --units)")
    return [found[off] for off in offsets]


def canonical_range(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` of a tool's text (code points) as offsets into its canonical form.

    Canonicalising the parts before, inside and after the span must give the canonical
    whole; where it does not, a boundary splits a CRLF pair or a character and its
    combining marks, and no canonical offset says the same thing."""
    if not 0 <= start < end <= len(text):
        raise SpanProblem("bad_offset", f"span [{start}, {end}) is empty or outside the text "
                          f"({len(text)} code points)")
    before, inside, after = (canonical_fragment(p) for p in (text[:start], text[start:end], text[end:]))
    if before + inside + after != canonical_fragment(text):
        raise SpanProblem("bad_offset", f"span [{start}, {end}) starts or ends inside a line break pair or a "
                          "combined character")
    return len(before), len(before) + len(inside)


def check_text(claimed, actual: str) -> None:
    """The tool's own text for the span must equal the text at its offsets (both canonical)."""
    if claimed is None:
        return
    if not isinstance(claimed, str):
        raise SpanProblem("bad_offset", f"the span's text must be a string, not {type(claimed).__name__}")
    if canonical_fragment(claimed) != actual:
        raise SpanProblem("offset_mismatch", f"the text at the offsets, {_short(actual)!r}, is not the span's own "
                          f"text {_short(canonical_fragment(claimed))!r} (wrong --units, or the text changed)")


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


@dataclass
class TextFinder:
    """Which corpus document a tool's task text came from: the one document holding its
    canonical form exactly once. Cached per text, since a task file repeats its texts.

    A text found in two or more documents (a shared boilerplate page, a document copied
    under two names) is ambiguous; a task that names its document (``hint``: Label Studio's
    ``data.doc``, which labeller's own export writes) breaks the tie when that document is
    one of them and holds the text once. The hint only breaks ties: a text found in one
    document is taken from there, as without one.
    """

    project: Project

    def __post_init__(self) -> None:
        self._hits: dict[str, list[tuple[str, int]]] = {}

    def find(self, text: str, hint: str | None = None, hint_from: str = "the task's document field") -> tuple[str, int]:
        """``(doc_id, canonical offset where the task text starts)`` or a ``SpanProblem``;
        ``hint_from`` says where the hint was read, for the message."""
        canon = canonical_fragment(text)
        if not canon.strip():
            raise SpanProblem("task_not_in_corpus", "the task text is empty")
        hits = self._hits.get(canon)
        if hits is None:
            hits = self._hits[canon] = self._occurrences(canon)
        if not hits:
            raise SpanProblem("task_not_in_corpus", f"the task text ({_short(canon)!r}) occurs in no corpus document "
                              "(exactly, after NFC and line-break normalisation)")
        if len(hits) == 1:
            return hits[0]
        where = " and ".join(sorted({d for d, _ in hits}))
        if hint is None:
            raise SpanProblem("task_ambiguous", f"the task text occurs more than once ({where}); its offsets could "
                              f"mean either place, and {hint_from} is absent, so it names no document to pick")
        in_hint = self._in(hint, canon)
        if len(in_hint) == 1:
            return in_hint[0]
        if in_hint:
            raise SpanProblem("task_ambiguous", f"the task text occurs more than once in {hint!r} itself, the "
                              f"document {hint_from} names; its offsets could mean either place")
        raise SpanProblem("task_ambiguous", f"the task text occurs more than once ({where}); {hint_from} names "
                          f"{hint!r}, which is none of them")

    def _occurrences(self, canon: str) -> list[tuple[str, int]]:
        """The first two places holding ``canon`` in corpus order (two are enough to refuse)."""
        hits: list[tuple[str, int]] = []
        for doc in self.project.corpus:
            at = doc.text.find(canon)
            while at != -1 and len(hits) < 2:
                hits.append((doc.doc_id, at))
                at = doc.text.find(canon, at + 1)
            if len(hits) > 1:
                break
        return hits

    def _in(self, doc_id: str, canon: str) -> list[tuple[str, int]]:
        """Up to two places of ``canon`` in the document ``doc_id`` (none if no such document)."""
        if doc_id not in self.project.corpus:
            return []
        text = self.project.corpus[doc_id].text
        first = text.find(canon)
        if first == -1:
            return []
        second = text.find(canon, first + 1)
        return [(doc_id, first)] + ([(doc_id, second)] if second != -1 else [])


def span_locator(project: Project, doc_id: str, start: int, end: int) -> Locator:
    """A quote locator pinned to ``doc_id`` that resolves to canonical ``[start, end)``,
    with the shortest context that makes it unique there (SPEC §2.2).

    The quote is the span's text. If block expansion of it gives exactly ``[start, end)``
    (a paragraph, a list item, a section exported by labeller, with its line ends), the
    locator is that plain quote; otherwise it is ``exact``. A quote is trimmed, so an exact
    span with whitespace at an edge lands on its first/last character (``trimmed``); a span
    of whitespace only is a ``SpanProblem``."""
    text = project.corpus[doc_id].text
    if not text[start:end].strip():
        raise SpanProblem("blank_span", f"span [{start}, {end}) of {doc_id} holds only whitespace")
    ts, te = trimmed(text, start, end)
    picked = pick_occurrence(project.resolver.index, Locator(doc=doc_id, quote=text[ts:te]), Place(doc_id, ts, te))
    if picked is None:
        raise SpanProblem("ambiguous", f"{project.corpus[doc_id].where(ts)}: "
                          + why_no_context(project.resolver.index, text[ts:te], doc_id))
    span = project.resolver.resolve(picked)
    if isinstance(span, Span) and (span.start, span.end) == (start, end):
        return picked
    return picked.model_copy(update={"exact": True})


def trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without whitespace at its edges: where ``span_locator``'s quote lands."""
    piece = text[start:end]
    return start + len(piece) - len(piece.lstrip()), end - (len(piece) - len(piece.rstrip()))


def from_codepoints(text: str, offsets: list[int], units: str) -> list[int]:
    """The inverse of ``to_codepoints``: code-point indices of ``text`` counted in ``units``."""
    if units == "codepoints":
        return list(offsets)
    wanted = set(offsets)
    out: dict[int, int] = {}
    pos = 0
    for i, ch in enumerate(text):
        if i in wanted:
            out[i] = pos
        pos += _unit_len(ch, units)
    if len(text) in wanted:
        out[len(text)] = pos
    return [out[o] for o in offsets]
