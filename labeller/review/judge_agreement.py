"""Agreement between two judges who judged the same pooled passages (Cohen's kappa).

Each item is one passage for one question that both judges judged; the decision is
``relevant``. The table and kappa are the review module's own (``agreement.KappaTable``), so
judgments and labels report agreement the same way. Passages only one judge saw are not
items: agreement is over what both decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from labeller.core.judgments import Judgment
from labeller.review.agreement import KappaTable


def judge_agreement(judgments: Sequence[Judgment]) -> list[dict]:
    """One entry per pair of judges (sorted by name) with at least one passage in common."""
    by_judge: dict[str, dict[tuple, bool]] = {}
    for j in judgments:
        by_judge.setdefault(j.judge, {})[j.passage_key] = j.relevant
    out = []
    for a, b in combinations(sorted(by_judge), 2):
        common = sorted(set(by_judge[a]) & set(by_judge[b]))
        if not common:
            continue
        cells = [0, 0, 0, 0]
        for key in common:
            ra, rb = by_judge[a][key], by_judge[b][key]
            cells[0 if ra and rb else 1 if ra else 2 if rb else 3] += 1
        table = KappaTable(*cells)
        kappa = table.kappa
        out.append({"judges": [a, b], "items": table.n, "observed": round((cells[0] + cells[3]) / table.n, 4),
                    "kappa": None if kappa is None else round(kappa, 4), "table": table.as_json()})
    return out
