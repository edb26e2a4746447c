"""The four hit rules: when does a chunk count as holding (part of) an answer span?

Every recall number labeller prints names one of these, because the same ranking gives
different numbers under different rules (SPEC §5). All are computed from offsets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from labeller.errors import InvalidInput

Interval = tuple[int, int]
_PARAM = re.compile(r"^(coverage|union_coverage)>=(0(?:\.\d+)?|1(?:\.0+)?)$")


@dataclass(frozen=True)
class HitRule:
    """A parsed rule name such as ``any_overlap`` or ``union_coverage>=0.5``."""

    kind: str
    threshold: float | None = None

    @property
    def name(self) -> str:
        return self.kind if self.threshold is None else f"{self.kind}>={self.threshold:g}"

    @property
    def needs_overlap(self) -> bool:
        """Only a chunk that shares a character with the span can hit it (all rules but
        ``coverage>=0``, which every chunk of the document satisfies)."""
        return not (self.kind == "coverage" and self.threshold == 0)

    def chunk_hits(self, chunk: Interval, span: Interval) -> bool:
        """Does this one chunk hit the span? (``union_coverage``: any contributing chunk.)"""
        if self.kind == "span_containment":
            return span_containment(chunk, span)
        if self.kind == "coverage":
            return coverage(chunk, span) >= (self.threshold or 0.0)
        return any_overlap(chunk, span)

    def span_satisfied(self, chunks: Iterable[Interval], span: Interval) -> bool:
        """Is the span found by this set of (retrieved) chunks of its document?"""
        chunks = list(chunks)
        if self.kind == "union_coverage":
            return union_coverage(chunks, span) >= (self.threshold or 0.0)
        return any(self.chunk_hits(c, span) for c in chunks)


def parse_hit_rule(name: str) -> HitRule:
    name = name.strip()
    if name in ("any_overlap", "span_containment"):
        return HitRule(name)
    m = _PARAM.match(name)
    if not m:
        raise InvalidInput(f"unknown hit rule {name!r}; use any_overlap, span_containment, "
                           "coverage>=T or union_coverage>=T with 0 <= T <= 1")
    return HitRule(m.group(1), float(m.group(2)))


def any_overlap(chunk: Interval, span: Interval) -> bool:
    return chunk[0] < span[1] and span[0] < chunk[1]


def span_containment(chunk: Interval, span: Interval) -> bool:
    return chunk[0] <= span[0] and chunk[1] >= span[1]


def _length(span: Interval) -> int:
    return max(0, span[1] - span[0])


def coverage(chunk: Interval, span: Interval) -> float:
    inter = min(chunk[1], span[1]) - max(chunk[0], span[0])
    return max(0, inter) / _length(span) if _length(span) else 0.0


def union_coverage(chunks: Iterable[Interval], span: Interval) -> float:
    """Share of the span's characters covered by the union of the chunks (never above 1)."""
    if not _length(span):
        return 0.0
    clipped = sorted((max(c[0], span[0]), min(c[1], span[1])) for c in chunks)
    covered = 0
    cur_s = cur_e = span[0]  # the current run of covered characters, empty to begin with
    for s, e in clipped:
        if s >= e:
            continue
        if s > cur_e:
            covered += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    covered += cur_e - cur_s
    return covered / _length(span)
