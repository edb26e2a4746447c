"""``span_containment`` (SPEC §5.2): a chunk hits a span it holds whole."""

from __future__ import annotations

from dataclasses import dataclass

from labeller.core.hitrules import ChunkRule, Interval, span_containment


@dataclass(frozen=True)
class SpanContainment(ChunkRule):
    kind = "span_containment"

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        return span_containment(chunk, span)
