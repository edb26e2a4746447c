"""Word alignment of a passage to a document (SPEC §10.1 tier 3).

Some loaders match neither the source nor any rendering of it: they drop a table's pipes
but keep its cells in another order of spaces, turn list markers into bullets, join a
heading to the next line. Their words are still the document's words in the same order,
so the passage's words (letter and digit runs — ``\\w+`` without the underscore, so
``_emphasis_`` and ``snake_case`` read as a loader that dropped the markers wrote them —
case-folded) are aligned in order to the
document's words — of its source, else of its rendered text (a loader that read
``__init__`` as emphasis wrote "init"): the longest common subsequence (rapidfuzz's ``LCSseq``, on word ids)
decides how many are matched, and the placed span is the tightest run of document words
that still matches as many.

Candidate places come from the passage's words voting for where they would put its first
word ("diagonals"): a real occurrence collects the votes of almost every word within a
few places of one diagonal, so only those few windows are aligned, never the whole
document against every passage.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz.distance import LCSseq

from labeller.core.corpus import Corpus

# A word: a run of letters and digits. The underscore is left out of it, as emphasis
# markers are (``*`` is not a word character): a loader that rendered ``_emphasis_`` or
# ``__init__`` wrote ``emphasis`` and ``init``.
WORD = re.compile(r"[^\W_]+")
# A word occurring more often than this in a document does not vote ("the", "a"): it
# would add a vote to thousands of diagonals and pick none.
MAX_VOTES_PER_WORD = 64
MAX_CANDIDATES = 16  # windows aligned per passage and document


def words(text: str) -> list[str]:
    """A text's words as aligned: letter and digit runs, case-folded."""
    return [w.casefold() for w in WORD.findall(text)]


@dataclass
class DocWords:
    """One document's words as ids, with each word's source range."""

    ids: list[int]
    starts: list[int]
    ends: list[int]
    at: dict[int, list[int]]  # word id -> its indices in ``ids``
    _arrays: dict[int, np.ndarray] = field(default_factory=dict)  # ``at``'s lists as arrays, made on first use
    _dropped: np.ndarray | None = None  # ``dropped``'s prefix counts, made on first use

    def dropped(self, source: np.ndarray) -> np.ndarray:
        """Prefix counts (``len(ids) + 1``) of this source view's words that the rendered
        text drops — none of whose characters it keeps (``source``: the rendered text's
        source offsets, ascending): an HTML tag's name and attributes, a link's target, an
        entity's name. A loader that rendered the document never wrote them."""
        if self._dropped is None:
            starts, ends = np.array(self.starts, dtype=np.int64), np.array(self.ends, dtype=np.int64)
            at = np.searchsorted(source, starts)  # the first rendered character at or after each word's start
            kept = (at < len(source)) & (source[np.minimum(at, len(source) - 1)] < ends) if len(source) else \
                np.zeros(len(starts), dtype=bool)
            self._dropped = np.concatenate(([0], np.cumsum(~kept)))
        return self._dropped

    def positions(self, wid: int) -> np.ndarray | None:
        """``at[wid]`` as an int64 array (None: the word does not occur here)."""
        found = self._arrays.get(wid)
        if found is None:
            where = self.at.get(wid)
            if where is None:
                return None
            found = self._arrays[wid] = np.array(where, dtype=np.int64)
        return found


@dataclass(frozen=True, slots=True)
class Alignment:
    first: int  # index of the first matched document word
    last: int  # index of the last one
    matched: int  # passage words matched, in order

    def share(self, n_words: int) -> float:
        return self.matched / n_words


