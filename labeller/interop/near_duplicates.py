"""Near-duplicate questions: reported, never refused.

Synthetic test sets repeat themselves ("What is X?" / "What's X?"), and two near-identical
questions weigh one fact twice in every mean. Exact duplicates (after NFC and trimming) are
already refused by the questions file; near ones are only a warning, since two questions
may differ by the one word that matters.

Rule: both questions are normalised (NFC, whitespace runs as one space, trimmed,
``str.casefold``) and compared with rapidfuzz's ``fuzz.ratio`` (normalised Indel
similarity, 0–100); a pair scoring at least ``THRESHOLD`` is reported.

Comparing every pair is quadratic (1,000 questions are 499,500 comparisons; a 1 MiB file
of short ones, 10⁸), so only *candidate* pairs are scored, found by an exact filter that
loses no pair above the threshold (``tests/test_near_duplicates.py`` checks it against the
brute force):

* **length**: ``ratio ≥ r`` needs ``indel ≤ (1 - r)(la + lb)``, and ``indel ≥ |la - lb|``;
* **prefix filter over bigrams**: each inserted or deleted character destroys at most
  ``Q`` of a string's ``Q``-grams, so two strings within ``D`` edits share at least
  ``grams - Q·D`` of them (as multisets: the k-th occurrence of a gram is its own element).
  Two sets sharing ``t`` elements share one among the ``|X| - t + 1`` first of each, in any
  fixed order; ordering the elements rarest first makes those prefixes hit few strings.
  ``D`` is bounded per string by the longest partner the length rule allows, so one prefix
  per string serves every pair it is in. Strings too short for the bound to say anything
  (``grams - Q·D ≤ 0``) are compared with every string of a compatible length.

The work is then about the number of pairs that share a rare bigram, near linear for real
question sets; questions so alike that nearly every pair is a candidate (a template filled
with one word) cost what their output costs. ``MAX_WORK`` bounds it whatever the input, each
score weighed by the two strings' lengths (a pair of long ones costs more): a check that
reaches it stops and says so (``complete`` is False, the count a lower bound).
"""

from __future__ import annotations

import heapq
import math
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import count

from labeller.diagnostics import Bounded

THRESHOLD = 90.0
Q = 2  # bigrams: the shortest grams with a useful bound at this threshold on question-length strings
MAX_WORK = 30_000_000  # candidates looked up and scored: a few seconds, far above any real question set
CLOSEST = 10  # the closest pairs kept for the text summary


def _normal(query: str) -> str:
    return " ".join(unicodedata.normalize("NFC", query).split()).casefold()


@dataclass
class NearDuplicates:
    """What the check found: ``pairs`` (``{"a", "b", "score"}``, sorted by ``a``'s then ``b``'s
    position, at most ``diagnostics.KEEP``), ``count`` of every pair found, the ``closest`` few (highest
    score first, then position), and whether every candidate was compared (``complete``)."""

    pairs: list[dict] = field(default_factory=list)
    count: int = 0
    closest: list[dict] = field(default_factory=list)
    complete: bool = True

    def as_json(self) -> dict:
        return {"count": self.count, "complete": self.complete, "listed": len(self.pairs)}


def _grams(text: str) -> list[tuple[str, int]]:
    """The string's ``Q``-grams as set elements: the k-th occurrence of a gram is ``(gram, k)``."""
    seen: defaultdict[str, count[int]] = defaultdict(count)  # each gram's own counter: C calls, no Python loop body
    return [(gram, next(seen[gram])) for gram in [text[k:k + Q] for k in range(len(text) - Q + 1)]]


