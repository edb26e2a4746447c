"""Traffic-weighted estimates (SPEC §14): what production recall is, from a stratified sample.

A traffic sample over-samples the tail and the complaints on purpose, so its plain mean
answers "how good is the system on the questions we chose", not "how good is it for the
requests it gets". Each sampled folded query stands for ``frequency`` requests and was drawn
with probability ``pi``; seen as requests, each of its requests was drawn with that same
probability (all of a folded query's requests come together). So the production metric is
the ratio estimator over requests,

    Σ_i f_i m_i / π_i  ÷  Σ_i f_i / π_i

(the SPEC's Σ m/π ÷ Σ 1/π with a folded query's requests written once, ``f_i`` times), over the
answerable sampled queries. A domain (one tenant, one stratum) is the same ratio over its own
queries, which is how an estimate for a subpopulation is made from a sample not designed
around it.

The interval is a percentile bootstrap that resamples with replacement *within each stratum*
(``n_h`` draws from the ``n_h`` queries of stratum ``h``), as the sample was drawn: strata are
fixed by the design, so their sizes must not vary between resamples. A stratum taken whole
(``π = 1``) is kept whole in every resample: it contributes no sampling variance; a stratum of one query cannot show its
variance, which is why the design gives every stratum at least two.

Sums are made in a fixed order: each resample's totals are accumulated one query at a time,
elementwise across resamples, so no reduction whose order depends on the CPU's vector width
enters a number that is printed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from labeller.eval.bootstrap import CONFIDENCE


@dataclass(frozen=True)
class TrafficUnit:
    """One answerable sampled query: its per-query metric values and its place in the design."""

    values: Mapping[str, float]
    frequency: int
    pi: float
    stratum: str
    tenant: str | None = None

    @property
    def weight(self) -> float:
        return self.frequency / self.pi


def stratified_ratio_cis(num: np.ndarray, den: np.ndarray, strata: Sequence[str], samples: int, seed: int,
                         confidence: float = CONFIDENCE,
                         census: frozenset[str] = frozenset()) -> list[tuple[float, float] | None]:
    """Percentile interval of ``Σ num[:, k] ÷ Σ den[:, k]`` for each column ``k``, resampling the
    rows within each stratum; a stratum of ``census`` (taken whole, π = 1) is kept as it is in
    every resample: it was not sampled, so it has no sampling variance to show. None for a
    column whose denominator is zero in every resample."""
    n, width = num.shape
    if n == 0:
        return [None] * width
    rng = np.random.default_rng(seed)
    tot_num = np.zeros((samples, width))
    tot_den = np.zeros((samples, width))
    by: dict[str, list[int]] = {}
    for i, h in enumerate(strata):
        by.setdefault(h, []).append(i)
    for h in sorted(by):
        rows = by[h]
        counts = np.ones((samples, len(rows))) if h in census else \
            rng.multinomial(len(rows), np.full(len(rows), 1.0 / len(rows)), size=samples).astype(float)
        for j, i in enumerate(rows):  # one query at a time: elementwise, the same sums on every CPU
            c = counts[:, j:j + 1]
            tot_num += c * num[i]
            tot_den += c * den[i]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.where(tot_den > 0, tot_num / np.where(tot_den > 0, tot_den, 1.0), np.nan)
    alpha = (1.0 - confidence) / 2.0
    out: list[tuple[float, float] | None] = []
    for k in range(width):
        col = ratios[:, k]
        col = col[~np.isnan(col)]
        out.append(None if col.size == 0 else (float(np.quantile(col, alpha)), float(np.quantile(col, 1 - alpha))))
    return out


def _ratio(num: np.ndarray, den: np.ndarray) -> float | None:
    d = math.fsum(den)
    return math.fsum(num) / d if d > 0 else None


def _stat(value: float | None, ci: tuple[float, float] | None, n: int) -> dict:
    r = (lambda x: None if x is None else round(x, 6))
    return {"value": r(value), "ci_low": r(ci[0]) if ci else None, "ci_high": r(ci[1]) if ci else None, "n": n}


def traffic_estimates(units: Sequence[TrafficUnit], metrics: Sequence[str], focus: str, samples: int, seed: int,
                      confidence: float = CONFIDENCE) -> dict:
    """The report's ``traffic`` object: each metric weighted (beside the same sample's unweighted
    mean), and ``focus`` (the shipped recall) per stratum and per tenant, with the tenants
    whose interval lies wholly below the rest of the traffic's named in ``below_others``.

    "Below the others" compares a tenant with all other tenants taken together (the same ratio
    over their queries, from the same resamples): a tenant is named when its interval's top
    is under the rest's interval's bottom."""
    n = len(units)
    w = np.array([u.weight for u in units], dtype=float)
    strata = [u.stratum for u in units]
    m = np.array([[u.values[k] for k in metrics] for u in units], dtype=float).reshape(n, len(metrics))
    tenants = sorted({u.tenant for u in units if u.tenant is not None})
    stratum_names = sorted(set(strata))
    f = m[:, list(metrics).index(focus)] if n else np.zeros(0)
    domains: list[tuple[str, str, np.ndarray]] = [("stratum", h, np.array([s == h for s in strata]))
                                                  for h in stratum_names]
    for t in tenants:
        mine = np.array([u.tenant == t for u in units])
        domains += [("tenant", t, mine), ("rest", t, ~mine)]
    num = np.column_stack([w[:, None] * m] + [(w * f * mask)[:, None] for _, _, mask in domains]) if n else \
        np.zeros((0, len(metrics) + len(domains)))
    den = np.column_stack([np.repeat(w[:, None], len(metrics), axis=1)] + [(w * mask)[:, None]
                                                                           for _, _, mask in domains]) if n else \
        np.zeros((0, len(metrics) + len(domains)))
    census = frozenset(h for h in stratum_names if all(u.pi >= 1.0 for u in units if u.stratum == h))
    cis = stratified_ratio_cis(num, den, strata, samples, seed, confidence, census)
    point = [_ratio(num[:, k], den[:, k]) for k in range(num.shape[1])]
    weighted = {k: _stat(point[j], cis[j], n) for j, k in enumerate(metrics)}
    unweighted = {k: _stat(math.fsum(m[:, j]) / n if n else None, None, n) for j, k in enumerate(metrics)}
    rows: dict[str, dict[str, dict]] = {"stratum": {}, "tenant": {}, "rest": {}}
    for j, (kind, name, mask) in enumerate(domains, start=len(metrics)):
        rows[kind][name] = _stat(point[j], cis[j], int(mask.sum()))
    below = [t for t in tenants if rows["tenant"][t]["ci_high"] is not None and rows["rest"][t]["ci_low"] is not None
             and rows["tenant"][t]["ci_high"] < rows["rest"][t]["ci_low"]]
    return {"estimator": "ratio: sum(f*m/pi) / sum(f/pi) over answerable sampled queries (f: requests folded, "
                         "pi: inclusion probability); interval: percentile bootstrap within strata",
            "metric": focus, "records": n, "weighted": weighted, "unweighted": unweighted,
            "strata": rows["stratum"], "tenants": rows["tenant"], "below_others": below}
