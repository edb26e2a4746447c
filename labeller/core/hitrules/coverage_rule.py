"""``coverage>=T`` (SPEC §5.3): one chunk covers at least the share T of the span."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.hitrules import Interval, ThresholdRule, coverage


@dataclass(frozen=True)
class Coverage(ThresholdRule):
    kind = "coverage"

    @property
    def needs_overlap(self) -> bool:
        """``coverage>=0`` is satisfied by every chunk of the document, touching or not."""
        return self.threshold > 0

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        return coverage(chunk, span) >= self.threshold
