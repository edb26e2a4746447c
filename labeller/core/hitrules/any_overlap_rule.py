"""``any_overlap`` (SPEC §5.1): a chunk hits a span it shares a character with."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.hitrules import ChunkRule, Interval, any_overlap


@dataclass(frozen=True)
class AnyOverlap(ChunkRule):
    kind = "any_overlap"

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        return any_overlap(chunk, span)
