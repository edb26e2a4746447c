"""Traffic-weighted estimates (SPEC §14) against a population whose production recall is known.

The population is synthetic on purpose: only there is the true production recall known, so
only there can an interval be held to covering it. Frequencies are heavy-tailed (Zipf), the
tail is answered worse than the head (as in real traffic: rare questions use rare words),
and one tenant's retrieval is broken. Each seed draws a fresh sample through the sampler's
own design functions (bands, cells, allocation, π) and estimates from it.
"""

from __future__ import annotations

import numpy as np
import pytest

from labeller.eval.weighted import TrafficUnit, stratified_ratio_cis, traffic_estimates
from labeller.traffic.design import Cell, allocate, band, cell_factor, cell_name

TENANTS = ("acme", "blue", "cobalt", "delta", "ember")
BROKEN = "delta"
SEEDS = 200
N_SAMPLE = 400
METRIC = "recall@5"


def population(n: int = 4000, seed: int = 0):
    """(frequency, tenant, recall) per folded query, and the true production recall (per request)."""
    rng = np.random.default_rng(seed)
    rank = np.arange(1, n + 1)
    freq = np.maximum(1, np.floor(20000 / rank ** 1.1)).astype(int)
    tenant = rng.choice(len(TENANTS), size=n)
    broken = tenant == TENANTS.index(BROKEN)
    p = np.where(rank <= 30, 1.0, np.where(rank <= 600, 0.8, 0.5))
    p = np.where(broken, p * 0.4, p)
    recall = (rng.random(n) < p).astype(float)
    recall[(rank <= 30) & broken] = 0.0  # the head: the few queries half the traffic asks, wholly known
    truth = float((freq * recall).sum() / freq.sum())
    return freq, tenant, recall, truth


def design(freq, tenant, n: int = N_SAMPLE) -> tuple[dict[str, list[int]], dict[str, int]]:
    """The sample's design through the sampler's own functions: bands by the traffic ahead,
    cells crossed with the tenant, the tail over-sampled 2x. The population is fixed, so this
    is the same for every seed."""
    order = np.lexsort((np.arange(len(freq)), -freq))
    before = np.concatenate(([0], np.cumsum(freq[order])[:-1]))
    total = int(freq.sum())
    cells: dict[str, list[int]] = {}
    for pos, i in enumerate(order):
        name = cell_name(band(before[pos], total, 0.5, 0.3), False, "tenant", TENANTS[tenant[i]])
        cells.setdefault(name, []).append(int(i))
    specs = [Cell(k, len(v), int(freq[v].sum()), cell_factor(k, 2.0, 2.0)) for k, v in sorted(cells.items())]
    return cells, allocate(specs, n)


def draw(freq, tenant, recall, seed: int, n: int = N_SAMPLE, plan=None) -> list[TrafficUnit]:
    """One stratified sample: simple random sampling without replacement in each cell."""
    cells, take = plan or design(freq, tenant, n)
    rng = np.random.default_rng(seed)
    units = []
    for name, members in sorted(cells.items()):
        k = take[name]
        for i in (rng.choice(members, size=k, replace=False) if k else []):
            units.append(TrafficUnit({METRIC: float(recall[i])}, int(freq[i]), k / len(members), name,
                                     TENANTS[tenant[i]]))
    return units


@pytest.fixture(scope="module")
def runs():
    freq, tenant, recall, truth = population()
    plan = design(freq, tenant)
    out = []
    for seed in range(SEEDS):
        units = draw(freq, tenant, recall, seed, plan=plan)
        out.append(traffic_estimates(units, [METRIC], METRIC, samples=500, seed=seed))
    return truth, out


def test_the_weighted_interval_covers_the_true_production_recall(runs):
    truth, out = runs
    covered = sum(r["weighted"][METRIC]["ci_low"] <= truth <= r["weighted"][METRIC]["ci_high"] for r in out)
    assert covered >= 0.93 * SEEDS, f"covered {covered}/{SEEDS}"


def test_the_unweighted_mean_of_the_same_sample_is_biased(runs):
    """The sample over-samples the tail, which is answered worse: its plain mean is low, far
    beyond its own noise, while the weighted mean centres on the truth."""
    truth, out = runs
    unweighted = np.array([r["unweighted"][METRIC]["value"] for r in out])
    weighted = np.array([r["weighted"][METRIC]["value"] for r in out])
    bias_u, bias_w = unweighted.mean() - truth, weighted.mean() - truth
    assert abs(bias_u) > 10 * unweighted.std() / np.sqrt(SEEDS) and abs(bias_u) > 0.05
    assert abs(bias_w) < 0.01 < abs(bias_u)


def test_the_broken_tenant_is_named_and_no_other(runs):
    _, out = runs
    named = [r["below_others"] for r in out]
    assert sum(BROKEN in b for b in named) >= 0.9 * SEEDS
    assert sum(t in b for b in named for t in TENANTS if t != BROKEN) <= 0.05 * SEEDS


def test_per_stratum_and_per_tenant_rows_are_reported(runs):
    _, out = runs
    r = out[0]
    assert set(r["tenants"]) == set(TENANTS)
    assert {s.split("|")[0] for s in r["strata"]} == {"head", "torso", "tail"}
    assert sum(row["n"] for row in r["strata"].values()) == r["records"] == N_SAMPLE


def test_a_stratum_taken_whole_adds_no_variance():
    """Two strata; the first is taken whole (its values differ, but it was not sampled), the
    second has one value: every resample gives the same ratio, so the interval is a point. As
    a sampled stratum, the first would spread it."""
    num = np.array([[1.0], [0.0], [0.5], [0.5]])
    den = np.ones((4, 1))
    ci = stratified_ratio_cis(num, den, ["a", "a", "b", "b"], samples=200, seed=1, census=frozenset({"a"}))[0]
    assert ci is not None and ci[0] == ci[1] == pytest.approx(0.5)
    lo, hi = stratified_ratio_cis(num, den, ["a", "a", "b", "b"], samples=200, seed=1)[0]
    assert lo < 0.5 < hi


def test_the_same_seed_gives_the_same_numbers():
    freq, tenant, recall, _ = population(n=500)
    units = draw(freq, tenant, recall, 3, n=80)
    a = traffic_estimates(units, [METRIC], METRIC, samples=300, seed=9)
    b = traffic_estimates(list(reversed(units)), [METRIC], METRIC, samples=300, seed=9)
    assert a == traffic_estimates(units, [METRIC], METRIC, samples=300, seed=9)
    assert a["weighted"][METRIC]["value"] == b["weighted"][METRIC]["value"]
