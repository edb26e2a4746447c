"""Seeded bootstrap intervals: reproducible, sensible, and paired for deltas."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from labeller.eval import bootstrap
from labeller.eval.bootstrap import BATCH_CELLS, bootstrap_cis, paired_delta_cis


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


def _whole_matrix_cis(values, samples, seed, confidence=0.95):
    """The intervals as one matrix of every resample's means would give them (how they
    were computed before the resamples were streamed): the reference for the batched ones."""
    matrix = np.asarray(values, dtype=float)
    n = matrix.shape[0]
    draws = np.random.default_rng(seed).multinomial(n, np.full(n, 1.0 / n), size=samples).astype(float)
    means = draws @ matrix / n
    alpha = (1 - confidence) / 2
    return [(float(lo), float(hi)) for lo, hi in
            zip(np.quantile(means, alpha, axis=0), np.quantile(means, 1 - alpha, axis=0))]


@pytest.mark.parametrize("n, samples", [(1, 700), (3, 41), (57, 1), (57, 2), (57, 1999), (300, 1313)])
def test_batched_resamples_give_exactly_the_whole_matrix_intervals(n, samples):
    rng = random.Random(n * samples)
    values = [[float(rng.random() < 0.6), float(rng.randrange(4)), *(rng.random() for _ in range(8))] for _ in range(n)]
    expected = _whole_matrix_cis(values, samples, seed=11)
    for cells in (1, 7_000, BATCH_CELLS):  # 256-row batches, a few, one
        bootstrap._CACHE.clear()
        assert bootstrap_cis(values, samples, seed=11, batch_cells=cells) == expected
        assert bootstrap_cis(values, samples, seed=11, batch_cells=cells) == expected  # from the cached draws
    assert paired_delta_cis(values, [[0.0] * 10] * n, samples, seed=11) == expected


def test_draws_too_large_to_cache_are_drawn_again_the_same(monkeypatch):
    monkeypatch.setattr(bootstrap, "CACHE_BYTES", 0)
    bootstrap._CACHE.clear()
    values = _data(120)
    first = bootstrap_cis(values, 900, seed=5, batch_cells=1)
    assert not bootstrap._CACHE and first == bootstrap_cis(values, 900, seed=5) == _whole_matrix_cis(values, 900, 5)


def test_a_column_holding_nan_gets_a_nan_interval_as_np_quantile_gives_it():
    values = [[1.0, float("nan")], [0.0, 1.0], [1.0, 0.0]] * 30
    (lo, hi), (nan_lo, nan_hi) = bootstrap_cis(values, 600, seed=2, batch_cells=1)
    assert (lo, hi) == _whole_matrix_cis(values, 600, 2)[0]
    assert math.isnan(nan_lo) and math.isnan(nan_hi)
