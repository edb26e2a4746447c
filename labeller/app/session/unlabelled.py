"""The "next unlabelled" queue: where in the corpus no label points yet.

An author filling a golden set wants to walk the corpus's blind spots, not re-read what
is labelled. The queue holds every document with no label, then every section (an ATX
heading to the next heading of the same or a higher level; fenced code is skipped) that
no span touches, least-covered document first; ties by document id and position, so the
order is stable. Coverage is the share of a document's characters inside some span.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from labeller.core.corpus import Corpus

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


@dataclass(frozen=True)
class Gap:
    """One unlabelled place: a whole document (``heading`` None) or one section of it."""

    doc_id: str
    start: int
    end: int
    heading: str | None
    coverage: float  # of the whole document

    def describe(self) -> str:
        where = f"{self.doc_id} # {self.heading}" if self.heading else self.doc_id
        return f"{where} (document coverage {self.coverage:.0%})"


def sections(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, heading)`` of each ATX section of ``text``, outside fenced code."""
    found: list[tuple[int, int, str]] = []  # (start, level, title)
    fence = None
    pos = 0
    for line in text.splitlines(keepends=True):
        m = _FENCE.match(line)
        if m and (fence is None or m.group(1) == fence):
            fence = None if fence else m.group(1)
        elif fence is None and (h := _HEADING.match(line.rstrip("\n"))):
            found.append((pos, len(h.group(1)), h.group(2)))
        pos += len(line)
    out = []
    for i, (start, level, title) in enumerate(found):
        end = next((s for s, lv, _ in found[i + 1:] if lv <= level), len(text))
        out.append((start, end, title))
    return out


def unlabelled(corpus: Corpus, spans: Iterable[tuple[str, int, int]]) -> list[Gap]:
    """The queue for ``corpus`` given every label's ``(doc, start, end)``."""
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for doc, s, e in spans:
        by_doc.setdefault(doc, []).append((s, e))
    coverage = {}
    for doc_id in corpus.docs:
        n = len(corpus[doc_id].text) or 1
        covered, last = 0, 0
        for s, e in sorted(by_doc.get(doc_id, [])):
            s = max(s, last)
            if e > s:
                covered += e - s
                last = e
        coverage[doc_id] = covered / n
    whole = [Gap(d, 0, len(corpus[d].text), None, 0.0) for d in sorted(corpus.docs) if d not in by_doc]
    parts = []
    for doc_id in sorted(by_doc, key=lambda d: (coverage.get(d, 0.0), d)):
        if doc_id not in corpus.docs:
            continue
        spans_here = by_doc[doc_id]
        for s, e, title in sections(corpus[doc_id].text):
            if not any(a < e and b > s for a, b in spans_here):
                parts.append(Gap(doc_id, s, e, title, coverage[doc_id]))
    return whole + parts


def next_index(items: list, last) -> int:
    """Where a walk that goes round ``items`` goes after ``last`` (the start when ``last`` is no
    longer there): the editor's walks over unlabelled places and over broken labels."""
    return (items.index(last) + 1 if last in items else 0) % len(items)
