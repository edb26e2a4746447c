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
LAST_SEARCH = ("occurrences", "last")

# The cached last search: (digest of its needles, {doc_id: (sha256, {needle: [(start, end)]})}).
SearchMatches = tuple[str, dict[str, tuple[str, dict[str, list[tuple[int, int]]]]]]


def matches_to_data(value: SearchMatches) -> list:
    """The last search as plain data: each needle's ranges as one flat list of offsets."""
    digest, per_doc = value
    return [digest, {doc_id: [sha, {q: [x for r in ranges for x in r] for q, ranges in hits.items()}]
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
            check(len(flat) % 2 == 0)
            found[q] = list(zip(flat[::2], flat[1::2]))
        out[doc_id] = (as_str(sha), found)
    return as_str(digest), out


SEARCH_CODEC = Codec("search-matches", matches_to_data, matches_from_data)


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

    def find_all(self, quotes: list[str], doc_id: str | None = None) -> dict[str, list[Occurrence]]:
        """All overlapping occurrences of each folded quote (in the one doc, if given)."""
        needles = sorted({q for q in quotes if q})
        found: dict[str, list[Occurrence]] = {q: [] for q in needles}
        if not needles:
            return found
        docs = [self.folded(doc_id)] if doc_id is not None else self.docs
        if len(needles) < _AUTOMATON_MIN_QUOTES and doc_id is None:
            # The app's live lookup: one scan of the joined text instead of a call per
            # document halves the time of a corpus-wide quote on a large corpus.
            joined, starts = self._joined
            for q in needles:
                for gstart in find_overlapping(joined, q):
                    i = bisect.bisect_right(starts, gstart) - 1
                    found[q].append(self.docs[i].occurrence(gstart - starts[i], len(q)))
            return found
        if len(needles) < _AUTOMATON_MIN_QUOTES or doc_id is not None:
            for fd in docs:
                for q in needles:
                    for pos in find_overlapping(fd.folded, q):
                        found[q].append(fd.occurrence(pos, len(q)))
            return found
        auto = automaton(needles)
        joined, starts = self._joined
        for end_idx, q in auto.iter(joined):
            gstart = end_idx - len(q) + 1
            i = bisect.bisect_right(starts, gstart) - 1
            found[q].append(self.docs[i].occurrence(gstart - starts[i], len(q)))
        for occ in found.values():
            occ.sort(key=lambda o: (o.doc_id, o.start))
        return found

    def find_all_cached(self, quotes: list[str], cache: DigestCache | None = None) -> dict[str, list[Occurrence]]:
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
        per_doc: dict[str, tuple[str, dict[str, list[tuple[int, int]]]]] = {}
        auto = None
        for doc in self.corpus:
            known = previous.get(doc.doc_id)
            if known is not None and known[0] == doc.sha256:
                per_doc[doc.doc_id] = known
                continue
            auto = auto or automaton(needles)
            per_doc[doc.doc_id] = (doc.sha256, document_hits(self.folded(doc.doc_id), auto))
        if auto is not None or len(per_doc) != len(previous):
            cache.put(LAST_SEARCH, (digest, per_doc), SEARCH_CODEC)
        found: dict[str, list[Occurrence]] = {q: [] for q in needles}
        for doc_id, (_, hits) in per_doc.items():  # corpus order: sorted by doc_id
            for q, ranges in hits.items():
                found[q].extend(Occurrence(doc_id, s, e) for s, e in ranges)
        for occ in found.values():
            occ.sort(key=lambda o: (o.doc_id, o.start))
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


def document_hits(fd: FoldedDocument, auto: ahocorasick.Automaton) -> dict[str, list[tuple[int, int]]]:
    """Canonical ``(start, end)`` of every (overlapping) match of each needle in one document."""
    hits: dict[str, list[tuple[int, int]]] = {}
    for end_idx, q in auto.iter(fd.folded):
        occ = fd.occurrence(end_idx - len(q) + 1, len(q))
        hits.setdefault(q, []).append((occ.start, occ.end))
    return hits


def find_overlapping(haystack: str, needle: str):
    """Every start of ``needle`` in ``haystack``, overlapping ones included (SPEC §2)."""
    pos = haystack.find(needle)
    while pos != -1:
        yield pos
        pos = haystack.find(needle, pos + 1)
