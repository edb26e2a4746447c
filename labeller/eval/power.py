"""How many questions are enough: the smallest difference a paired comparison can detect.

A golden set of 40 questions cannot tell a 2-point recall gain from noise, and its intervals
alone do not say so. With the standard error ``se`` of the mean paired delta (from the
paired bootstrap's own resamples, ``bootstrap.bootstrap_variances``), a two-sided test at
level ``alpha`` (1 - the report's confidence) has power ``power`` against a true difference
of ``(z(1 - alpha/2) + z(power)) * se``: the *minimum detectable difference*. Because ``se``
shrinks as one over the square root of the number of questions, the same variance says how
many questions a given difference needs: ``n = ((z(1 - alpha/2) + z(power)) * sd / delta)^2``
with ``sd = se * sqrt(n_now)``.

Without a baseline there are no paired deltas; the per-query variance of the metric itself,
doubled, stands in for the variance of a difference between two systems that are
uncorrelated per query. Real systems are positively correlated (they find the same easy
answers), so that count is an upper bound; a baseline gives the real one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from labeller.errors import InvalidInput
from labeller.eval.bootstrap import CONFIDENCE, bootstrap_variances

POWER = 0.8


def z_sum(confidence: float = CONFIDENCE, power: float = POWER) -> float:
    """``z(1 - alpha/2) + z(power)``: 1.96 + 0.84 at 95% and 80%."""
    z = NormalDist().inv_cdf
    return z(1 - (1 - confidence) / 2) + z(power)


def mdd(values: Sequence[float], samples: int, seed: int, confidence: float = CONFIDENCE,
        power: float = POWER) -> dict:
    """The minimum detectable difference of the mean of ``values`` (per-query paired deltas)."""
    var = bootstrap_variances([[v] for v in values], samples, seed)[0] if values else None
    se = None if var is None else math.sqrt(var)
    return {"value": None if se is None else round(z_sum(confidence, power) * se, 6),
            "se": None if se is None else round(se, 6), "n": len(values), "power": power,
            "alpha": round(1 - confidence, 6)}


def questions_needed(delta: float, values: Sequence[float], samples: int, seed: int, *, paired: bool,
                     confidence: float = CONFIDENCE, power: float = POWER) -> dict:
    """How many questions detect ``delta`` at the variance of ``values``: per-query paired
    deltas (``paired``), or one system's per-query scores (then the variance of a
    difference is taken as twice theirs, see the module docstring)."""
    if not delta > 0 or not math.isfinite(delta):
        raise InvalidInput(f"--power needs a positive difference to detect (e.g. 0.05), got {delta!r}")
    found = mdd(values, samples, seed, confidence, power)
    se, n = found["se"], found["n"]
    out = {"delta": delta, "power": power, "alpha": found["alpha"], "questions": n,
           "variance": "paired deltas against the baseline" if paired else
           "twice the per-query variance (two uncorrelated systems: an upper bound)",
           "mdd": found["value"] if paired else (None if se is None else round(z_sum(confidence, power) * se
                                                                                * math.sqrt(2), 6))}
    if se is None:
        return out | {"questions_needed": None}
    sd = se * math.sqrt(n) * (1 if paired else math.sqrt(2))
    needed = math.ceil((z_sum(confidence, power) * sd / delta) ** 2) if sd > 0 else 1
    return out | {"questions_needed": max(needed, 2)}
