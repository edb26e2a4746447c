"""A toy hit rule for tests/test_registries.py: ``chunk_share>=T``, the share of the *chunk*
inside the span (a precision-like rule no shipped rule computes).

It exists to show that a hit rule is one module plus one registration line (there:
``toys.toy_hitrule:ChunkShare``, a dotted module imported as it is). It implements the
``HitRule`` protocol from scratch, without the package's base classes: a class attribute
``kind`` (the registry key) and a ``threshold`` parameter, which makes it a ``>=T`` rule.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChunkShare:
    kind = "chunk_share"
    threshold: float

    @property
    def name(self) -> str:
        return f"{self.kind}>={self.threshold:g}"

    @property
    def needs_overlap(self) -> bool:
        return True

    def chunk_hits(self, chunk, span) -> bool:
        inside = min(chunk[1], span[1]) - max(chunk[0], span[0])
        return inside > 0 and inside / (chunk[1] - chunk[0]) >= self.threshold

    def span_satisfied(self, chunks, span) -> bool:
        return any(self.chunk_hits(c, span) for c in chunks)
