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


def joins_before(text: str) -> list[int]:
    """Where a part of ``text`` may start after text a pipeline added before it: after each
    join (a line break, a sentence's end) in its first half, ascending."""
    half = len(text) // 2
    return [m.end() for m in _JOIN.finditer(text) if m.end() <= half]


def cuts(text: str, first: int, last: int) -> Iterator[tuple[int, int]]:
    """Candidate ``(start, end)`` cuts of ``text`` whose middle is the source part — text
    added before it only first, then after it only, then both, each group longest first (at
    most ``MAX_CUTS``, whitespace at a part's ends left out): starts at the text's start, at a
    join in its first half or at ``first`` (the first matched word); ends at its end, at a
    join in its second half or at ``last`` (after the last matched word). The matched words
    may include a stray match of an added word, so the joins are not bound to them."""
    half = len(text) // 2
    lead, full = len(text) - len(text.lstrip()), len(text.rstrip())
    starts, ends = {first}, {last}
    for m in _JOIN.finditer(text):
        if m.end() <= half:
            starts.add(m.end())
        elif m.start() >= half:
            ends.add(m.start())
    starts.discard(lead)
    ends.discard(full)
    before = sorted(starts)[:MAX_CUTS]  # the part's start, ascending: the longest part first
    after = sorted(ends, reverse=True)[:MAX_CUTS]
    both = sorted(((s, e) for s in before[:4] for e in after[:4]), key=lambda se: (se[0] - se[1], se[0]))
    seen: set[tuple[int, int]] = set()
    n = 0
    for s, e in [*((s, full) for s in before), *((lead, e) for e in after), *both]:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s and (s, e) != (lead, full) and (s, e) not in seen:
            seen.add((s, e))
            yield s, e
            n += 1
            if n == MAX_CUTS:
                return
