"""The five rank metrics of SPEC §8: recall, success, all, MRR and binary nDCG at k."""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from labeller.eval.measures.base import Measure, RankedQuery


def ndcg(relevant_at: Sequence[int], n_relevant: int, k: int) -> float:
    """Binary nDCG@k (trec_eval's ndcg_cut): DCG of the top k over the ideal DCG of min(R, k)
    hits, from the 0-based positions of the relevant items (ascending).

    The same sums, term for term, as ``sum(g / log2(i + 2))`` over the top k (a gain of 0
    adds 0.0, which changes no float): the discounts are looked up, not recomputed, and
    only the relevant ranks are added, in rank order."""
    if n_relevant <= 0:
        return 0.0
    dcg = sum(map(_discount, relevant_at[:bisect_left(relevant_at, k)]))
    return dcg / _ideal(min(n_relevant, k))


@lru_cache(maxsize=None)
def _discount(i: int) -> float:
    return 1 / math.log2(i + 2)


@lru_cache(maxsize=None)
def _ideal(n: int) -> float:
    return sum(1 / math.log2(i + 2) for i in range(n))


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
