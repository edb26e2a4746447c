"""The rank metrics as measure objects with typed parameters (ir_measures' shape).

A measure family is a frozen dataclass with its parameter ``k``: ``Recall(k=5)`` is the
measure named ``recall@5``, and calling it on a query's ranks (``RankedQuery``) gives its
value. ``FAMILIES`` registers them by family name in report order; the report, the
aggregates, the sanity check's names, the CLI table and the app's read them from here, so
adding a metric is one new module here plus one line below. Installed packages add
families through the ``labeller.metrics`` entry-point group.
"""

from __future__ import annotations

from labeller.eval.measures.base import Measure, RankedQuery
from labeller.registry import Registry

FAMILIES: Registry[type[Measure]] = Registry(__name__, {
    "recall": "ranks:Recall",
    "success": "ranks:Success",
    "all": "ranks:All",
    "mrr": "ranks:MRR",
    "ndcg": "ranks:NDCG",
}, group="labeller.metrics", what="metric")

__all__ = ["FAMILIES", "Measure", "RankedQuery"]
