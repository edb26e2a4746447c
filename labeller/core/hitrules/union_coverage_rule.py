"""``union_coverage>=T`` (SPEC §5.4): the chunks together cover at least the share T of the
span, each character counted once however many chunks hold it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from labeller.core.hitrules import Interval, ThresholdRule, any_overlap, union_coverage


@dataclass(frozen=True)
class UnionCoverage(ThresholdRule):
    kind = "union_coverage"

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        """A chunk contributes when it overlaps the span."""
        return any_overlap(chunk, span)

    def span_satisfied(self, chunks: Iterable[Interval], span: Interval) -> bool:
        return union_coverage(list(chunks), span) >= self.threshold
