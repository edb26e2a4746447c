"""SPEC §5's interval arithmetic, a chunk ``[cs, ce)`` against a span ``[ss, se)``.

The rules are stated in these terms, and the build reports ``span_union_coverage`` with
``union_coverage`` whatever rule it runs under.
"""

from __future__ import annotations

from typing import Iterable

Interval = tuple[int, int]


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
