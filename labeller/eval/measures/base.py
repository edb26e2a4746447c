"""What a measure is given (one query's ranks at one level) and what it must say about itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import compress
from typing import ClassVar


@dataclass(frozen=True)
class RankedQuery:
    """One query at one level. ``ranks``: per answer target (span or document) the rank that
    first hits it, None if none does; ``gains``: 1 per ranked position that is relevant;
    ``n_relevant``: how many relevant items exist (nDCG's ideal list)."""

    ranks: Sequence[int | None]
    gains: Sequence[int]
    n_relevant: int

    @cached_property
    def found(self) -> list[int]:
        """The ranks that hit, ascending, once per query: every measure at every k reads them
        (how many are within k is one bisection)."""
        return sorted(r for r in self.ranks if r is not None)

    @cached_property
    def relevant_at(self) -> list[int]:
        """The 0-based positions of the relevant items, in rank order: nDCG's terms, once per
        query rather than a walk of the first k gains at each k."""
        return list(compress(range(len(self.gains)), self.gains))


@dataclass(frozen=True)
class Measure:
    """A metric at cut-off ``k``; a family sets ``family`` (the name before ``@``), ``label``
    (its row in the tables) and ``multi_only`` (scored on multi-hop records only)."""

    k: int
    family: ClassVar[str]
    label: ClassVar[str]
    multi_only: ClassVar[bool] = False

    @property
    def name(self) -> str:
        return f"{self.family}@{self.k}"

    def __call__(self, q: RankedQuery) -> float:
        raise NotImplementedError(f"{type(self).__name__} must compute its value")
