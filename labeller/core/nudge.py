"""Nudging a quote by a word, and turning a selection of canonical text into a quote.

These sit next to the anchors because they decide what a quote *is* when an author
points at text: the folded form ``fold_quote`` matches, grown or shrunk by the same unit
(a run of non-whitespace) that the core's unique-extension suggestion grows by. No UI
here: the app calls these with offsets from its document view.
"""

from __future__ import annotations

from labeller.core.anchors import fold_quote
from labeller.core.corpus import Document


def nudge_range(text: str, start: int, end: int, how: str) -> tuple[int, int] | None:
    """Move one boundary of ``text[start:end]`` by one word; ``None`` when it cannot move.

    A word is a run of non-whitespace characters, the unit the core's unique-extension
    suggestion grows by; the quote always keeps at least one word.
    """
    s, e = start, end
    if how == "grow_start":
        while s > 0 and text[s - 1].isspace():
            s -= 1
        while s > 0 and not text[s - 1].isspace():
            s -= 1
    elif how == "grow_end":
        n = len(text)
        while e < n and text[e].isspace():
            e += 1
        while e < n and not text[e].isspace():
            e += 1
    elif how == "shrink_start":
        while s < e and not text[s].isspace():
            s += 1
        while s < e and text[s].isspace():
            s += 1
        if s >= e:
            return None
    elif how == "shrink_end":
        while e > s and not text[e - 1].isspace():
            e -= 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e <= s:
            return None
    else:
        raise ValueError(f"unknown nudge {how!r}")
    if (s, e) == (start, end) or not text[s:e].strip():
        return None
    return s, e


def nudge_refusal(text: str, start: int, end: int, how: str) -> str:
    """Why ``nudge_range`` could not move ``text[start:end]`` (it returned ``None``), in
    words: a key that does nothing must say why (issue 27)."""
    if how in ("shrink_start", "shrink_end"):
        return "the quote is one word: a nudge keeps at least one (select other text to replace it)"
    if how == "grow_start":
        return "nothing before the quote to add: it starts the document"
    if how == "grow_end":
        return "nothing after the quote to add: it ends the document"
    raise ValueError(f"unknown nudge {how!r}")


def context_change(before: tuple[str | None, str | None], after: tuple[str | None, str | None]) -> list[str]:
    """What a nudge did to the locator's context, ``(prefix, suffix)`` before and after, in
    words; empty when it kept them. A nudged quote gets the shortest context that keeps the
    author's copy of a repeated passage, which may be the very word the nudge took out of the
    quote, or no context where the new quote is unique: either way the locator is more than
    its quote now, so the author is told (issue 27: "nudges never move text between quote and
    context without saying so")."""
    notes = []
    for name, old, new in (("prefix", before[0], after[0]), ("suffix", before[1], after[1])):
        if old == new:
            continue
        if new and old:
            notes.append(f"context {name} {old!r} is now {new!r}: it picks this copy of the quote")
        elif new:
            notes.append(f"context {name} {new!r} added: the quote occurs more than once, and it picks this copy")
        else:
            notes.append(f"context {name} {old!r} dropped: it picked a copy of the old quote")
    return notes


def quote_from_range(doc: Document, start: int, end: int) -> str:
    """The quote a selection of canonical text stands for: the core's folded form, so a
    selection across a line wrap is stored on one line and still matches the same place."""
    return fold_quote(doc.text[start:end])


def trimmed_start(doc: Document, start: int, end: int) -> int:
    """Where the quote of ``[start, end)`` starts once its leading whitespace is trimmed."""
    while start < end and doc.text[start].isspace():
        start += 1
    return start
