"""Seeded bootstrap intervals: reproducible, sensible, and paired for deltas."""

from __future__ import annotations

import math
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from helpers_cpu import KERNELS, cpu_flags
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
    means = bootstrap._Limbs(matrix).means(draws)
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


@pytest.mark.parametrize("n", [1, 2, 57, 300, 20_000, 70_000])
def test_resample_means_are_the_exact_means_to_one_part_in_2_to_the_50(n):
    """The fixed-point limbs lose nothing a report could show: each resample's mean is within
    one part in 2**50 of the column's magnitude of the exact mean (``math.fsum`` of each value
    repeated as often as the resample draws it: the correctly rounded sum)."""
    rng = np.random.default_rng(n)
    matrix = np.column_stack([rng.random(n), -rng.random(n) * 3.0, rng.random(n) * 1e-9,
                              (rng.random(n) < 0.5) * 1.0, 1.0 / rng.integers(1, 50, n), np.zeros(n)])
    draws = rng.multinomial(n, np.full(n, 1.0 / n), size=3).astype(float)
    got = bootstrap._Limbs(matrix).means(draws)
    for row, counts in enumerate(draws):
        repeats = np.repeat(np.arange(n), counts.astype(int))
        for col in range(matrix.shape[1]):
            exact = math.fsum(matrix[repeats, col].tolist()) / n
            scale = float(np.max(np.abs(matrix[:, col]))) or 1.0
            assert abs(got[row, col] - exact) <= scale / 2 ** 50, (n, row, col)


_CPU_SCRIPT = """
import random, sys
from labeller.eval.bootstrap import bootstrap_cis, bootstrap_variances
for n, samples in ((57, 1999), (300, 1313), (4000, 500)):
    rng = random.Random(n * samples)
    values = [[float(rng.random() < 0.6), float(rng.randrange(4)), *(rng.random() for _ in range(8))]
              for _ in range(n)]
    print(repr(bootstrap_cis(values, samples, seed=11)), repr(bootstrap_variances(values, samples, seed=11)))
"""

# Kernels a CPU may give: OpenBLAS's per-architecture ones (with the CPU flags each needs:
# helpers_cpu), numpy's dispatched SIMD levels, threads. Turning numpy's features off needs none.
_CPU_SETTINGS: list[tuple[dict[str, str], frozenset[str]]] = [
    *(({"OPENBLAS_CORETYPE": name}, needs) for name, needs in KERNELS.items()),
    ({"OPENBLAS_NUM_THREADS": "1"}, frozenset()),
    ({"OPENBLAS_NUM_THREADS": "2"}, frozenset()),
    ({"NPY_DISABLE_CPU_FEATURES": "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR"},
     frozenset()),
    ({"NPY_DISABLE_CPU_FEATURES": "AVX2 FMA3 AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL AVX512_SPR",
      "OPENBLAS_CORETYPE": "Sandybridge"}, KERNELS["Sandybridge"]),
]


def _intervals_under(setting: dict[str, str]) -> str:
    """The unrounded intervals and variances (their repr: every bit) from a fresh interpreter
    run with ``setting`` and none of the other settings' variables."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_NUM_THREADS", "NPY_DISABLE_CPU_FEATURES",
                        "OMP_NUM_THREADS", "OPENBLAS_L2_SIZE")}
    env.update(setting)
    return subprocess.run([sys.executable, "-c", _CPU_SCRIPT], env=env, capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture(scope="module")
def default_intervals() -> str:
    return _intervals_under({})


@pytest.mark.parametrize("setting, needs", _CPU_SETTINGS,
                         ids=[" ".join(f"{k}={v.split()[0]}" for k, v in sorted(setting.items()))
                              for setting, _ in _CPU_SETTINGS])
def test_intervals_are_bit_identical_under_every_blas_kernel_simd_level_and_thread_count(
        setting, needs, default_intervals):
    """What another CPU would run, run here: each setting in a fresh interpreter, its unrounded
    intervals and variances the same to the last bit as the machine's own choice. Before the
    integer limbs, SkylakeX's AVX-512 kernel and Haswell's gave different last bits."""
    missing = needs - cpu_flags()
    if missing:
        pytest.skip(f"this CPU lacks {', '.join(sorted(missing))}: the kernel forced by {setting} cannot run here")
    assert _intervals_under(setting) == default_intervals


def test_gathered_intervals_are_the_separate_calls_intervals_bit_for_bit():
    """Asked inside ``gathered()``, each call's columns are answered in one pass per draw set
    (several matrices, a column asked twice, a NaN column, another query count, another seed):
    every interval is the one its own call gives."""
    rng = np.random.default_rng(5)
    a = rng.random((300, 3))
    b = np.column_stack([a[:, 1], (rng.random(300) < 0.4).astype(float)])  # a's second column again
    c = np.column_stack([rng.random(300), np.where(rng.random(300) < 0.01, np.nan, 1.0)])
    d = rng.random((57, 2))  # another draw set: another n
    asks = [(a, 1999, 7), (b, 1999, 7), (c, 1999, 7), (d, 1999, 7), (a, 1999, 8), (a[:0], 1999, 7),
            (a[:, :0], 1999, 9)]
    separate = [bootstrap_cis(m, s, seed) for m, s, seed in asks]
    with bootstrap.gathered():
        pending = [bootstrap_cis(m, s, seed) for m, s, seed in asks]
        assert all(p.ci is None for cis in pending for p in cis if p is not None)
    got = [[p if p is None else p.ci for p in cis] for cis in pending]
    assert repr(got) == repr(separate)  # repr: NaN equals NaN, and every bit of each float counts


@pytest.mark.parametrize("cache", [True, False])
def test_batches_written_into_one_reused_array_are_the_multinomial_counts_as_floats(monkeypatch, cache):
    """``_draws`` writes each batch into one float array kept across batches (``_Floats``): each
    batch, read before the next, is ``counts.astype(float)`` of one ``multinomial`` call, drawn
    or cached, the last (larger) batch too."""
    if not cache:
        monkeypatch.setattr(bootstrap, "CACHE_BYTES", 0)
    bootstrap._CACHE.clear()
    n, samples = 300, 256 * 3 + 100  # batches of 256, 256, 356 rows
    expected = np.random.default_rng(9).multinomial(n, np.full(n, 1.0 / n), size=samples).astype(float)
    for _ in range(2):  # drawn, then (with the cache) from the cached counts
        got = [(b.copy(), b.dtype, b.flags.c_contiguous) for b in bootstrap._draws(n, samples, 9, 1)]
        assert [len(b) for b, _, _ in got] == [256, 256, 356]
        assert all(dtype == np.float64 and contiguous for _, dtype, contiguous in got)
        assert np.array_equal(np.concatenate([b for b, _, _ in got]), expected)
    assert bool(bootstrap._CACHE) == cache
