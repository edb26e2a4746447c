"""The rank measures read a query's hit ranks sorted (a bisection per k) and its relevant
positions once (nDCG's terms): each value must be, bit for bit, the definition's — a walk of
the ranks and of the first k gains at each k, as trec_eval sums them."""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from labeller.eval.measures import Measure, RankedQuery
from labeller.eval.measures.ranks import MRR, NDCG, All, Recall, Success, many
from labeller.eval.metrics import level_metrics, level_metrics_many


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
    # left to right from 0.0, as trec_eval adds (Python 3.12's own ``sum`` compensates)
    dcg = functools.reduce(operator.add, (1 / math.log2(i + 2) for i, g in enumerate(gains[:k]) if g), 0.0)
    return dcg / functools.reduce(operator.add, (1 / math.log2(i + 2) for i in range(min(n_relevant, k))), 0.0)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(1, 60)), max_size=6), st.lists(st.sampled_from([0, 1]), max_size=60),
       st.integers(0, 12), st.integers(1, 70))
def test_each_measure_is_its_definition_bit_for_bit(ranks, gains, n_relevant, k):
    q = RankedQuery(ranks, gains, n_relevant)
    for measure in (Recall(k=k), Success(k=k), All(k=k), MRR(k=k), NDCG(k=k)):
        assert measure(q) == definition(measure.family, ranks, gains, n_relevant, k), measure.name


_QUERY = st.tuples(st.lists(st.one_of(st.none(), st.integers(1, 60)), max_size=6),
                   st.lists(st.sampled_from([0, 1]), max_size=60), st.integers(0, 12), st.booleans())


@settings(max_examples=300, deadline=None)
@given(st.lists(_QUERY, max_size=40), st.lists(st.integers(1, 70), min_size=1, max_size=5, unique=True).map(sorted))
def test_every_query_at_once_is_each_query_alone_bit_for_bit(queries, ks):
    """``level_metrics_many`` (numpy columns over every query) against ``level_metrics`` (each
    measure called on one query): the same names, in the same order, and the same doubles."""
    batch = level_metrics_many([RankedQuery(r, g, n) for r, g, n, _ in queries], ks, [m for *_, m in queries])
    alone = [level_metrics(r, g, n, ks, m) for r, g, n, m in queries]
    assert [list(d.items()) for d in batch] == [list(d.items()) for d in alone]
    assert all(type(v) is float for d in batch for v in d.values())


def test_ndcg_adds_left_to_right_on_every_python():
    """3.12's ``sum`` compensates (``sum([1e16, 1.0, -1e16])`` is 1.0 there, 0.0 on 3.11): the
    measures add as trec_eval does, whatever the interpreter, so the batch can follow them."""
    from labeller.eval.measures.ranks import in_order

    assert in_order([1e16, 1.0, -1e16]) == 0.0 and in_order([]) == 0.0 and type(in_order([])) is float


def test_the_columns_are_taken_for_the_built_in_measures():
    """Else the test above compares the per-query path with itself."""
    q = RankedQuery([2, None], [0, 1, 1], 3)
    assert many([q], [f(k=3) for f in (Recall, Success, All, MRR, NDCG)]) == [[0.5, 1.0, 0.0, 0.5, NDCG(k=3)(q)]]


def test_a_registered_family_is_scored_per_query_beside_the_built_in_ones(monkeypatch):
    from labeller.eval.measures import FAMILIES

    @dataclass(frozen=True)
    class Top1Hit(Measure):
        family = "top1hit"
        label = "top-1 hit"

        def __call__(self, q: RankedQuery) -> float:
            return 1.0 if 1 in q.ranks else 0.0

    monkeypatch.setitem(FAMILIES, "top1hit", Top1Hit)
    queries = [RankedQuery([1], [1], 1), RankedQuery([2, None], [0, 1], 1)]
    batch = level_metrics_many(queries, (1, 2), [False, True])
    assert batch == [level_metrics([1], [1], 1, (1, 2), False), level_metrics([2, None], [0, 1], 1, (1, 2), True)]
    assert [d["top1hit@1"] for d in batch] == [1.0, 0.0]
