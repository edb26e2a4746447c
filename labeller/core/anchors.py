"""Finding quotes in the corpus: exact matching with whitespace-run folding only.

A quote copied across a line wrap must still resolve, and nothing else may be forgiven:
no case folding, no markup folding, no fuzzy guess. We fold by collapsing every
whitespace run (``str.isspace``) to one space on both sides, which turns the quote into
a plain literal; a position map takes matches back to canonical offsets. One
Aho-Corasick pass finds every quote of a build at once; a lone quote typed in the app
uses ``str.find``, which beats building an automaton for a single needle.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import cached_property

import ahocorasick

from labeller.core.canon import canonical_quote
from labeller.core.corpus import Corpus, Document

_WS_RUN = re.compile(r"\s+")
_WS_MULTI = re.compile(r"\s{2,}")
# Below this many distinct quotes, one ``str.find`` scan per quote is cheaper than an automaton.
_AUTOMATON_MIN_QUOTES = 8


def fold_quote(quote: str) -> str:
    """The quote as searched: canonicalised, trimmed, whitespace runs as single spaces."""
    return _WS_RUN.sub(" ", canonical_quote(quote))


@dataclass(frozen=True, slots=True)
class Occurrence:
    doc_id: str
    start: int
    end: int


class FoldedDocument:
    """A document with whitespace runs collapsed, and the map back to canonical offsets."""

    __slots__ = ("doc", "folded", "_run_pos", "_run_shift")

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        text = doc.text
        run_pos: list[int] = []
        run_shift: list[int] = []
        shift = 0
        for m in _WS_MULTI.finditer(text):
            run_pos.append(m.start() - shift)  # folded position of the single space
            shift += m.end() - m.start() - 1
            run_shift.append(shift)
        self._run_pos = run_pos
        self._run_shift = run_shift
        self.folded = _WS_RUN.sub(" ", text)

    def to_canonical(self, folded_pos: int) -> int:
        """Canonical offset of the non-space character at ``folded_pos``."""
        k = bisect.bisect_left(self._run_pos, folded_pos)
        return folded_pos + (self._run_shift[k - 1] if k else 0)

    def occurrence(self, fstart: int, flen: int) -> Occurrence:
        start = self.to_canonical(fstart)
        end = self.to_canonical(fstart + flen - 1) + 1
        return Occurrence(self.doc.doc_id, start, end)


class QuoteIndex:
    """Every document of a corpus in folded form, ready for quote lookups.

    Built once per corpus snapshot (cached by the caller under the corpus digest); each
    lookup is then a scan of the folded text, never of the canonical text plus regexes.
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.docs = [FoldedDocument(d) for d in corpus]
        self._by_id = {fd.doc.doc_id: fd for fd in self.docs}

    @cached_property
    def _joined(self) -> tuple[str, list[int]]:
        # Folded text has no newline left, so "\n" can separate documents safely:
        # no folded quote contains one, so no match can straddle two documents.
        starts = []
        pos = 0
        for fd in self.docs:
            starts.append(pos)
            pos += len(fd.folded) + 1
        return "\n".join(fd.folded for fd in self.docs), starts

    def find_all(self, quotes: list[str], doc_id: str | None = None) -> dict[str, list[Occurrence]]:
        """All overlapping occurrences of each folded quote (in the one doc, if given)."""
        needles = sorted({q for q in quotes if q})
        found: dict[str, list[Occurrence]] = {q: [] for q in needles}
        if not needles:
            return found
        docs = [self._by_id[doc_id]] if doc_id is not None else self.docs
        if len(needles) < _AUTOMATON_MIN_QUOTES or doc_id is not None:
            for fd in docs:
                for q in needles:
                    for pos in _find_overlapping(fd.folded, q):
                        found[q].append(fd.occurrence(pos, len(q)))
            return found
        auto = ahocorasick.Automaton()
        for q in needles:
            auto.add_word(q, q)
        auto.make_automaton()
        joined, starts = self._joined
        for end_idx, q in auto.iter(joined):
            gstart = end_idx - len(q) + 1
            i = bisect.bisect_right(starts, gstart) - 1
            found[q].append(self.docs[i].occurrence(gstart - starts[i], len(q)))
        for occ in found.values():
            occ.sort(key=lambda o: (o.doc_id, o.start))
        return found

    def count(self, folded_quote: str, doc_id: str | None = None, limit: int = 2) -> int:
        """How many times a folded quote occurs, stopping early at ``limit``."""
        docs = [self._by_id[doc_id]] if doc_id is not None else self.docs
        n = 0
        for fd in docs:
            for _ in _find_overlapping(fd.folded, folded_quote):
                n += 1
                if n >= limit:
                    return n
        return n

    def folded(self, doc_id: str) -> FoldedDocument:
        return self._by_id[doc_id]


def _find_overlapping(haystack: str, needle: str):
    pos = haystack.find(needle)
    while pos != -1:
        yield pos
        pos = haystack.find(needle, pos + 1)