class WordIndex:
    """The words of a corpus' documents, read on first use per document."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.vocab: dict[str, int] = {}
        self._docs: dict[tuple[str, bool], DocWords] = {}

    def ids(self, passage_words: list[str]) -> list[int]:
        """Word ids of a passage; a word no document has gets -1 (it can match nothing)."""
        return [self.vocab.get(w, -1) for w in passage_words]

    def doc(self, doc_id: str, text: str | None = None, source: np.ndarray | None = None) -> DocWords:
        """A document's words: of its source, or of ``text`` (its rendered text, whose
        characters come from the source offsets ``source``), read once per key."""
        key = (doc_id, text is not None)
        found = self._docs.get(key)
        if found is None:
            vocab = self.vocab
            ids: list[int] = []
            starts: list[int] = []
            ends: list[int] = []
            at: dict[int, list[int]] = {}
            for m in WORD.finditer(self.corpus[doc_id].text if text is None else text):
                wid = vocab.setdefault(m.group().casefold(), len(vocab))
                at.setdefault(wid, []).append(len(ids))
                ids.append(wid)
                if source is None:
                    starts.append(m.start())
                    ends.append(m.end())
                else:
                    starts.append(int(source[m.start()]))
                    ends.append(int(source[m.end() - 1]) + 1)
            found = self._docs[key] = DocWords(ids, starts, ends, at)
        return found


def align(passage: list[int], doc: DocWords, min_share: float) -> list[Alignment]:
    """Every distinct place in ``doc`` where at least ``min_share`` of the passage's words
    match in order, each as its tightest alignment, in document order."""
    m = len(passage)
    need = max(1, math.ceil(min_share * m - 1e-9))
    diagonals = []
    for i, wid in enumerate(passage):
        where = doc.positions(wid)
        if where is None or len(where) > MAX_VOTES_PER_WORD:
            continue
        diagonals.append(where - i)
    voters = len(diagonals)
    if not voters:
        return []
    band = max(4, m // 8)  # insertions and deletions move a match off its diagonal by this much
    # each vote into its band of diagonals; a band's score is its votes and its two neighbours'
    # (numpy: a Counter of every vote was most of the time of placing 20,000 passages)
    buckets = np.concatenate(diagonals) // band
    low = int(buckets.min())
    counts = np.bincount(buckets - low)
    padded = np.concatenate(([0], counts, [0]))
    present = np.flatnonzero(counts)  # only bands that hold votes are candidates
    scores = (padded[:-2] + padded[1:-1] + padded[2:])[present]
    floor = max(1.0, voters * min_share / 2)
    peaks: list[int] = []
    for k in np.lexsort((present, -scores)).tolist():  # best score first, then the earliest band
        if scores[k] < floor or len(peaks) >= MAX_CANDIDATES:
            break
        b = int(present[k]) + low
        if all(abs(b - p) > 2 for p in peaks):
            peaks.append(b)
    found: list[Alignment] = []
    n = len(doc.ids)
    for b in peaks:  # the bucket and its neighbours, with room for as many inserted words as the passage has
        lo, hi = max(0, (b - 1) * band - m // 2), min(n, (b + 2) * band + 2 * m)
        if hi <= lo:
            continue
        while hi > lo:  # every disjoint alignment in the window, from its end back
            best = int(LCSseq.similarity(passage, doc.ids[lo:hi]))
            if best < need:
                break
            a = _tightest(passage, doc.ids, lo, hi, best)
            found.append(a)
            hi = a.first
    found.sort(key=lambda a: (a.first, -a.matched))
    distinct: list[Alignment] = []
    for a in found:  # two windows of one occurrence give overlapping alignments: keep the better
        if distinct and a.first <= distinct[-1].last:
            if a.matched > distinct[-1].matched:
                distinct[-1] = a
            continue
        distinct.append(a)
    return distinct


def _tightest(passage: list[int], ids: list[int], lo: int, hi: int, best: int) -> Alignment:
    """The shortest run ``ids[s:e]`` inside ``[lo, hi)`` that still matches ``best`` words:
    the latest start keeping ``best`` (the match count only falls as the start moves right),
    then the earliest end."""
    a, b = lo, hi - 1
    while a < b:
        mid = (a + b + 1) // 2
        if LCSseq.similarity(passage, ids[mid:hi]) == best:
            a = mid
        else:
            b = mid - 1
    start = a
    a, b = start + 1, hi
    while a < b:
        mid = (a + b) // 2
        if LCSseq.similarity(passage, ids[start:mid]) == best:
            b = mid
        else:
            a = mid + 1
    return Alignment(start, a - 1, best)


def dense(passage: list[int], doc: DocWords, a: Alignment,
          dropped: Callable[[], np.ndarray] | None = None) -> tuple[int, int, int, int, int] | None:
    """The densely matched core of an alignment: ``(i0, i1, j0, j1, matched)``, passage
    words ``i0..i1`` matched to document words ``j0..j1`` (``matched`` of them in order).

    An alignment's ends may hold stray matches: a word of text the pipeline added ("the",
    a heading's word) matched to the document some way off, which would stretch the range
    back to a heading or on into the next paragraph. The matched runs (rapidfuzz's
    matching blocks) are cut where a gap, in passage or document words, is wider than
    twice the words matched on the far side of it plus two — the far side holding less
    than half of the matches — so a lone match a few words off is dropped, a run of
    several kept.

    Between two runs that both face it on words a loader writes, a gap in document words
    counts only such words — the gap in the rendered text: of a source view, ``dropped``
    gives the prefix counts of the words its rendered text drops (``DocWords.dropped``). An
    HTML tag between two paragraphs (an ``<iframe>`` a loader left out, its ``src`` and
    ``allow`` lists forty words long) is not text the passage skipped, so it does not cut the
    next paragraph off it. A run that ends or starts on a dropped word (a passage word
    matched inside a link's target or a tag) is measured as before: markup words make weak
    matches, and ``<a href="color">`` lines would otherwise chain into one run."""
    blocks = [b for b in LCSseq.editops(passage, doc.ids[a.first:a.last + 1]).as_matching_blocks() if b.size]
    if not blocks:
        return None
    total = sum(b.size for b in blocks)

    def wider(x, y, limit: int) -> bool:
        in_passage, in_doc = y.a - (x.a + x.size), y.b - (x.b + x.size)
        if in_passage > limit or in_doc <= limit:
            return in_passage > limit
        if dropped is None:
            return True
        counts = dropped()  # read only for a gap that would cut
        j0, j1 = a.first + x.b + x.size, a.first + y.b
        if counts[j0] != counts[j0 - 1] or counts[j1 + 1] != counts[j1]:
            return True  # a run that faces the gap on a dropped word (a link's target) is measured as it is
        return in_doc - int(counts[j1] - counts[j0]) > limit

    lo, hi = 0, len(blocks)
    left = 0
    for k in range(len(blocks) - 1):  # the last cut from the start that leaves a sparse head
        left += blocks[k].size
        if 2 * left < total and wider(blocks[k], blocks[k + 1], 2 * left + 2):
            lo = k + 1
    right = 0
    for k in range(len(blocks) - 1, lo, -1):  # the same from the end
        right += blocks[k].size
        if 2 * right < total and wider(blocks[k - 1], blocks[k], 2 * right + 2):
            hi = k
    kept = blocks[lo:hi]
    first, last = kept[0], kept[-1]
    return (first.a, last.a + last.size - 1, a.first + first.b, a.first + last.b + last.size - 1,
            sum(b.size for b in kept))
