"""Finding quotes in the corpus: exact matching with whitespace-run folding only.

A quote copied across a line wrap must still resolve, and nothing else may be forgiven:
no case folding, no markup folding, no fuzzy guess. We fold by collapsing every
whitespace run (``str.isspace``) to one space on both sides, which turns the quote into
a plain literal; a position map takes matches back to canonical offsets. One
Aho-Corasick pass finds every quote of a build at once; a lone quote typed in the app
uses ``str.find``, which beats building an automaton for a single needle.

Every search is linear in the text, whatever the needles (a repository is untrusted): each
needle keeps its first ``KEPT`` occurrences per document and counts the rest (a two-letter
quote on a large corpus would otherwise make a million objects nobody reads); a long
needle stays out of the automaton, whose matching walks a chain as long as the needle at
each position of a repetitive text, and its overlapping occurrences are found by
``find_overlapping``, which steps along the needle's period instead of searching again.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import ahocorasick

from labeller.core.cache import Codec, DigestCache, as_dict, as_list, as_str, check, ints
from labeller.core.canon import canonical_quote
from labeller.core.corpus import Corpus, Document

_WS_RUN = re.compile(r"\s+")
_WS_MULTI = re.compile(r"\s{2,}")
# Below this many distinct quotes, one ``str.find`` scan per quote is cheaper than an automaton.
_AUTOMATON_MIN_QUOTES = 8
# Needles longer than this are searched one by one (``find_overlapping``), not in the automaton.
AUTOMATON_MAX_NEEDLE = 256
# Occurrences of a needle kept per document, in order; the rest are only counted. What
# resolving reads: one for a unique quote, the listed ones of an ambiguous one.
KEPT = 20
LAST_SEARCH = ("occurrences", "last")

# One document's matches: {needle: (how many, the first ``KEPT`` canonical (start, end))}.
DocHits = dict[str, tuple[int, list[tuple[int, int]]]]
# The cached last search: (digest of its needles, {doc_id: (sha256, its DocHits)}).
SearchMatches = tuple[str, dict[str, tuple[str, DocHits]]]


def matches_to_data(value: SearchMatches) -> list:
    """The last search as plain data: each needle's count, then its kept ranges as one flat
    list of offsets."""
    digest, per_doc = value
    return [digest, {doc_id: [sha, {q: [n, *(x for r in ranges for x in r)] for q, (n, ranges) in hits.items()}]
                     for doc_id, (sha, hits) in per_doc.items()}]


def matches_from_data(data) -> SearchMatches:
    """What ``matches_to_data`` wrote, every field's type checked (a cache miss otherwise)."""
    digest, per_doc = as_list(data, 2)
    out = {}
    for doc_id, entry in as_dict(per_doc).items():
        sha, hits = as_list(entry, 2)
        found = {}
        for q, flat in as_dict(hits).items():
            ints(flat)
            check(len(flat) % 2 == 1 and len(flat) <= 2 * KEPT + 1 and flat[0] >= (len(flat) - 1) // 2)
            found[q] = (flat[0], list(zip(flat[1::2], flat[2::2])))
        out[doc_id] = (as_str(sha), found)
    return as_str(digest), out


SEARCH_CODEC = Codec("search-matches-kept", matches_to_data, matches_from_data)


def fold_quote(quote: str) -> str:
    """The quote as searched: canonicalised, trimmed, whitespace runs as single spaces."""
    return _WS_RUN.sub(" ", canonical_quote(quote))


FOLD_PIECE = 1 << 20  # characters folded at once: bounds the word list ``split`` builds
_WORD_END = re.compile(r"\S(?=\s)")  # a non-space character a whitespace character follows


def fold_text(text: str) -> str:
    """``re.sub(r"\\s+", " ", text)``, at twice the speed on a large document.

    ``str.split()`` and the regex ``\\s`` both split on exactly ``str.isspace``
    characters; ``split`` also drops a leading and a trailing run, which are put back.
    Its word list costs about ten times the text (an 18 MB table: 190 MB at once), so a
    long text is folded in pieces of about ``FOLD_PIECE`` characters, each cut just
    before a whitespace run — a run is then never split, and the pieces' folds join into
    the whole one's.
    """
    if len(text) <= FOLD_PIECE:
        return _fold_piece(text)
    parts = []
    start = 0
    while start < len(text):
        m = _WORD_END.search(text, start + FOLD_PIECE) if len(text) - start > FOLD_PIECE else None
        cut = m.end() if m else len(text)
        parts.append(_fold_piece(text[start:cut]))
        start = cut
    return "".join(parts)


def _fold_piece(text: str) -> str:
    words = text.split()
    if not words:
        return " " if text else ""
    return (" " if text[0].isspace() else "") + " ".join(words) + (" " if text[-1].isspace() else "")


@dataclass(frozen=True, slots=True)
class Occurrence:
    doc_id: str
    start: int
    end: int


class Hits(list[Occurrence]):
    """The occurrences of one needle a search keeps (the first ``KEPT`` of each document, in
    corpus order) and ``counts``, how many each document holds in all: a list, so a caller
    that reads occurrences reads these, and ``total`` for one that needs the number."""

    __slots__ = ("counts",)

    def __init__(self, occurrences=(), counts: dict[str, int] | None = None) -> None:
        super().__init__(occurrences)
        self.counts: dict[str, int] = counts if counts is not None else {}

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def add(self, occ: Occurrence) -> None:
        """Count an occurrence, keeping it if its document has fewer than ``KEPT`` kept."""
        n = self.counts.get(occ.doc_id, 0)
        self.counts[occ.doc_id] = n + 1
        if n < KEPT:
            self.append(occ)

    def in_doc(self, doc_id: str) -> "Hits":
        return Hits([o for o in self if o.doc_id == doc_id],
                    {doc_id: self.counts[doc_id]} if doc_id in self.counts else {})


class FoldedDocument:
    """A document with whitespace runs collapsed, and the map back to canonical offsets."""

    __slots__ = ("doc", "folded", "_run_pos", "_run_shift", "_runs_left", "_lock")

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.folded = fold_text(doc.text)
        self._run_pos: list[int] = []  # folded position of each collapsed run's single space
        self._run_shift: list[int] = []  # characters dropped up to and including that run
        self._runs_left: Iterator[re.Match[str]] | None = None
        self._lock = threading.Lock()  # the app's resolution workers share one index

    def _runs_through(self, folded_pos: int) -> None:
        """Extend the run map past ``folded_pos``.

        Built on demand and only as far as asked: most documents never hold a match, a
        build's matches come in document order, and the map costs as much as the folding.
        """
        run_pos, run_shift = self._run_pos, self._run_shift
        if run_pos and run_pos[-1] >= folded_pos:
            return
        with self._lock:
            if self._runs_left is None:
                self._runs_left = _WS_MULTI.finditer(self.doc.text)
            shift = run_shift[-1] if run_shift else 0
            for m in self._runs_left:
                pos = m.start() - shift
                shift += m.end() - m.start() - 1
                run_shift.append(shift)  # before its position: a reader without the lock
                run_pos.append(pos)  # trusts every position it sees to have its shift
                if pos >= folded_pos:
                    return

    def to_folded(self, pos: int) -> int:
        """Folded offset of the canonical non-space character at ``pos`` (``to_canonical``'s
        inverse): ``pos`` less the characters dropped by the runs that end before it."""
        self._runs_through(pos)  # a folded offset is at most the canonical one
        run_pos, run_shift = self._run_pos, self._run_shift
        k = bisect.bisect_right(range(len(run_pos)), pos, key=lambda i: run_pos[i] + run_shift[i] + 1)
        return pos - (run_shift[k - 1] if k else 0)

    def to_canonical(self, folded_pos: int) -> int:
        """Canonical offset of the non-space character at ``folded_pos``."""
        self._runs_through(folded_pos)
        run_pos, run_shift = self._run_pos, self._run_shift
        k = bisect.bisect_left(run_pos, folded_pos)
        return folded_pos + (run_shift[k - 1] if k else 0)

    def occurrence(self, fstart: int, flen: int) -> Occurrence:
        start = self.to_canonical(fstart)
        end = self.to_canonical(fstart + flen - 1) + 1
        return Occurrence(self.doc.doc_id, start, end)


class QuoteIndex:
    """Every document of a corpus in folded form, ready for quote lookups.

    Built once per corpus snapshot (cached by the caller under the corpus digest); each
    lookup is then a scan of the folded text, never of the canonical text plus regexes.
    Documents are folded on first use, so a build whose search results come from the
    cache folds only the documents that changed.
    """

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self._by_id: dict[str, FoldedDocument] = {}

    @cached_property
    def docs(self) -> list[FoldedDocument]:
        """Every document, folded, in corpus order."""
        return [self.folded(doc_id) for doc_id in self.corpus.docs]

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

    def find_all(self, quotes: list[str], doc_id: str | None = None) -> dict[str, Hits]:
        """The occurrences of each folded quote (in the one doc, if given), overlapping ones
        included: the first ``KEPT`` of each document, and the count of all."""
        needles = search_needles(quotes)
        found: dict[str, Hits] = {q: Hits() for q in needles}
        if not needles:
            return found
        if len(needles) < _AUTOMATON_MIN_QUOTES and doc_id is None:
            # The app's live lookup: one scan of the joined text instead of a call per
            # document halves the time of a corpus-wide quote on a large corpus.
            joined, starts = self._joined
            for q in needles:
                for gstart in find_overlapping(joined, q):
                    i = bisect.bisect_right(starts, gstart) - 1
                    fd = self.docs[i]
                    if found[q].counts.get(fd.doc.doc_id, 0) < KEPT:
                        found[q].add(fd.occurrence(gstart - starts[i], len(q)))
                    else:
                        found[q].counts[fd.doc.doc_id] += 1
            return found
        auto = search_automaton(needles) if len(needles) >= _AUTOMATON_MIN_QUOTES else None
        for fd in [self.folded(doc_id)] if doc_id is not None else self.docs:
            for q, (n, ranges) in document_hits(fd, auto, needles).items():
                found[q].extend(Occurrence(fd.doc.doc_id, s, e) for s, e in ranges)
                found[q].counts[fd.doc.doc_id] = n
        return found

    def find_all_cached(self, quotes: list[str], cache: DigestCache | None = None) -> dict[str, Hits]:
        """``find_all`` over the whole corpus, reusing each unchanged document's matches.

        The cache keeps the last search: the digest of its exact set of quotes and, per
        document, its sha256 and the canonical ranges found in it. With the same quotes, a
        document whose sha256 differs is searched again (and folded only then), every
        other one reused: after editing one document, ``build --check`` searches that
        document alone. Other quotes (a question was edited) search everything again.
        """
        needles = search_needles(quotes)
        if cache is None or len(needles) < _AUTOMATON_MIN_QUOTES:
            return self.find_all(needles)
        digest = needles_digest(needles)
        stored = cache.get(LAST_SEARCH, SEARCH_CODEC)
        previous = stored[1] if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == digest else {}
        per_doc: dict[str, tuple[str, DocHits]] = {}
        autos: list = []  # the automaton, once a document needs searching
        for doc in self.corpus:
            known = previous.get(doc.doc_id)
            if known is not None and known[0] == doc.sha256:
                per_doc[doc.doc_id] = known
                continue
            if not autos:
                autos.append(search_automaton(needles))
            per_doc[doc.doc_id] = (doc.sha256, document_hits(self.folded(doc.doc_id), autos[0], needles))
        if autos or len(per_doc) != len(previous):
            cache.put(LAST_SEARCH, (digest, per_doc), SEARCH_CODEC)
        found: dict[str, Hits] = {q: Hits() for q in needles}
        for doc_id, (_, hits) in per_doc.items():  # corpus order: sorted by doc_id
            for q, (n, ranges) in hits.items():
                found[q].extend(Occurrence(doc_id, s, e) for s, e in ranges)
                found[q].counts[doc_id] = n
        return found

    def count(self, folded_quote: str, doc_id: str | None = None, limit: int = 2) -> int:
        """How many times a folded quote occurs, stopping early at ``limit``."""
        docs = [self.folded(doc_id)] if doc_id is not None else self.docs
        n = 0
        for fd in docs:
            for _ in find_overlapping(fd.folded, folded_quote):
                n += 1
                if n >= limit:
                    return n
        return n

    def first(self, folded_quote: str, doc_id: str, start: int = 0) -> Occurrence | None:
        """The first occurrence of a folded quote in one document, if any, from the canonical
        offset ``start`` on (a passage of one chunk, where the document repeats it)."""
        fd = self.folded(doc_id)
        text = fd.doc.text
        while start < len(text) and text[start].isspace():
            start += 1  # ``to_folded`` maps a non-space character: within a run of spaces it is past the run's first
        pos = fd.folded.find(folded_quote, fd.to_folded(start) if start else 0) if folded_quote else -1
        return None if pos == -1 else fd.occurrence(pos, len(folded_quote))

    def folded(self, doc_id: str) -> FoldedDocument:
        fd = self._by_id.get(doc_id)
        if fd is None:
            fd = self._by_id[doc_id] = FoldedDocument(self.corpus[doc_id])
        return fd


def search_needles(folded_quotes) -> list[str]:
    """The distinct non-empty folded quotes of a search, in the order every path uses."""
    return sorted({q for q in folded_quotes if q})


def needles_digest(needles: list[str]) -> str:
    return hashlib.sha256("\n".join(needles).encode("utf-8")).hexdigest()


def automaton(needles: list[str]) -> ahocorasick.Automaton:
    auto = ahocorasick.Automaton()
    for q in needles:
        auto.add_word(q, q)
    auto.make_automaton()
    return auto


def search_automaton(needles: list[str]) -> ahocorasick.Automaton | None:
    """The automaton of the needles short enough for it (``None`` if none is): the others
    are ``document_hits``'s to search one by one."""
    short = [q for q in needles if len(q) <= AUTOMATON_MAX_NEEDLE]
    return automaton(short) if short else None


def document_hits(fd: FoldedDocument, auto: ahocorasick.Automaton | None, needles) -> DocHits:
    """Each needle's count in one document and the canonical ``(start, end)`` of its first
    ``KEPT`` (overlapping) matches: the automaton's needles in one pass, the others (too long
    for it, or every needle when there is no automaton) one ``find_overlapping`` each."""
    hits: dict[str, list] = {}  # needle -> [count, kept folded starts]
    if auto is not None:
        for end_idx, q in auto.iter(fd.folded):
            entry = hits.setdefault(q, [0, []])
            entry[0] += 1
            if entry[0] <= KEPT:
                entry[1].append(end_idx - len(q) + 1)
    for q in needles:
        if auto is not None and len(q) <= AUTOMATON_MAX_NEEDLE:
            continue
        starts = []
        n = 0
        for pos in find_overlapping(fd.folded, q):
            n += 1
            if n <= KEPT:
                starts.append(pos)
        if n:
            hits[q] = [n, starts]
    out: DocHits = {}
    for q, (n, starts) in hits.items():
        ranges = []
        for pos in starts:
            occ = fd.occurrence(pos, len(q))
            ranges.append((occ.start, occ.end))
        out[q] = (n, ranges)
    return out


# Needles at least this long step along their period between overlapping matches.
_PERIODIC_MIN = 64


def find_overlapping(haystack: str, needle: str):
    """Every start of ``needle`` in ``haystack``, overlapping ones included (SPEC §2), in
    time linear in the haystack whatever the two hold.

    Searching again from each match's next character costs a long needle its whole
    length per match (``str.find`` prepares the needle on every call): a 600 KB quote on
    a repetitive text was quadratic. Once a long needle matched at ``pos``, it cannot
    match before ``pos + p`` (``p`` its smallest period) and matches there exactly when
    the ``p`` characters after the match repeat its last ``p``: a chain of matches costs
    ``p`` per step. When the chain breaks, the next match lies more than about half a
    needle further on (Fine and Wilf), so the searches that restart are few.
    """
    m = len(needle)
    pos = haystack.find(needle)
    if m < _PERIODIC_MIN:
        while pos != -1:
            yield pos
            pos = haystack.find(needle, pos + 1)
        return
    period, tail = 0, ""
    while pos != -1:
        yield pos
        if not period:
            period = smallest_period(needle)
            tail = needle[m - period:]
        if period < m and haystack.startswith(tail, pos + m):
            pos += period
        else:
            pos = haystack.find(needle, pos + period)


@functools.lru_cache(maxsize=64)
def smallest_period(text: str) -> int:
    """The smallest ``p > 0`` with ``text[i] == text[i + p]`` for every ``i`` (Knuth-Morris-
    Pratt's failure function: the length less the longest proper border)."""
    fail = [0] * len(text)
    k = 0
    for i in range(1, len(text)):
        ch = text[i]
        while k and text[k] != ch:
            k = fail[k - 1]
        if text[k] == ch:
            k += 1
        fail[i] = k
    return len(text) - (fail[-1] if text else 0)
