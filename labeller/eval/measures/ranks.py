"""The five rank metrics of SPEC §8: recall, success, all, MRR and binary nDCG at k, per query
(each family's call) and for many queries at once (``many``)."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain

import numpy as np

from labeller.eval.measures.base import Measure, RankedQuery


def ndcg(relevant_at: Sequence[int], n_relevant: int, k: int) -> float:
    """Binary nDCG@k (trec_eval's ndcg_cut): DCG of the top k over the ideal DCG of min(R, k)
    hits, from the 0-based positions of the relevant items (ascending).

    The same sums, term for term, as ``g / log2(i + 2)`` added left to right over the top k (a
    gain of 0 adds 0.0, which changes no float): the discounts are looked up, not recomputed,
    and only the relevant ranks are added, in rank order (``in_order``)."""
    if n_relevant <= 0:
        return 0.0
    dcg = in_order(map(_discount, relevant_at[:bisect_left(relevant_at, k)]))
    return dcg / _ideal(min(n_relevant, k))


def in_order(values: Iterable[float]) -> float:
    """Left to right from 0.0, as trec_eval adds: the same double on every Python labeller
    supports. Python's own ``sum`` adds floats so up to 3.11, but compensates from 3.12 on
    (Neumaier), which gives other last bits — and a batch (``many``) could not follow it."""
    total = 0.0
    for v in values:
        total += v
    return total


@lru_cache(maxsize=None)
def _discount(i: int) -> float:
    return 1 / math.log2(i + 2)


@lru_cache(maxsize=None)
def _ideal(n: int) -> float:
    return in_order(1 / math.log2(i + 2) for i in range(n))


def _hits(q: RankedQuery, k: int) -> int:
    return bisect_right(q.found, k)


@dataclass(frozen=True)
class Recall(Measure):
    """Share of the answer targets hit within the top k."""

    family = "recall"
    label = "recall"

    def __call__(self, q: RankedQuery) -> float:
        return _hits(q, self.k) / len(q.ranks) if q.ranks else 0.0


@dataclass(frozen=True)
class Success(Measure):
    """1 when any answer target is hit within the top k."""

    family = "success"
    label = "success"

    def __call__(self, q: RankedQuery) -> float:
        return 1.0 if _hits(q, self.k) else 0.0


@dataclass(frozen=True)
class All(Measure):
    """1 when every answer target is hit within the top k (multi-hop records only)."""

    family = "all"
    label = "all (multi-hop)"
    multi_only = True

    def __call__(self, q: RankedQuery) -> float:
        return 1.0 if q.ranks and _hits(q, self.k) == len(q.ranks) else 0.0


@dataclass(frozen=True)
class MRR(Measure):
    """1 / the first hit rank, 0 past k (misses stay in the mean)."""

    family = "mrr"
    label = "mrr"

    def __call__(self, q: RankedQuery) -> float:
        first = q.found[0] if q.found else None
        return 1.0 / first if first is not None and first <= self.k else 0.0


@dataclass(frozen=True)
class NDCG(Measure):
    """Binary nDCG at k over the ranked gains."""

    family = "ndcg"
    label = "ndcg"

    def __call__(self, q: RankedQuery) -> float:
        return ndcg(q.relevant_at, q.n_relevant, self.k)


BUILT_IN = (Recall, Success, All, MRR, NDCG)


def many(queries: Sequence[RankedQuery], measures: Sequence[Measure]) -> list[list[float]] | None:
    """Each of ``measures`` on each query (rows = queries, columns = ``measures``), every
    query at once: the very doubles each measure's call gives — the same integer counts, the
    same divisions (IEEE rounds each one alike), nDCG's discounts (``_discount``, not
    recomputed) added for each query in rank order, starting from 0, as ``in_order`` adds
    them, and divided by the same ``_ideal``. Adding 0.0 for a position past k or not relevant
    changes no partial sum. None when a measure is not one of ``BUILT_IN`` (a plug-in's is
    called per query)."""
    if any(type(m) not in BUILT_IN or m.k < 1 for m in measures):
        return None
    n = len(queries)
    if not n:
        return []
    batch = _Many(queries)
    columns = [_column(m, batch) for m in measures]
    return [list(row) for row in zip(*(c.tolist() for c in columns))]


class _Many:
    """Columns shared by the measures over one list of queries."""

    def __init__(self, queries: Sequence[RankedQuery]) -> None:
        n = self.n = len(queries)
        targets = [q.ranks for q in queries]
        self.targets = np.fromiter(map(len, targets), np.int64, n)
        found = [q.found for q in queries]  # ascending, per query
        counts = np.fromiter(map(len, found), np.int64, n)
        self.found = np.fromiter(chain.from_iterable(found), np.int64, int(counts.sum()))
        self.found_owner = np.repeat(np.arange(n), counts)
        firsts = [f[0] if f else 0 for f in found]
        self.has_first = counts > 0
        self.first = np.fromiter(firsts, np.int64, n)
        relevant = [q.relevant_at for q in queries]  # ascending 0-based positions, per query
        per = np.fromiter(map(len, relevant), np.int64, n)
        at = np.fromiter(chain.from_iterable(relevant), np.int64, int(per.sum()))
        self.relevant_at = at
        self.relevant_owner = np.repeat(np.arange(n), per)
        self.relevant_slot = np.arange(len(at)) - np.repeat(np.cumsum(per) - per, per)  # its place in its query's list
        self.width = int(per.max(initial=0))
        self.discounts = np.array([_discount(i) for i in range(int(at.max(initial=-1)) + 1)])[at]
        self.n_relevant = np.fromiter((q.n_relevant for q in queries), np.int64, n)
        self._hits: dict[int, np.ndarray] = {}

    def hits(self, k: int) -> np.ndarray:
        """How many targets each query hits within the top k."""
        got = self._hits.get(k)
        if got is None:
            got = self._hits[k] = np.bincount(self.found_owner[self.found <= k], minlength=self.n)
        return got

    def dcg(self, k: int) -> np.ndarray:
        """Each query's discounts of its relevant positions below k, added in rank order."""
        terms = np.zeros((self.n, self.width))
        terms[self.relevant_owner, self.relevant_slot] = np.where(self.relevant_at < k, self.discounts, 0.0)
        total = np.zeros(self.n)
        for j in range(self.width):  # one column at a time: each query's sum in its own order
            total = total + terms[:, j]
        return total

    def ideal(self, k: int) -> np.ndarray:
        """``_ideal(min(n_relevant, k))`` of each query (1.0 where n_relevant <= 0: unused)."""
        top = min(k, int(self.n_relevant.max(initial=0)))
        table = np.array([_ideal(i) for i in range(top + 1)])
        return np.where(self.n_relevant > 0, table[np.clip(self.n_relevant, 0, top)], 1.0)


def _column(m: Measure, q: _Many) -> np.ndarray:
    k = m.k
    if isinstance(m, Recall):
        return np.where(q.targets > 0, q.hits(k) / np.maximum(q.targets, 1), 0.0)
    if isinstance(m, Success):
        return np.where(q.hits(k) > 0, 1.0, 0.0)
    if isinstance(m, All):
        return np.where((q.targets > 0) & (q.hits(k) == q.targets), 1.0, 0.0)
    if isinstance(m, MRR):
        within = q.has_first & (q.first <= k)
        return np.where(within, 1.0 / np.where(within, q.first, 1), 0.0)
    return np.where(q.n_relevant > 0, q.dcg(k) / q.ideal(k), 0.0)
