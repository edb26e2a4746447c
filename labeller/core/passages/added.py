"""Where a pipeline's passage may be cut into source text and added text (SPEC §10.1 *Added text*).

Contextual retrieval prepends a sentence or two to every chunk, docling's ``contextualize``
its heading path, other pipelines a title line: the passage is then source text with text
around it that the source does not hold there. The locator finds the source part's words
(``aligned.dense``); this module says which cuts of the passage to try as that part —
where a pipeline joins what it adds (a line break, a sentence's end), near the ends of the
matched words — and the bound every placement by a looser tier must meet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# A tier 2–3 placement spans at most SPAN_FACTOR × the placed text's length + SPAN_SLACK
# characters (SPEC §10.1): room for the syntax a loader dropped (link targets, markers),
# never for a range stretched to a distant heading.
SPAN_FACTOR = 1.2
SPAN_SLACK = 40
# The least share of a passage's words that can be its source part: what is added may not
# be longer than what is placed, but code and markup hold few words for their characters.
REGION_FLOOR = 0.25
MAX_CUTS = 16  # (start, end) pairs tried per passage
# Where a pipeline joins what it adds: after a line break, or after a sentence's end.
_JOIN = re.compile(r"\n\s*|(?<=[.!?:])\s+")


def region_floor(n_words: int) -> float:
    """The share of a passage's words its source part must match at least to be looked at."""
    return REGION_FLOOR if n_words > 2 else 1.0


def cuts(text: str, spans: list[tuple[int, int]], i0: int, i1: int) -> Iterator[tuple[int, int]]:
    """Candidate ``(start, end)`` cuts of ``text`` whose middle is the source part — text
    added before it only first, then after it only, then both, each group longest first (at
    most ``MAX_CUTS``): starts at the text's start, at a join in its first half
    or at the first matched word ``i0``; ends at its end, at a join in its second half or
    after the last matched word ``i1`` (the matched words may include a stray match of an
    added word, so the joins are not bound to them)."""
    half = len(text) // 2
    joins = list(_JOIN.finditer(text))
    starts = {0, spans[i0][0]} | {m.end() for m in joins if m.end() <= half}
    ends = {len(text), spans[i1][1]} | {m.start() for m in joins if m.start() >= half}
    pairs = []
    for s in starts:
        for e in ends:
            s2, e2 = s, e
            while s2 < e2 and text[s2].isspace():
                s2 += 1
            while e2 > s2 and text[e2 - 1].isspace():
                e2 -= 1
            if e2 > s2 and (s2, e2) != (0, len(text)):
                pairs.append((s2, e2))
    # text added before only first (a prepended context, a heading path: what pipelines do),
    # then after only (an appended note), then both; each group longest first
    full = len(text.rstrip())
    yield from sorted(set(pairs), key=lambda se: ((se[1] < full) * 2 - (se[0] == 0 and se[1] < full), se[0] - se[1],
                                                  se[0]))[:MAX_CUTS]