def near_duplicates(new: list[tuple[str, str]], existing: Sequence[tuple[str, str]] = (),
                    threshold: float = THRESHOLD, max_work: int = MAX_WORK) -> NearDuplicates:
    """Pairs among the ``(id, query)`` of ``new``, and between ``new`` and ``existing`` (a record
    of the same id in both is one record being replaced); ``a`` is always from ``new``."""
    from rapidfuzz import fuzz, process  # only needed when there is something to compare

    result = NearDuplicates()
    if not new:
        return result
    new_ids = {i for i, _ in new}
    pool = list(new) + [(i, q) for i, q in existing if i not in new_ids]
    texts = [_normal(q) for _, q in pool]
    lengths = [len(t) for t in texts]
    r = threshold / 100
    slack = 1e-9

    def window(n: int) -> tuple[int, int]:
        """The lengths a partner of a string of ``n`` characters may have."""
        return math.ceil(n * r / (2 - r) - slack), math.floor(n * (2 - r) / r + slack)

    def prefix_size(n: int) -> int | None:
        """How many of the rarest elements a string of ``n`` characters is indexed by (None: all
        of its partners must be compared, its bound says nothing)."""
        most_edits = math.floor((1 - r) * 2 * n / r + slack) + 1  # its longest partner's indel bound, and one spare
        need = (n - Q + 1) - Q * most_edits  # bigrams shared with any partner, at least
        return None if need <= 0 else (n - Q + 1) - need + 1

    rarity: Counter[tuple[str, int]] = Counter()
    for t in texts:
        rarity.update(_grams(t))
    postings: dict[tuple[str, int], list[int]] = {}
    prefixes: list[list[tuple[str, int]]] = []
    loose: list[int] = []  # strings whose bound says nothing (an empty prefix), then sorted by length
    for idx, t in enumerate(texts):
        size = prefix_size(len(t))
        if size is None:
            loose.append(idx)
            prefixes.append([])
            continue
        prefix = sorted(_grams(t), key=lambda e: (rarity[e], e))[:size]
        prefixes.append(prefix)
        for e in prefix:
            postings.setdefault(e, []).append(idx)
    del rarity
    loose.sort(key=lambda i: lengths[i])
    loose_lengths = [lengths[i] for i in loose]
    by_length = sorted(range(len(texts)), key=lambda i: lengths[i])
    sorted_lengths = [lengths[i] for i in by_length]

    work = 0
    kept: Bounded[tuple[int, int, float]] = Bounded()  # found in position order (a ascending, then b): the first
    closest: list[tuple[float, int, int]] = []  # a min-heap on closeness, (score, -a, -b): the closest pairs
    for a in range(len(new)):
        lo, hi = window(lengths[a])
        candidates: set[int] = set()
        if prefixes[a]:
            for e in prefixes[a]:
                posting = postings[e]  # ascending: strings are indexed in order
                later = posting[bisect_right(posting, a):]
                work += len(later)
                candidates.update(later)
            span = loose[bisect_left(loose_lengths, lo):bisect_right(loose_lengths, hi)]
        else:
            span = by_length[bisect_left(sorted_lengths, lo):bisect_right(sorted_lengths, hi)]
        candidates.update(b for b in span if b > a)
        order = sorted(b for b in candidates if lo <= lengths[b] <= hi)
        # a lookup or a score of two question-length strings is one unit; a longer pair costs what
        # rapidfuzz's bit-parallel Indel reads, ⌈n/64⌉ words a character (200 queries of 6,000
        # characters, counted as one unit a pair, spent 10 s where the bound means a few)
        blocks = -(-lengths[a] // 64)
        work += len(span) + len(candidates) + sum(blocks * -(-lengths[b] // 64) - 1 for b in order)
        if work > max_work:
            result.complete = False
            break
        if not order:
            continue
        scores = process.cdist([texts[a]], [texts[b] for b in order], scorer=fuzz.ratio, score_cutoff=threshold,
                               workers=1)[0]
        values = scores.tolist()
        for k in scores.nonzero()[0].tolist():
            b, score = order[k], round(values[k], 1)
            kept.append((a, b, score))
            near = (score, -a, -b)
            if len(closest) < CLOSEST:
                heapq.heappush(closest, near)
            elif near > closest[0]:
                heapq.heapreplace(closest, near)

    def pair(a: int, b: int, score: float) -> dict:
        return {"a": pool[a][0], "b": pool[b][0], "score": score}

    result.pairs, result.count = [pair(a, b, score) for a, b, score in kept], kept.total
    result.closest = [pair(-na, -nb, score) for score, na, nb in sorted(closest, reverse=True)]
    return result


def describe_pair(p: dict) -> str:
    return f"near-duplicate questions {p['a']!r} and {p['b']!r} (similarity {p['score']} ≥ {THRESHOLD:g})"


def describe(found: NearDuplicates) -> list[str]:
    """The warning lines for text output: the closest pairs, then how many there are in all."""
    lines = [describe_pair(p) for p in found.closest]
    if found.count > len(found.closest):
        lines.append(f"{found.count:,} near-duplicate pairs in all, the {len(found.closest)} closest above "
                     "(--format json lists them)")
    if not found.complete:
        lines.append("near-duplicate check stopped at its work bound: the questions are too alike to compare every "
                     "pair, so there may be more")
    return lines
