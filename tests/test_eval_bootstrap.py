"""Seeded bootstrap intervals: reproducible, sensible, and paired for deltas."""

from __future__ import annotations

import random

from labeller.eval.bootstrap import bootstrap_cis, paired_delta_cis


def _data(n=80, seed=3):
    rng = random.Random(seed)
    return [[float(rng.random() < 0.7), rng.random()] for _ in range(n)]


def test_same_seed_same_intervals_other_seed_other_intervals():
    data = _data()
    assert bootstrap_cis(data, 1000, seed=42) == bootstrap_cis(data, 1000, seed=42)
    assert bootstrap_cis(data, 1000, seed=42) != bootstrap_cis(data, 1000, seed=43)


def test_interval_brackets_the_mean_and_narrows_with_more_queries():
    small, large = _data(40), _data(4000)
    for data in (small, large):
        (lo, hi), _ = bootstrap_cis(data, 1000, seed=1)
        mean = sum(r[0] for r in data) / len(data)
        assert lo <= mean <= hi
    (lo_s, hi_s), _ = bootstrap_cis(small, 1000, seed=1)
    (lo_l, hi_l), _ = bootstrap_cis(large, 1000, seed=1)
    assert hi_l - lo_l < (hi_s - lo_s) / 3


def test_constant_values_give_a_point_interval_and_no_rows_give_none():
    assert bootstrap_cis([[1.0], [1.0], [1.0]], 200, seed=1) == [(1.0, 1.0)]
    assert bootstrap_cis([], 200, seed=1) == []


def test_paired_deltas_cancel_what_both_runs_share():
    base = _data(200)
    same = paired_delta_cis(base, base, 500, seed=1)
    assert same == [(0.0, 0.0), (0.0, 0.0)]
    shifted = [[r[0], r[1] + 0.1] for r in base]
    (_, _), (lo, hi) = paired_delta_cis(shifted, base, 500, seed=1)
    assert abs(lo - 0.1) < 1e-9 and abs(hi - 0.1) < 1e-9  # an unpaired interval would be wide here
