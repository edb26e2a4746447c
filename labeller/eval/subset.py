"""A fast subset for pull requests: ``labeller eval --subset N``.

The full golden set is for the nightly run; a pull request wants a verdict in a minute. The
subset must be *stable* (the same records on every run, so two runs of a branch are paired
and a change in the set is never mistaken for a change in the system) and *stratified* (its
mix of traffic strata, splits, hops and negatives is the whole set's, so its mean is not a
different quantity). Stable: within each stratum the records with the smallest SHA-256 of
their id are taken, so a record joins or leaves only when its own stratum's size changes.
Stratified: each stratum gets its share of ``N`` by the largest remainder (ties by name).

Fewer questions see less: the report states the minimum detectable difference the subset
still has (``power.mdd`` of its per-query recall, times √2 for two systems uncorrelated per
query: an upper bound, as ``power`` explains; ``--baseline`` gives the paired one).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from labeller.core.build import RecordResult
from labeller.errors import InvalidInput


def stratum_of(rec: RecordResult) -> str:
    q = rec.question
    source = f"traffic:{q.traffic.stratum}" if q.traffic is not None else "authored"
    kind = "negative" if q.unanswerable else q.hop
    return f"{source}|{q.split or '(none)'}|{kind}"


def stable_subset(records: Sequence[RecordResult], n: int) -> tuple[list[RecordResult], dict[str, list[int]]]:
    """``n`` of ``records`` (all when there are no more), in file order, and per stratum
    ``[taken, of]``."""
    if n < 1:
        raise InvalidInput(f"--subset must be at least 1, got {n}")
    groups: dict[str, list[RecordResult]] = {}
    for r in records:
        groups.setdefault(stratum_of(r), []).append(r)
    total = len(records)
    if n >= total:
        return list(records), {h: [len(g), len(g)] for h, g in sorted(groups.items())}
    ideal = {h: n * len(g) / total for h, g in groups.items()}
    take = {h: math.floor(v) for h, v in ideal.items()}
    for h in sorted(groups, key=lambda h: (-(ideal[h] - take[h]), h))[:n - sum(take.values())]:
        take[h] += 1
    keep: set[str] = set()
    for h, g in groups.items():
        keep.update(r.question.id for r in sorted(g, key=_rank)[:take[h]])
    return [r for r in records if r.question.id in keep], {h: [take[h], len(g)] for h, g in sorted(groups.items())}


def _rank(rec: RecordResult) -> str:
    return hashlib.sha256(rec.question.id.encode("utf-8")).hexdigest()
