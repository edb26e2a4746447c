"""The rank measures read a query's hit ranks sorted (a bisection per k) and its relevant
positions once (nDCG's terms): each value must be, bit for bit, the definition's — a walk of
the ranks and of the first k gains at each k, as trec_eval sums them."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.eval.measures import RankedQuery
from labeller.eval.measures.ranks import MRR, NDCG, All, Recall, Success


def definition(family: str, ranks, gains, n_relevant: int, k: int) -> float:
    found = [r for r in ranks if r is not None]
    within = sum(1 for r in found if r <= k)
    if family == "recall":
        return within / len(ranks) if ranks else 0.0
    if family == "success":
        return 1.0 if within else 0.0
    if family == "all":
        return 1.0 if ranks and within == len(ranks) else 0.0
    if family == "mrr":
        return 1.0 / min(found) if found and min(found) <= k else 0.0
    if n_relevant <= 0:
        return 0.0
    dcg = sum(1 / math.log2(i + 2) for i, g in enumerate(gains[:k]) if g)
    return dcg / sum(1 / math.log2(i + 2) for i in range(min(n_relevant, k)))


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(1, 60)), max_size=6), st.lists(st.sampled_from([0, 1]), max_size=60),
       st.integers(0, 12), st.integers(1, 70))
def test_each_measure_is_its_definition_bit_for_bit(ranks, gains, n_relevant, k):
    q = RankedQuery(ranks, gains, n_relevant)
    for measure in (Recall(k=k), Success(k=k), All(k=k), MRR(k=k), NDCG(k=k)):
        assert measure(q) == definition(measure.family, ranks, gains, n_relevant, k), measure.name
